/**
 * What the page holds, for the popup's "This page" list and the toolbar badge: each IP once,
 * with how often it occurs and its answer, riskiest first; and for the badge, which IPs are
 * risky (high or critical). The badge gets the IPs rather than a count because one IP shown
 * in several frames of a tab counts once.
 */
import type { LookupResult } from '../../lookup/types';
import { MAX_REPORTED_RISKY_IPS, type PageIp } from '../../protocol';
import { SEVERITY_RANK, type Severity } from '../../severity';

export interface IpSummarySource {
  ips(): Iterable<string>;
  countOf(ip: string): number;
  versionOf(ip: string): 4 | 6;
  resultOf(ip: string): LookupResult | undefined;
  severityOf(ip: string): Severity;
}

/**
 * Each IP with its count and answer, riskiest first, then most frequent, then by address.
 * Ranks sorted beside the rows, not a severity field stripped afterwards by an object rest per
 * row (a runtime copy each: the 10,000-row page's 2,913 IPs, on every poll of the popup).
 */
export function listPageIps(source: IpSummarySource): PageIp[] {
  const rows: PageIp[] = [];
  const ranks: number[] = [];
  for (const ip of source.ips()) {
    const row: PageIp = { ip, version: source.versionOf(ip), count: source.countOf(ip) };
    const result = source.resultOf(ip);
    if (result) row.result = result;
    rows.push(row);
    ranks.push(SEVERITY_RANK[source.severityOf(ip)]);
  }
  const order = rows.map((_, i) => i);
  order.sort((a, b) => ranks[a]! - ranks[b]! || rows[b]!.count - rows[a]!.count || (rows[a]!.ip < rows[b]!.ip ? -1 : 1));
  return order.map((i) => rows[i]!);
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

export interface RiskyReporter {
  /** Reports within the delay, unless a report is already due. */
  schedule(): void;
  /** The next report is sent even if the list is unchanged (the background cleared the badge). */
  resend(): void;
  stop(): void;
}

/**
 * Sends the page's risky IPs (for the badge) when they change, at most once per `delayMs`: a
 * page marks its IPs in bursts, and the badge needs the list once it has settled.
 */
export function riskyReporter(send: ((ips: string[]) => void) | undefined, risky: () => string[], delayMs: number): RiskyReporter {
  let last: string[] | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;
  return {
    schedule() {
      if (!send || timer !== undefined) return;
      timer = setTimeout(() => {
        timer = undefined;
        const now = risky();
        if (sameList(last, now)) return;
        last = now;
        send(now);
      }, delayMs);
    },
    resend() {
      last = null;
    },
    stop() {
      clearTimeout(timer);
    },
  };
}
