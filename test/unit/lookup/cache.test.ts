/**
 * The cache's owner (the API server its answers came from): the persistent store is read and
 * written only once it is claimed for the current owner. The lookup service tests cover the
 * same from the outside; these pin the orderings that are hard to reach through it.
 */
import { describe, expect, it, vi } from 'vitest';
import { LookupCache } from '../../../lib/lookup/cache';
import { recordFromAnswer, type CacheAnswer } from '../../../lib/lookup/cache-record';
import { createMemoryCacheStore, type CacheStore } from '../../../lib/lookup/cache-store';
import { reputationOf } from './helpers/fake-api-client';
import { createManualClock } from './helpers/manual-clock';

const HOUR = 3_600_000;
const answer = (ip: string): CacheAnswer => ({ ip, status: 'found', data: reputationOf(ip), detailed: false });

function spiedStore(overrides: Partial<CacheStore> = {}) {
  const store = { ...createMemoryCacheStore(), ...overrides };
  return {
    store,
    getMany: vi.spyOn(store, 'getMany'),
    putMany: vi.spyOn(store, 'putMany'),
    claim: vi.spyOn(store, 'claim'),
  };
}

function cacheOver(store: CacheStore) {
  const clock = createManualClock();
  const cache = new LookupCache({
    store,
    clock,
    ttls: { foundMs: HOUR, notFoundMs: HOUR, detailedMs: HOUR },
    maxEntries: 100,
    onStoreError: () => undefined,
  });
  return { cache, clock };
}

function deferred() {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('LookupCache owner', () => {
  it('neither reads nor writes the store before it is claimed for an owner', async () => {
    const spy = spiedStore();
    await spy.store.putMany([recordFromAnswer(answer('23.0.0.2'), undefined, 0)]);
    const { cache } = cacheOver(spy.store);
    expect((await cache.read(['23.0.0.2'])).size).toBe(0);
    cache.record(answer('23.0.0.4'));
    await cache.flush();
    expect(spy.getMany).not.toHaveBeenCalled();
    expect(spy.putMany).toHaveBeenCalledTimes(1); // the set-up write only
    expect(cache.fresh('23.0.0.4', false)).toBeDefined(); // memory still answers
  });

  it('keeps the store of the same owner and empties the store of another', async () => {
    const spy = spiedStore();
    const first = cacheOver(spy.store).cache;
    await first.useOwner('https://a.example/api');
    first.record(answer('23.0.0.2'));
    await first.flush();
    const restarted = cacheOver(spy.store).cache;
    await restarted.useOwner('https://a.example/api');
    expect([...(await restarted.read(['23.0.0.2'])).keys()]).toEqual(['23.0.0.2']);
    const moved = cacheOver(spy.store).cache;
    await moved.useOwner('https://b.example/api');
    expect((await moved.read(['23.0.0.2'])).size).toBe(0);
    expect(await spy.store.count()).toBe(0);
  });

  it('a new owner forgets the memory layer at once and refuses answers to calls started before', async () => {
    const { cache } = cacheOver(createMemoryCacheStore());
    await cache.useOwner('a');
    cache.record(answer('23.0.0.2'));
    const before = cache.generation;
    void cache.useOwner('b'); // synchronous part: the caller swaps its client in the same turn
    expect(cache.fresh('23.0.0.2', false)).toBeUndefined();
    expect(cache.record(answer('23.0.0.4'), before)).toBeUndefined();
    expect(cache.answer(answer('23.0.0.4'), before)).toMatchObject({ ip: '23.0.0.4', status: 'found' });
    expect(cache.fresh('23.0.0.4', false)).toBeUndefined();
  });

  it("the old owner's write in progress lands before the claim; later answers wait for the claim", async () => {
    const order: string[] = [];
    const putGate = deferred();
    const claimGate = deferred();
    const base = createMemoryCacheStore();
    const store: CacheStore = {
      ...base,
      putMany: async (records) => {
        const ips = records.map((r) => r.ip).join(',');
        order.push(`put ${ips}`);
        if (ips === '23.0.0.2') await putGate.promise;
        await base.putMany(records);
        order.push(`put done ${ips}`);
      },
      claim: async (owner) => {
        order.push(`claim ${owner}`);
        if (owner === 'b') await claimGate.promise;
        const replaced = await base.claim(owner);
        order.push(`claimed ${owner}`);
        return replaced;
      },
    };
    const { cache } = cacheOver(store);
    const tick = () => new Promise((r) => setTimeout(r, 0));
    await cache.useOwner('a');
    cache.record(answer('23.0.0.2'));
    await tick(); // its write has started
    const claimed = cache.useOwner('b');
    cache.record(answer('23.0.0.4'));
    await tick();
    expect(order).toEqual(['claim a', 'claimed a', 'put 23.0.0.2']);
    putGate.resolve();
    await tick();
    expect(order.slice(3)).toEqual(['put done 23.0.0.2', 'claim b']);
    claimGate.resolve();
    await claimed;
    await cache.flush();
    expect(order.slice(5)).toEqual(['claimed b', 'put 23.0.0.4', 'put done 23.0.0.4']);
    expect([...(await base.getMany(['23.0.0.2', '23.0.0.4'])).keys()]).toEqual(['23.0.0.4']);
  });

  it("a read waits for the claim, so it never returns the previous owner's records", async () => {
    const claimGate = deferred();
    const spy = spiedStore();
    await spy.store.claim('a');
    await spy.store.putMany([recordFromAnswer(answer('23.0.0.2'), undefined, 0)]);
    const base = spy.store.claim;
    spy.store.claim = async (owner) => {
      await claimGate.promise;
      return base(owner);
    };
    const { cache } = cacheOver(spy.store);
    const claimed = cache.useOwner('b');
    const reading = cache.read(['23.0.0.2']);
    await new Promise((r) => setTimeout(r, 0));
    expect(spy.getMany).not.toHaveBeenCalled();
    claimGate.resolve();
    await claimed;
    expect((await reading).size).toBe(0);
  });

  it('a failed claim leaves the cache memory-only until a later claim succeeds', async () => {
    let fail = true;
    const spy = spiedStore();
    const base = spy.store.claim;
    spy.store.claim = (owner) => (fail ? Promise.reject(new Error('IndexedDB is gone')) : base(owner));
    const { cache } = cacheOver(spy.store);
    await cache.useOwner('a');
    cache.record(answer('23.0.0.2'));
    await cache.flush();
    expect(await cache.read(['23.0.0.2', '23.0.0.4'])).toHaveProperty('size', 1);
    expect(spy.putMany).not.toHaveBeenCalled();
    expect(spy.getMany).not.toHaveBeenCalled();
    expect(await cache.size()).toBe(1);
    fail = false;
    await cache.useOwner('a');
    cache.record(answer('23.0.0.6'));
    await cache.flush();
    expect(spy.putMany).toHaveBeenCalledTimes(1);
    expect(await spy.store.count()).toBe(1);
  });
});
