/**
 * A bulk row the server sent but we cannot read may have been billed: automatic lookups do not
 * buy it again within the not-found TTL, a manual lookup may, and it is always shown as the
 * failed lookup it is (never as "not in database").
 */
import { describe, expect, it } from 'vitest';
import { normalizeBulkRow } from '../../../lib/api/normalize';
import type { BulkLookup } from '../../../lib/api/types';
import { parseCacheRecord, recordFromAnswer } from '../../../lib/lookup/cache-record';
import { FakeApiClient } from './helpers/fake-api-client';
import { createHarness } from './helpers/service-harness';

const GARBLED = '23.0.0.2';
const GOOD = '23.0.0.4';
const MINUTE = 60_000;

/** Answers like the fake, except that GARBLED's row is one the real normaliser cannot read. */
class GarblingClient extends FakeApiClient {
  garble = true;

  override async checkIpBulk(ips: readonly string[]): Promise<BulkLookup> {
    const answer = await super.checkIpBulk(ips);
    if (!this.garble) return answer;
    const items = answer.items.map((item) =>
      item.ip === GARBLED ? normalizeBulkRow({ ip: GARBLED, data: { score: { broken: true } }, error: null }, GARBLED) : item,
    );
    return { ...answer, items };
  }
}

function setup() {
  const client = new GarblingClient();
  const h = createHarness({ client, policy: { ttlFoundMinutes: 60, ttlNotFoundMinutes: 30 } });
  return { h, client };
}

describe('unreadable bulk rows', () => {
  it('are shown as a failed lookup with the reason, and the good rows of the chunk stand', async () => {
    const { h } = setup();
    const [garbled, good] = await h.settle(h.service.lookup([GARBLED, GOOD], { priority: 'visible' }));
    expect(garbled).toMatchObject({ ip: GARBLED, status: 'error', error: { kind: 'bad-response' } });
    expect(garbled?.status === 'error' && garbled.error.message).toMatch(/Unreadable answer for this IP/);
    expect(good?.status).toBe('found');
  });

  it('are not asked again automatically within the not-found TTL, and still show the failure', async () => {
    const { h, client } = setup();
    await h.settle(h.service.lookup([GARBLED, GOOD], { priority: 'visible' }));
    await h.clock.advance(20 * MINUTE);
    const [again] = await h.settle(h.service.lookup([GARBLED], { priority: 'background' }));
    expect(client.bulkCalls).toEqual([[GARBLED, GOOD]]);
    expect(again).toMatchObject({ ip: GARBLED, status: 'error', error: { kind: 'bad-response' } });
  });

  it('are asked again automatically once the TTL is over', async () => {
    const { h, client } = setup();
    await h.settle(h.service.lookup([GARBLED], { priority: 'visible' }));
    await h.clock.advance(31 * MINUTE);
    client.garble = false;
    const [again] = await h.settle(h.service.lookup([GARBLED], { priority: 'visible' }));
    expect(client.bulkCalls).toEqual([[GARBLED], [GARBLED]]);
    expect(again?.status).toBe('found');
  });

  it('are asked again by a manual lookup within the TTL', async () => {
    const { h, client } = setup();
    await h.settle(h.service.lookup([GARBLED], { priority: 'visible' }));
    client.garble = false;
    const [manual] = await h.settle(h.service.lookup([GARBLED], { priority: 'manual' }));
    expect(client.bulkCalls).toEqual([[GARBLED], [GARBLED]]);
    expect(manual?.status).toBe('found');
    // The readable answer replaced the unreadable one: automatic lookups now get it from the cache.
    const [later] = await h.settle(h.service.lookup([GARBLED], { priority: 'visible' }));
    expect(later?.status).toBe('found');
    expect(client.bulkCalls).toHaveLength(2);
  });

  it('are remembered in the persistent store, so a restarted worker does not buy them again', async () => {
    const { h, client } = setup();
    await h.settle(h.service.lookup([GARBLED], { priority: 'visible' }));
    await h.settle(h.service.whenIdle());
    const restarted = createHarness({ client, cacheStore: h.cacheStore, clock: h.clock, policy: h.policy });
    const [again] = await restarted.settle(restarted.service.lookup([GARBLED], { priority: 'visible' }));
    expect(client.bulkCalls).toEqual([[GARBLED]]);
    expect(again).toMatchObject({ status: 'error', error: { kind: 'bad-response' } });
  });

  it('are stored records that read back with their error, and need one', () => {
    const error = { kind: 'bad-response' as const, message: 'Unreadable answer for this IP (data.score: bad).' };
    const record = recordFromAnswer({ ip: GARBLED, status: 'unreadable', error, detailed: false }, undefined, 1_000);
    expect(parseCacheRecord(JSON.parse(JSON.stringify(record)))).toEqual(record);
    const { error: _dropped, ...withoutError } = record;
    expect(parseCacheRecord(withoutError)).toBeNull();
  });
});

/** A journal left by a worker that stopped while its call for GARBLED and GOOD was out. */
function journalWithOpenCall() {
  const store = {
    value: { v: 1, calls: [{ id: 1, identity: 'key-1', ips: [GARBLED, GOOD] }], interrupted: [] } as unknown,
    load: async () => structuredClone(store.value),
    save: async (value: unknown) => void (store.value = structuredClone(value)),
  };
  return store;
}

const heldIn = (stored: unknown) => ((stored as { interrupted: [string, string][] }).interrupted ?? []).map(([ip]) => ip);

describe('a manual lookup of an IP held as interrupted', () => {
  it('that gets an unreadable row ends the hold: once the row expires, automatic lookups ask again', async () => {
    const journalStore = journalWithOpenCall();
    const client = new GarblingClient();
    const h = createHarness({ client, policy: { ttlNotFoundMinutes: 30 }, extra: { journalStore } });
    const [held] = await h.settle(h.service.lookup([GARBLED], { priority: 'visible' }));
    expect(held).toMatchObject({ status: 'skipped', reason: 'interrupted' });

    const [manual] = await h.settle(h.service.lookup([GARBLED], { priority: 'manual' }));
    expect(manual).toMatchObject({ status: 'error', error: { kind: 'bad-response' } });
    await h.settle(h.service.whenIdle());
    // Written down too, so a restarted worker does not hold it either.
    expect(heldIn(journalStore.value)).not.toContain(GARBLED);

    await h.clock.advance(31 * MINUTE);
    client.garble = false;
    const [later] = await h.settle(h.service.lookup([GARBLED], { priority: 'visible' }));
    expect(later?.status).toBe('found');
    expect(client.bulkCalls).toEqual([[GARBLED], [GARBLED]]);
  });

  it('that gets a detailed answer ends the hold as well; an IP still unanswered stays held', async () => {
    const journalStore = journalWithOpenCall();
    const h = createHarness({ client: new GarblingClient(), extra: { journalStore } });
    const [detailed] = await h.settle(h.service.lookup([GOOD], { priority: 'manual', detailed: true }));
    expect(detailed?.status).toBe('found');
    await h.settle(h.service.whenIdle());
    expect(heldIn(journalStore.value)).toEqual([GARBLED]);
  });
});
