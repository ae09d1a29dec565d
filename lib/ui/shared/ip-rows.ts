/**
 * The rows the popup lists (IPs on this page, or IPs pasted into the lookup box) and how they
 * sort and filter. Pure functions over LookupResult, so the table, the export and the tests
 * all agree on what a row says.
 */
import type { GatewayProvenance, Reputation } from '../../api/types';
import type { LookupResult } from '../../lookup/types';
import { SEVERITY_LABEL, SEVERITY_RANK, severityOf, type Severity, type SeverityThresholds } from '../../severity';
import { ipSortKey } from './ip-order';

export interface IpRow {
  ip: string;
  /** How often the IP occurs on the page or in the pasted text. */
  count: number;
  /** Absent while the lookup is pending. */
  result?: LookupResult;
}

export const COLUMNS = ['ip', 'severity', 'score', 'reputation', 'hits', 'lastAttack', 'count'] as const;
/** With a team gateway's answers, the team's sightings get a column of their own. */
export const TEAM_COLUMNS = [...COLUMNS, 'team'] as const;
export type Column = (typeof TEAM_COLUMNS)[number];
export type SortDirection = 'asc' | 'desc';
export interface SortState {
  column: Column;
  direction: SortDirection;
}

export const COLUMN_LABEL: Record<Column, string> = {
  ip: 'IP',
  severity: 'Severity',
  score: 'Score',
  reputation: 'Reputation',
  hits: 'Hits',
  lastAttack: 'Last attack',
  count: 'Seen',
  team: 'Team',
};

/** The first click on a column sorts the way an analyst wants first: riskiest, most, newest. */
export const FIRST_DIRECTION: Record<Column, SortDirection> = {
  ip: 'asc',
  severity: 'asc',
  score: 'desc',
  reputation: 'asc',
  hits: 'desc',
  lastAttack: 'desc',
  count: 'desc',
  team: 'desc',
};

/** A team gateway's provenance of the row's answer; undefined for the public API's. */
export function rowGateway(row: IpRow): GatewayProvenance | undefined {
  const r = row.result;
  return r && (r.status === 'found' || r.status === 'not-found') ? r.gateway : undefined;
}

/** The columns to show: the team's only when some answer came through a team gateway. */
export function columnsFor(rows: readonly IpRow[]): readonly Column[] {
  return rows.some((row) => rowGateway(row)?.sightings) ? TEAM_COLUMNS : COLUMNS;
}

export function foundData(row: IpRow): Reputation | null {
  return row.result?.status === 'found' ? row.result.data : null;
}

export function rowSeverity(row: IpRow, thresholds: SeverityThresholds): Severity {
  return severityOf(row.result, thresholds);
}

type Value = string | number | null;

function valueOf(row: IpRow, column: Column, thresholds: SeverityThresholds): Value {
  const data = foundData(row);
  switch (column) {
    case 'ip':
      return row.ip;
    case 'severity':
      return SEVERITY_RANK[rowSeverity(row, thresholds)];
    case 'score':
      return data?.score ?? null;
    case 'reputation':
      return data?.reputation?.toLowerCase() ?? null;
    case 'hits':
      return data?.totalHits ?? null;
    case 'lastAttack':
      return data?.lastAttack ?? null;
    case 'count':
      return row.count;
    case 'team':
      // Analysts who looked it up before; "new to the team" sorts as 0.
      return rowGateway(row)?.sightings?.count ?? null;
  }
}

function compareValues(a: Value, b: Value): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a).localeCompare(String(b));
}

/** The risk-order fields of a row, computed once per sort rather than per comparison. */
interface RiskKey {
  rank: number;
  score: number;
  hits: number;
  ip: string;
}

function riskKey(row: IpRow, thresholds: SeverityThresholds): RiskKey {
  const data = foundData(row);
  return {
    rank: SEVERITY_RANK[rowSeverity(row, thresholds)],
    score: data?.score ?? -1,
    hits: data?.totalHits ?? -1,
    ip: ipSortKey(row.ip),
  };
}

function compareRiskKeys(a: RiskKey, b: RiskKey): number {
  return a.rank - b.rank || b.score - a.score || b.hits - a.hits || (a.ip < b.ip ? -1 : a.ip > b.ip ? 1 : 0);
}

export function sortRows(rows: readonly IpRow[], sort: SortState | null, thresholds: SeverityThresholds): IpRow[] {
  // Decorate once, sort, undecorate: keys (IP parsing, severity) are not recomputed n log n times.
  const items = rows.map((row) => ({
    row,
    risk: riskKey(row, thresholds),
    value: sort ? (sort.column === 'ip' ? ipSortKey(row.ip) : valueOf(row, sort.column, thresholds)) : null,
  }));
  const sign = sort?.direction === 'desc' ? -1 : 1;
  items.sort((a, b) => {
    if (sort) {
      // Empty cells stay at the bottom whichever way the column is sorted.
      if (a.value === null || b.value === null) {
        if (a.value !== b.value) return a.value === null ? 1 : -1;
      } else {
        const primary = compareValues(a.value, b.value);
        if (primary) return sign * primary;
      }
    }
    return compareRiskKeys(a.risk, b.risk);
  });
  return items.map((i) => i.row);
}

export interface RowFilter {
  severity: Severity | 'all';
  text: string;
}

/** Every piece of text a row shows, for the text filter. */
function searchableText(row: IpRow, thresholds: SeverityThresholds): string {
  const data = foundData(row);
  const parts: (string | null | undefined)[] = [row.ip, SEVERITY_LABEL[rowSeverity(row, thresholds)]];
  if (data) {
    // Not the API's threat_level: filtering "medium" must not find a row the badge calls High.
    parts.push(data.reputation, data.description, ...Object.values(data.ipInfo ?? {}));
  }
  if (row.result?.status === 'skipped') parts.push(row.result.reason);
  if (row.result?.status === 'error') parts.push(row.result.error.kind, row.result.error.message);
  return parts.filter(Boolean).join('\n').toLowerCase();
}

export function filterRows(rows: readonly IpRow[], filter: RowFilter, thresholds: SeverityThresholds): IpRow[] {
  const needle = filter.text.trim().toLowerCase();
  return rows.filter(
    (row) =>
      (filter.severity === 'all' || rowSeverity(row, thresholds) === filter.severity) &&
      (!needle || searchableText(row, thresholds).includes(needle)),
  );
}

/** Next sort after a click on a column header: first direction, then the other, then risk order. */
export function nextSort(current: SortState | null, column: Column): SortState | null {
  if (!current || current.column !== column) return { column, direction: FIRST_DIRECTION[column] };
  if (current.direction === FIRST_DIRECTION[column]) {
    return { column, direction: current.direction === 'asc' ? 'desc' : 'asc' };
  }
  return null;
}

export function countBySeverity(rows: readonly IpRow[], thresholds: SeverityThresholds): Partial<Record<Severity, number>> {
  const counts: Partial<Record<Severity, number>> = {};
  for (const row of rows) {
    const s = rowSeverity(row, thresholds);
    counts[s] = (counts[s] ?? 0) + 1;
  }
  return counts;
}
