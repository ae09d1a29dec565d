/**
 * Export of the popup's current list as CSV or JSON: every field of every row, dates as ISO
 * 8601 (UTC). Both formats come from one flat record so they always carry the same fields.
 */
import { escapeBidiInJson } from '../../visible-text';
import type { IpInfo } from '../../api/types';
import type { SeverityThresholds } from '../../severity';
import { toCsv } from './csv';
import { foundData, rowGateway, rowSeverity, type IpRow } from './ip-rows';

const IP_INFO_FIELDS = [
  'asn',
  'as_name',
  'as_domain',
  'country_code',
  'country',
  'continent_code',
  'continent',
  'isp',
] as const satisfies readonly (keyof IpInfo)[];

export const EXPORT_FIELDS = [
  'ip',
  'seen',
  'severity',
  'status',
  'score',
  // The API's own field, kept for whoever reads the file; `severity` is the level the extension shows.
  'api_threat_level',
  'reputation',
  'total_hits',
  'last_attack',
  'description',
  'whitelisted',
  'whitelist_description',
  'whitelist_note',
  'whitelist_value',
  'whitelist_entry',
  ...IP_INFO_FIELDS,
  'skip_reason',
  'error_kind',
  'error_status',
  'error_message',
  'fetched_at',
] as const;
/**
 * A team gateway's fields, added only when some row came through one (an export of the public
 * API's answers stays as it was): where the answer came from, when the upstream gave it, and
 * the team's sightings before this lookup.
 */
export const TEAM_EXPORT_FIELDS = [
  'gateway_cache',
  'answered_upstream_at',
  'team_analysts',
  'new_to_team',
  'team_first_seen',
  'team_last_seen',
  'team_analyst_names',
] as const;
export type ExportField = (typeof EXPORT_FIELDS)[number] | (typeof TEAM_EXPORT_FIELDS)[number];
export type ExportRecord = Partial<Record<ExportField, string | number | boolean | null>>;

/** The fields of an export of `rows`: the team's too when any answer came through a gateway. */
export function exportFieldsFor(rows: readonly IpRow[]): readonly ExportField[] {
  return rows.some((row) => rowGateway(row)) ? [...EXPORT_FIELDS, ...TEAM_EXPORT_FIELDS] : EXPORT_FIELDS;
}

export function isoOrNull(epochMs: number | null | undefined): string | null {
  if (typeof epochMs !== 'number' || !Number.isFinite(epochMs)) return null;
  const date = new Date(epochMs);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

export function toExportRecord(row: IpRow, thresholds: SeverityThresholds, fields: readonly ExportField[] = EXPORT_FIELDS): ExportRecord {
  const result = row.result;
  const data = foundData(row);
  const record = Object.fromEntries(fields.map((f) => [f, null])) as ExportRecord;
  record.ip = row.ip;
  record.seen = row.count;
  record.severity = rowSeverity(row, thresholds);
  record.status = result?.status ?? 'pending';
  if (data) {
    record.score = data.score;
    record.api_threat_level = data.threatLevel;
    record.reputation = data.reputation;
    record.total_hits = data.totalHits;
    record.last_attack = data.lastAttack;
    record.description = data.description;
    record.whitelisted = data.whitelisted;
    record.whitelist_description = data.whitelist?.description ?? null;
    record.whitelist_note = data.whitelist?.note ?? null;
    record.whitelist_value = data.whitelist?.value ?? null;
    record.whitelist_entry = data.whitelist?.entry ? JSON.stringify(data.whitelist.entry) : null;
    for (const field of IP_INFO_FIELDS) record[field] = data.ipInfo?.[field] ?? null;
  }
  if (result?.status === 'found' || result?.status === 'not-found') {
    record.fetched_at = isoOrNull(result.fetchedAt);
    const gateway = result.gateway;
    if (gateway && fields.includes('gateway_cache')) {
      record.gateway_cache = gateway.cache;
      record.answered_upstream_at = isoOrNull(result.fetchedAt - gateway.ageMs);
      const s = gateway.sightings;
      if (s) {
        record.team_analysts = s.count;
        record.new_to_team = s.newToTeam;
        record.team_first_seen = s.firstSeen;
        record.team_last_seen = s.lastSeen;
        record.team_analyst_names = s.names ? s.names.join('; ') : null;
      }
    }
  }
  if (result?.status === 'skipped') record.skip_reason = result.reason;
  if (result?.status === 'error') {
    record.error_kind = result.error.kind;
    record.error_status = result.error.status ?? null;
    record.error_message = result.error.message;
  }
  return record;
}

export function rowsToCsv(rows: readonly IpRow[], thresholds: SeverityThresholds): string {
  const fields = exportFieldsFor(rows);
  return toCsv(
    fields,
    rows.map((row) => {
      const record = toExportRecord(row, thresholds, fields);
      return fields.map((f) => record[f] ?? null);
    }),
  );
}

export function rowsToJson(
  rows: readonly IpRow[],
  thresholds: SeverityThresholds,
  meta: { source: string; exportedAt: number },
): string {
  const fields = exportFieldsFor(rows);
  const items = rows.map((row) => toExportRecord(row, thresholds, fields));
  // Bidi controls written as \uXXXX escapes: the same data, but visible in any editor.
  return `${escapeBidiInJson(JSON.stringify({ source: meta.source, exportedAt: isoOrNull(meta.exportedAt), count: items.length, items }, null, 2))}\n`;
}

/** `ip-reputation-<what>-20250101-120000.csv`, in local time (the analyst's clock). */
export function exportFileName(what: string, epochMs: number, extension: 'csv' | 'json' | 'stix.json' | 'misp.json'): string {
  const d = new Date(epochMs);
  const pad = (n: number) => String(n).padStart(2, '0');
  const stamp = Number.isNaN(d.getTime())
    ? 'export'
    : `${d.getFullYear()}${pad(d.getMonth() + 1)}${pad(d.getDate())}-${pad(d.getHours())}${pad(d.getMinutes())}${pad(d.getSeconds())}`;
  const slug = what.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'list';
  return `ip-reputation-${slug}-${stamp}.${extension}`;
}
