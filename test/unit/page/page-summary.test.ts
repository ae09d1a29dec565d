import { describe, expect, it } from 'vitest';
import { riskyIps, sameList } from '@/lib/page/page-summary';
import { MAX_REPORTED_RISKY_IPS } from '@/lib/protocol';
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

  it('compares lists by content', () => {
    expect(sameList(null, [])).toBe(false);
    expect(sameList(['a', 'b'], ['a', 'b'])).toBe(true);
    expect(sameList(['a', 'b'], ['a'])).toBe(false);
    expect(sameList(['a', 'b'], ['a', 'c'])).toBe(false);
  });
});
