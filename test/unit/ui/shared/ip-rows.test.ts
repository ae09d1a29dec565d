import { describe, expect, it } from 'vitest';
import { DEFAULT_THRESHOLDS } from '@/lib/severity';
import { countBySeverity, filterRows, nextSort, sortRows, type IpRow } from '@/lib/ui/shared/ip-rows';
import { found, IP_INFO } from '../samples';

const T = DEFAULT_THRESHOLDS;
const rows: IpRow[] = [
  { ip: '198.51.100.4', count: 1, result: found('198.51.100.4', { score: 10, totalHits: 2, reputation: 'clean' }) },
  { ip: '203.0.113.66', count: 5, result: found('203.0.113.66', { score: 95, totalHits: 400, reputation: 'malicious' }) },
  { ip: '10.0.0.1', count: 2, result: { ip: '10.0.0.1', status: 'skipped', reason: 'private' } },
  { ip: '192.0.2.1', count: 1 },
  { ip: '203.0.113.7', count: 3, result: found('203.0.113.7', { score: 60, totalHits: null, lastAttack: null, ipInfo: IP_INFO }) },
  { ip: '1.1.1.1', count: 1, result: found('1.1.1.1', { score: 0, whitelisted: true, reputation: null, description: 'Cloudflare DNS' }) },
  { ip: '8.8.8.8', count: 1, result: { ip: '8.8.8.8', status: 'not-found', fetchedAt: 1 } },
];
const ips = (list: IpRow[]) => list.map((r) => r.ip);

describe('ip rows', () => {
  it('sorts riskiest first by default: severity, then score', () => {
    expect(ips(sortRows(rows, null, T))).toEqual([
      '203.0.113.66', // critical
      '203.0.113.7', // high
      '198.51.100.4', // low
      '1.1.1.1', // whitelisted
      '8.8.8.8', // unknown
      '10.0.0.1', // skipped
      '192.0.2.1', // pending
    ]);
  });

  it('sorts by a column both ways and keeps empty cells last', () => {
    const desc = ips(sortRows(rows, { column: 'hits', direction: 'desc' }, T));
    expect(desc.slice(0, 3)).toEqual(['203.0.113.66', '1.1.1.1', '198.51.100.4']);
    const asc = ips(sortRows(rows, { column: 'hits', direction: 'asc' }, T));
    expect(asc.slice(0, 3)).toEqual(['198.51.100.4', '1.1.1.1', '203.0.113.66']);
    // Rows without hits (pending, skipped, not found, no count) stay below, in risk order.
    expect(asc.slice(3)).toEqual(['203.0.113.7', '8.8.8.8', '10.0.0.1', '192.0.2.1']);
    expect(desc.slice(3)).toEqual(asc.slice(3));
    expect(ips(sortRows(rows, { column: 'ip', direction: 'asc' }, T))[0]).toBe('1.1.1.1');
    expect(ips(sortRows(rows, { column: 'count', direction: 'desc' }, T))[0]).toBe('203.0.113.66');
    expect(ips(sortRows(rows, { column: 'reputation', direction: 'asc' }, T))[0]).toBe('198.51.100.4');
  });

  it('filters by severity and by any text the row shows', () => {
    expect(ips(filterRows(rows, { severity: 'critical', text: '' }, T))).toEqual(['203.0.113.66']);
    expect(ips(filterRows(rows, { severity: 'all', text: 'germany' }, T))).toEqual(['203.0.113.7']);
    expect(ips(filterRows(rows, { severity: 'all', text: 'cloudflare' }, T))).toEqual(['1.1.1.1']);
    expect(ips(filterRows(rows, { severity: 'all', text: ' 203.0.113 ' }, T))).toEqual(['203.0.113.66', '203.0.113.7']);
    expect(ips(filterRows(rows, { severity: 'skipped', text: 'private' }, T))).toEqual(['10.0.0.1']);
  });

  it('filters by the severity shown, never by the API threat level the row does not show', () => {
    const suspicious: IpRow = { ip: '45.155.205.233', count: 1, result: found('45.155.205.233', { score: 55, threatLevel: 'MEDIUM' }) };
    expect(ips(filterRows([suspicious], { severity: 'high', text: '' }, T))).toEqual(['45.155.205.233']);
    expect(ips(filterRows([suspicious], { severity: 'all', text: 'medium' }, T))).toEqual([]);
    expect(ips(filterRows([suspicious], { severity: 'all', text: 'high' }, T))).toEqual(['45.155.205.233']);
  });

  it('cycles a column through its first direction, the other, then back to risk order', () => {
    const first = nextSort(null, 'score');
    expect(first).toEqual({ column: 'score', direction: 'desc' });
    const second = nextSort(first, 'score');
    expect(second).toEqual({ column: 'score', direction: 'asc' });
    expect(nextSort(second, 'score')).toBeNull();
    expect(nextSort(second, 'ip')).toEqual({ column: 'ip', direction: 'asc' });
  });

  it('counts rows per severity', () => {
    expect(countBySeverity(rows, T)).toEqual({ critical: 1, high: 1, low: 1, whitelisted: 1, unknown: 1, skipped: 1, pending: 1 });
  });
});
