import { describe, expect, it } from 'vitest';
import type { QuotaSnapshot } from '@/lib/lookup/types';
import { subnetCost } from '@/lib/ui/popup/subnet-cost';
import { createSubnetStore, subnetFromSearch } from '@/lib/ui/popup/subnet-store';
import { createFakeServices, ok } from '../fake-services';
import { found } from '../samples';

const QUOTA: QuotaSnapshot = {
  state: 'ok', used: 900, limit: 1000, unlimited: false, scope: 'key', reserve: 100, pendingLocalCost: 0, refreshedAt: 1, detail: null,
};

describe('subnet cost', () => {
  it('states the worst case per block and the quota left', () => {
    expect(subnetCost({ prefix: 24, version: 4 }, QUOTA)).toEqual({
      worstCase: 256,
      text: 'Costs 1 request per IP found in the database: at most 256 for this block.',
      quotaText: 'Quota left: 100 of 1,000.',
      mayExceed: true,
    });
    expect(subnetCost({ prefix: 28, version: 4 }, QUOTA)).toMatchObject({ worstCase: 16, mayExceed: false });
    expect(subnetCost({ prefix: 120, version: 6 }, { ...QUOTA, unlimited: true })).toMatchObject({ quotaText: 'No usage limit.', mayExceed: false });
    expect(subnetCost({ prefix: 24, version: 4 }, undefined).quotaText).toBe('Quota left: unknown (refresh the meter above).');
  });
});

describe('subnet store', () => {
  it('offers a block with nothing sent, then checks it on confirmation', async () => {
    const services = createFakeServices();
    services.handlers['ui:check-subnet'] = ({ cidr }) =>
      ok({ cidr, summary: { total: 254, malicious: 1, clean: 253, averageScore: 0.4, foundCount: 1 }, found: [found('185.220.101.1')], cost: 1 });
    const store = createSubnetStore(services);
    expect(store.offerFor('185.220.101[.]9/24')).toBe(true);
    expect(store.state.value).toMatchObject({ phase: 'offer', block: { cidr: '185.220.101.0/24' }, host: '185.220.101.9' });
    expect(services.sent).toEqual([]);
    await store.check();
    expect(services.sent).toEqual([{ type: 'ui:check-subnet', payload: { cidr: '185.220.101.0/24' } }]);
    expect(store.state.value).toMatchObject({ phase: 'result', reply: { cost: 1 } });
  });

  it('is not fooled by an IP, a fraction or text', () => {
    const store = createSubnetStore(createFakeServices());
    for (const text of ['185.220.101.1', '10/24', 'see 1.2.3.0/24 here']) expect(store.offerFor(text), text).toBe(false);
    expect(store.state.value.phase).toBe('idle');
  });

  it('refuses a block above the limit and offers the /24 or /120 holding a chosen IP', async () => {
    const services = createFakeServices();
    const store = createSubnetStore(services);
    expect(store.offerFor('185.220.0.0/16')).toBe(true);
    expect(store.state.value).toMatchObject({ phase: 'too-large', pick: { cidr: '185.220.0.0/24' } });
    store.pickIp('185.221.0.1');
    expect(store.state.value).toMatchObject({ pick: null, pickError: '185.221.0.1 is not in 185.220.0.0/16.' });
    store.pickIp('nonsense');
    expect(store.state.value).toMatchObject({ pick: null, pickError: '"nonsense" is not an IP address.' });
    store.pickIp('185.220.101.7');
    expect(store.state.value).toMatchObject({ pick: { cidr: '185.220.101.0/24' }, pickError: null });
    expect(services.sent).toEqual([]);

    expect(store.offerFor('2001:db8::1/64')).toBe(true);
    expect(store.state.value).toMatchObject({ phase: 'too-large', block: { cidr: '2001:db8::/64' }, pick: { cidr: '2001:db8::/120' } });
  });

  it('keeps the block to retry after an error', async () => {
    const services = createFakeServices();
    services.handlers['ui:check-subnet'] = () => ({ ok: false, error: { kind: 'quota-exhausted', message: 'Usage limit exceeded' } });
    const store = createSubnetStore(services);
    store.offerFor('185.220.101.0/28');
    await store.check();
    expect(store.state.value).toMatchObject({ phase: 'error', block: { cidr: '185.220.101.0/28' }, error: { kind: 'quota-exhausted' } });
  });
});

describe('subnetFromSearch (the card opens the popup with ?subnet=)', () => {
  it('takes a block, and nothing else', () => {
    expect(subnetFromSearch('?tab=5&subnet=203.0.113.0%2F24')).toBe('203.0.113.0/24');
    expect(subnetFromSearch('?subnet=2001%3Adb8%3A%3A%2F120')).toBe('2001:db8::/120');
    expect(subnetFromSearch('?tab=5')).toBeNull();
    expect(subnetFromSearch('?subnet=203.0.113.7')).toBeNull();
    expect(subnetFromSearch('?subnet=%3Cscript%3E')).toBeNull();
  });
});
