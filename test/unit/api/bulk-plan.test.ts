import { describe, expect, it } from 'vitest';
import { indexResults, mergeBulk, planBulk } from '../../../lib/api/bulk';

describe('planBulk', () => {
  it('de-duplicates (any spelling), keeps order, and sends only valid IPs', () => {
    const plan = planBulk(['1.2.3.4', '2001:DB8::1', 'junk', '1.2.3.4', ' 2001:db8:0::1 ', 'junk', '127.1', '5.6.7.8']);
    expect(plan.entries.map((e) => e.ip)).toEqual(['1.2.3.4', '2001:DB8::1', 'junk', '127.1', '5.6.7.8']);
    expect(plan.entries.map((e) => e.key === null)).toEqual([false, false, true, true, false]);
    expect(plan.chunks).toEqual([['1.2.3.4', '2001:DB8::1', '5.6.7.8']]);
  });

  it('chunks at the limit', () => {
    const ips = Array.from({ length: 250 }, (_, i) => `10.0.${Math.floor(i / 256)}.${i % 256}`);
    const plan = planBulk(ips);
    expect(plan.chunks.map((c) => c.length)).toEqual([100, 100, 50]);
    expect(plan.chunks.flat()).toEqual(ips);
    expect(planBulk(ips.slice(0, 100)).chunks).toHaveLength(1);
    expect(planBulk(ips.slice(0, 101)).chunks).toHaveLength(2);
  });
});

describe('mergeBulk', () => {
  const found = (ip: string) => ({ ip, data: { score: 50, threat_level: 'MEDIUM' }, error: null });

  it('answers every requested IP once, in request order, whatever the server order or spelling', () => {
    const plan = planBulk(['5.6.7.8', '2001:db8::1', 'bad', '9.9.9.9', '1.2.3.4']);
    const rows = indexResults([
      found('1.2.3.4'),
      found('2001:DB8:0:0:0:0:0:1'), // server rewrote the spelling
      { ip: '9.9.9.9', data: null, error: 'IP not found in database' },
      found('7.7.7.7'), // not asked for: ignored
      { ip: 'garbage', data: null, error: 'x' }, // unusable: ignored
    ]);
    const items = mergeBulk(plan.entries, rows);
    expect(items.map((i) => [i.ip, i.status])).toEqual([
      ['5.6.7.8', 'error'],
      ['2001:db8::1', 'found'],
      ['bad', 'error'],
      ['9.9.9.9', 'not-found'],
      ['1.2.3.4', 'found'],
    ]);
    expect(items[0]).toEqual({ ip: '5.6.7.8', status: 'error', kind: 'bad-response', message: 'No result returned' });
    expect(items[2]).toEqual({ ip: 'bad', status: 'error', kind: 'bad-request', message: 'Not a valid IP address' });
    expect(items[1]).toMatchObject({ data: { ip: '2001:db8::1', score: 50 } });
  });

  it('matches a row whose ip is null by its position, when there is one row per IP sent', () => {
    const plan = planBulk(['1.2.3.4', '4.2.2.2', '5.6.7.8']);
    const sent = plan.chunks[0]!;
    const rows = indexResults([found('1.2.3.4'), { ip: null, data: null, error: 'IP not found in database' }, found('5.6.7.8')], sent);
    expect(mergeBulk(plan.entries, rows).map((i) => i.status)).toEqual(['found', 'not-found', 'found']);
    // Without a one-to-one answer the position proves nothing.
    const short = indexResults([{ ip: null, data: null, error: 'IP not found in database' }, found('5.6.7.8')], sent);
    expect(mergeBulk(plan.entries, short).map((i) => i.status)).toEqual(['error', 'error', 'found']);
  });

  it('keeps the first answer when the server repeats an IP', () => {
    const plan = planBulk(['1.2.3.4']);
    const rows = indexResults([found('1.2.3.4'), { ip: '1.2.3.4', data: null, error: 'dup' }]);
    expect(mergeBulk(plan.entries, rows)[0]!.status).toBe('found');
  });
});
