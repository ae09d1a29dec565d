/**
 * What the page holds, for the popup's "This page" list and the toolbar badge: each IP once,
 * with how often it occurs and its answer, riskiest first; and for the badge, which IPs are
 * risky (high or critical). The badge gets the IPs rather than a count because one IP shown
 * in several frames of a tab counts once.
 */
import type { LookupResult } from '../lookup/types';
import { MAX_REPORTED_RISKY_IPS, type PageIp } from '../protocol';
import { SEVERITY_RANK, type Severity } from '../severity';

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

/** The page's high and critical IPs for the badge: sorted (so equal sets compare equal), bounded. */
export function riskyIps(source: Pick<IpSummarySource, 'ips' | 'severityOf'>): string[] {
  const risky: string[] = [];
  for (const ip of source.ips()) {
    const severity = source.severityOf(ip);
    if (severity === 'critical' || severity === 'high') risky.push(ip);
  }
  return risky.sort().slice(0, MAX_REPORTED_RISKY_IPS);
}

export function sameList(a: readonly string[] | null, b: readonly string[]): boolean {
  return !!a && a.length === b.length && a.every((x, i) => x === b[i]);
}
