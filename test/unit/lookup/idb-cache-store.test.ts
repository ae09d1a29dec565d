import 'fake-indexeddb/auto';
import { openDB } from 'idb';
import { describe, expect, it } from 'vitest';
import { recordFromAnswer, type CacheRecord } from '../../../lib/lookup/cache-record';
import { createIdbCacheStore } from '../../../lib/lookup/idb-cache-store';
import { reputationOf } from './helpers/fake-api-client';

let dbCounter = 0;
const freshName = () => `idb-store-test-${++dbCounter}`;

function record(ip: string, at: number): CacheRecord {
  return recordFromAnswer({ ip, status: 'found', data: reputationOf(ip), detailed: false }, undefined, at);
}

describe('IndexedDB cache store', () => {
  it('keeps records across store instances (a restarted worker opens the same database)', async () => {
    const name = freshName();
    await createIdbCacheStore({ name }).putMany([record('23.0.0.2', 1), record('23.0.0.4', 2)]);
    const reopened = createIdbCacheStore({ name });
    const got = await reopened.getMany(['23.0.0.2', '23.0.0.4', '23.0.0.6']);
    expect([...got.keys()]).toEqual(['23.0.0.2', '23.0.0.4']);
    expect(got.get('23.0.0.2')).toEqual(record('23.0.0.2', 1));
    expect(await reopened.count()).toBe(2);
  });

  it('drops corrupted and old-version entries instead of returning or throwing', async () => {
    const name = freshName();
    const store = createIdbCacheStore({ name });
    await store.putMany([record('23.0.0.2', 1)]);
    const db = await openDB(name);
    await db.put('entries', { ip: '23.0.0.8', v: 0, storedAt: 1, status: 'found' });
    await db.put('entries', { ip: '23.0.0.10', storedAt: 1, junk: true });
    await db.put('entries', { ...record('23.0.0.12', 1), status: 'maybe' });
    db.close();

    const got = await store.getMany(['23.0.0.2', '23.0.0.8', '23.0.0.10', '23.0.0.12']);
    expect([...got.keys()]).toEqual(['23.0.0.2']);
    expect(await store.count()).toBe(1); // the broken ones are gone
  });

  it('stays bounded, evicting the oldest writes first', async () => {
    const store = createIdbCacheStore({ name: freshName(), maxEntries: 3 });
    await store.putMany([record('23.0.0.2', 10), record('23.0.0.4', 20)]);
    await store.putMany([record('23.0.0.6', 30), record('23.0.0.8', 40), record('23.0.0.10', 50)]);
    expect(await store.count()).toBe(3);
    const got = await store.getMany(['23.0.0.2', '23.0.0.4', '23.0.0.6', '23.0.0.8', '23.0.0.10']);
    expect([...got.keys()]).toEqual(['23.0.0.6', '23.0.0.8', '23.0.0.10']);
  });

  it('keeps its records for the same owner, across a reopen, and drops them for another', async () => {
    const name = freshName();
    const store = createIdbCacheStore({ name });
    // A first owner replaces no one's answers; another server's are.
    expect(await store.claim('https://a.example/api/v1')).toBe(false);
    await store.putMany([record('23.0.0.2', 1)]);
    const reopened = createIdbCacheStore({ name });
    expect(await reopened.claim('https://a.example/api/v1')).toBe(false);
    expect(await reopened.count()).toBe(1);
    expect(await reopened.claim('https://b.example/api/v1')).toBe(true);
    expect(await reopened.count()).toBe(0);
    await reopened.putMany([record('23.0.0.4', 2)]);
    await createIdbCacheStore({ name }).claim('https://a.example/api/v1');
    expect(await reopened.count()).toBe(0);
  });

  it("a database without an owner (older version, or a corrupted owner) is not anyone's", async () => {
    const name = freshName();
    const old = await openDB(name, 1, {
      upgrade(db) {
        db.createObjectStore('entries', { keyPath: 'ip' }).createIndex('storedAt', 'storedAt');
      },
    });
    await old.put('entries', record('23.0.0.2', 1));
    old.close();
    const store = createIdbCacheStore({ name });
    await store.claim('https://a.example/api/v1');
    expect(await store.getMany(['23.0.0.2'])).toEqual(new Map());

    await store.putMany([record('23.0.0.4', 1)]);
    const db = await openDB(name);
    await db.put('meta', { not: 'a url' }, 'owner');
    db.close();
    await createIdbCacheStore({ name }).claim('https://a.example/api/v1');
    expect(await store.count()).toBe(0);
  });

  it('clears and tells how many entries it removed', async () => {
    const store = createIdbCacheStore({ name: freshName() });
    await store.putMany([record('23.0.0.2', 1), record('23.0.0.4', 1)]);
    expect(await store.clear()).toBe(2);
    expect(await store.count()).toBe(0);
  });
});
