/**
 * What the page holds, for the popup's "This page" list and the toolbar badge: each IP once,
 * with how often it occurs and its answer, riskiest first.
 */
import type { LookupResult } from '../lookup/types';
import type { PageIp } from '../messaging';
import { SEVERITIES, SEVERITY_RANK, type Severity } from '../severity';

export interface IpSummarySource {
  ips(): Iterable<string>;
  countOf(ip: string): number;
  versionOf(ip: string): 4 | 6;
  resultOf(ip: string): LookupResult | undefined;
  severityOf(ip: string): Severity;
}

export function listPageIps(source: IpSummarySource): PageIp[] {
  const rows = [...source.ips()].map((ip) => {
    const row: PageIp & { severity: Severity } = {
      ip,
      version: source.versionOf(ip),
      count: source.countOf(ip),
      severity: source.severityOf(ip),
    };
    const result = source.resultOf(ip);
    if (result) row.result = result;
    return row;
  });
  rows.sort((a, b) => SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity] || b.count - a.count || (a.ip < b.ip ? -1 : 1));
  return rows.map(({ severity: _severity, ...row }) => row);
}

/** Distinct IPs per severity (the badge counts high + critical ones). */
export function countBySeverity(source: Pick<IpSummarySource, 'ips' | 'severityOf'>): Record<Severity, number> {
  const counts = Object.fromEntries(SEVERITIES.map((s) => [s, 0])) as Record<Severity, number>;
  for (const ip of source.ips()) counts[source.severityOf(ip)]++;
  return counts;
}

export function sameCounts(a: Record<Severity, number> | null, b: Record<Severity, number>): boolean {
  return !!a && SEVERITIES.every((s) => a[s] === b[s]);
}
