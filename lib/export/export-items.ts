/**
 * What the STIX and MISP exports are built from: the popup's rows (and the card's one IP),
 * reduced to the facts a case tool needs, with the severity the marks and the list show
 * (lib/severity.ts, the analyst's thresholds), never a second rule.
 *
 * Which IPs go in: every IP the API answered for (found, whatever its severity, or not in the
 * database) is an observable, because the case records what was seen. An indicator (a claim
 * that the IP is malicious) is made only for high and critical, and medium when the analyst
 * turned that on: see `isIndicator`. Private and reserved addresses, IPs not looked up (cap,
 * quota, no key), failed and pending lookups are left out entirely: an internal address has
 * no place in a shared intelligence platform, and a failed lookup says nothing.
 */
import type { ThreatLevel } from '../api/types';
import { isValidIp, isValidIpv4, ipKey } from '../ip/validate-ip';
import { severityOf, type Severity, type SeverityThresholds } from '../severity';
import type { IpRow } from '../ui/shared/ip-rows';

export interface ExportItem {
  /** Canonical form (RFC 5952 for IPv6), checked with lib/ip: the only text a pattern holds. */
  ip: string;
  version: 4 | 6;
  severity: Severity;
  /** How often it occurs on the page or in the pasted text. */
  count: number;
  /** Epoch ms of the lookup whose answer this is. */
  lookedUpAt: number;
  found: boolean;
  score: number | null;
  threatLevel: ThreatLevel | null;
  /** Free text from the API: data, never part of a pattern or an identifier. */
  reputation: string | null;
  totalHits: number | null;
  lastAttack: string | null;
  description: string | null;
  whitelisted: boolean;
  /** The AS number, when the API gave one that is a valid 32-bit number. */
  asn: number | null;
  asName: string | null;
  /** ISO 3166-1 alpha-2, upper case, when the API gave a well-formed one. */
  countryCode: string | null;
  country: string | null;
}

export interface ExportSet {
  items: ExportItem[];
  /** IPs left out, and why (a severity: skipped, failed, capped, pending). */
  leftOut: { ip: string; severity: Severity }[];
}

/** Where the IPs were seen. The page's address is there only when the analyst ticked it. */
export type ExportOrigin =
  | { kind: 'page'; url?: string; title?: string }
  | { kind: 'lookup' };

export interface ExportContext {
  /** Epoch ms of the export. */
  exportedAt: number;
  origin: ExportOrigin;
  /** Options: medium severity becomes an indicator (MISP: to_ids) too. Off by default. */
  mediumIndicators: boolean;
}

const ASN = /^(?:AS)?\s*(\d{1,10})$/i;
const MAX_ASN = 4_294_967_295;

export function parseAsn(value: string | undefined): number | null {
  const match = value ? ASN.exec(value.trim()) : null;
  if (!match) return null;
  const n = Number(match[1]);
  return Number.isSafeInteger(n) && n <= MAX_ASN ? n : null;
}

export function parseCountryCode(value: string | undefined): string | null {
  return value && /^[A-Za-z]{2}$/.test(value.trim()) ? value.trim().toUpperCase() : null;
}

/** The one rule for "this IP is reported as malicious" in both formats. */
export function isIndicator(severity: Severity, mediumIndicators: boolean): boolean {
  return severity === 'critical' || severity === 'high' || (mediumIndicators && severity === 'medium');
}

export function toExportSet(rows: readonly IpRow[], thresholds: SeverityThresholds): ExportSet {
  const items: ExportItem[] = [];
  const leftOut: ExportSet['leftOut'] = [];
  const seen = new Set<string>();
  for (const row of rows) {
    const severity = severityOf(row.result, thresholds);
    const result = row.result;
    const raw = row.ip.trim();
    if (!result || (result.status !== 'found' && result.status !== 'not-found') || !isValidIp(raw)) {
      leftOut.push({ ip: row.ip, severity });
      continue;
    }
    const ip = ipKey(raw);
    if (seen.has(ip)) continue;
    seen.add(ip);
    const data = result.status === 'found' ? result.data : null;
    items.push({
      ip,
      version: isValidIpv4(ip) ? 4 : 6,
      severity,
      count: row.count,
      lookedUpAt: result.fetchedAt,
      found: data !== null,
      score: data?.score ?? null,
      threatLevel: data?.threatLevel ?? null,
      reputation: data?.reputation ?? null,
      totalHits: data?.totalHits ?? null,
      lastAttack: data?.lastAttack ?? null,
      description: data?.description ?? null,
      whitelisted: data?.whitelisted ?? false,
      asn: parseAsn(data?.ipInfo?.asn),
      asName: data?.ipInfo?.as_name ?? null,
      countryCode: parseCountryCode(data?.ipInfo?.country_code),
      country: data?.ipInfo?.country ?? null,
    });
  }
  return { items, leftOut };
}
