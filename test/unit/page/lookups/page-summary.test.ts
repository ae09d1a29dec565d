import { describe, expect, it, vi } from 'vitest';
import { listPageIps, riskyIps, riskyReporter, sameList } from '@/lib/page/lookups/page-summary';
import { MAX_REPORTED_RISKY_IPS } from '@/lib/protocol';
import type { LookupResult } from '@/lib/lookup/types';
import type { Severity } from '@/lib/severity';

const source = (severities: Record<string, Severity>) => ({
  ips: () => Object.keys(severities),
  severityOf: (ip: string) => severities[ip]!,
});

describe('page summary for the badge', () => {
  it('lists the high and critical IPs only, sorted', () => {
    const list = riskyIps(source({ '9.9.9.9': 'high', '1.1.1.1': 'critical', '2.2.2.2': 'medium', '3.3.3.3': 'pending', '4.4.4.4': 'whitelisted' }));
    expect(list).toEqual(['1.1.1.1', '9.9.9.9']);
  });

  it('reports at most MAX_REPORTED_RISKY_IPS, the same ones whatever the page order', () => {
    const ips = Array.from({ length: MAX_REPORTED_RISKY_IPS + 50 }, (_, i) => `23.0.${i >> 8}.${i & 255}`);
    const forward = riskyIps(source(Object.fromEntries(ips.map((ip) => [ip, 'critical' as const]))));
    const backward = riskyIps(source(Object.fromEntries([...ips].reverse().map((ip) => [ip, 'critical' as const]))));
    expect(forward).toHaveLength(MAX_REPORTED_RISKY_IPS);
    expect(backward).toEqual(forward);
  });

  it("lists the page's IPs riskiest first, then most frequent, then by address, without their severity", () => {
    const severities: Record<string, Severity> = { '5.5.5.5': 'pending', '1.1.1.1': 'low', '2.2.2.2': 'critical', '3.3.3.3': 'low', '4.4.4.4': 'low' };
    const counts: Record<string, number> = { '5.5.5.5': 9, '1.1.1.1': 1, '2.2.2.2': 1, '3.3.3.3': 2, '4.4.4.4': 1 };
    const result = { ip: '2.2.2.2', status: 'not-found' } as unknown as LookupResult;
    const rows = listPageIps({
      ips: () => Object.keys(severities),
      countOf: (ip) => counts[ip]!,
      versionOf: () => 4,
      resultOf: (ip) => (ip === '2.2.2.2' ? result : undefined),
      severityOf: (ip) => severities[ip]!,
    });
    expect(rows.map((r) => r.ip)).toEqual(['2.2.2.2', '3.3.3.3', '1.1.1.1', '4.4.4.4', '5.5.5.5']);
    expect(rows[0]).toEqual({ ip: '2.2.2.2', version: 4, count: 1, result });
    expect(rows[1]).toEqual({ ip: '3.3.3.3', version: 4, count: 2 });
  });

  it('compares lists by content', () => {
    expect(sameList(null, [])).toBe(false);
    expect(sameList(['a', 'b'], ['a', 'b'])).toBe(true);
    expect(sameList(['a', 'b'], ['a'])).toBe(false);
    expect(sameList(['a', 'b'], ['a', 'c'])).toBe(false);
  });
});

describe('riskyReporter', () => {
  it('reports a changed list once per delay, an unchanged one not again unless asked to resend', () => {
    vi.useFakeTimers();
    try {
      const sent: string[][] = [];
      let risky = ['1.1.1.1'];
      const reporter = riskyReporter((ips) => sent.push(ips), () => risky, 400);
      reporter.schedule();
      reporter.schedule();
      vi.advanceTimersByTime(400);
      expect(sent).toEqual([['1.1.1.1']]);
      reporter.schedule();
      vi.advanceTimersByTime(400);
      expect(sent).toHaveLength(1);
      reporter.resend();
      reporter.schedule();
      vi.advanceTimersByTime(400);
      expect(sent).toHaveLength(2);
      risky = ['1.1.1.1', '2.2.2.2'];
      reporter.schedule();
      reporter.stop();
      vi.advanceTimersByTime(400);
      expect(sent).toHaveLength(2);
    } finally {
      vi.useRealTimers();
    }
  });
});
