/**
 * The persistent cache (through the global `indexedDB`: the service worker's, or
 * fake-indexeddb's in tests): one IndexedDB object store keyed by IP, indexed by write time for
 * eviction. It outlives the MV3 service worker, which Chrome stops after 30 s idle. A second
 * store holds the cache's owner (the API server the answers came from) in the same database,
 * so changing the owner and dropping the old answers commit together or not at all.
 *
 * Robustness rules: a record that fails to parse (corrupted, or written by another version
 * of the extension) is deleted and treated as a miss; a database of an older schema
 * version is rebuilt empty; a connection another version wants to upgrade is closed and
 * reopened on the next use. None of these throw into the lookup path.
 */
import { openDB, type DBSchema, type IDBPDatabase } from 'idb';
import { parseCacheRecord, type CacheRecord } from './cache-record';
import type { CacheStore } from './cache-store';

export const DEFAULT_CACHE_DB_NAME = 'ip-lens-cache';
/** Bump to rebuild the database (the upgrade drops the old stores). 2: the owner store. */
const DB_VERSION = 2;
const STORE = 'entries';
const BY_STORED_AT = 'storedAt';
const META = 'meta';
const OWNER_KEY = 'owner';

interface CacheDb extends DBSchema {
  entries: { key: string; value: unknown; indexes: { storedAt: number } };
  meta: { key: string; value: unknown };
}

export interface IdbCacheStoreOptions {
  name?: string;
  maxEntries?: number;
}

export function createIdbCacheStore(options: IdbCacheStoreOptions = {}): CacheStore {
  const name = options.name ?? DEFAULT_CACHE_DB_NAME;
  let maxEntries = options.maxEntries ?? 50_000;
  let dbPromise: Promise<IDBPDatabase<CacheDb>> | null = null;

  const open = (): Promise<IDBPDatabase<CacheDb>> => {
    dbPromise ??= openDB<CacheDb>(name, DB_VERSION, {
      upgrade(db) {
        // Any older layout is dropped: the cache is only a cache.
        for (const storeName of Array.from(db.objectStoreNames)) db.deleteObjectStore(storeName);
        db.createObjectStore(STORE, { keyPath: 'ip' }).createIndex(BY_STORED_AT, 'storedAt');
        db.createObjectStore(META);
      },
      blocking(_current, _blocked, event) {
        // A newer version wants to upgrade: let it, and reopen on our next use.
        (event.target as IDBDatabase).close();
        dbPromise = null;
      },
      terminated() {
        dbPromise = null;
      },
    }).catch((error: unknown) => {
      dbPromise = null;
      throw error;
    });
    return dbPromise;
  };

  const evictOldest = async (db: IDBPDatabase<CacheDb>) => {
    const excess = (await db.count(STORE)) - maxEntries;
    if (excess <= 0) return;
    const tx = db.transaction(STORE, 'readwrite');
    let cursor = await tx.store.index(BY_STORED_AT).openKeyCursor();
    let removed = 0;
    while (cursor && removed < excess) {
      await tx.store.delete(cursor.primaryKey);
      removed++;
      cursor = await cursor.continue();
    }
    await tx.done;
  };

  const deleteMany = async (ips: readonly string[]) => {
    if (!ips.length) return;
    const db = await open();
    const tx = db.transaction(STORE, 'readwrite');
    await Promise.all([...ips.map((ip) => tx.store.delete(ip)), tx.done]);
  };

  return {
    async getMany(ips) {
      const out = new Map<string, CacheRecord>();
      if (!ips.length) return out;
      const db = await open();
      const tx = db.transaction(STORE, 'readonly');
      const raws = await Promise.all(ips.map((ip) => tx.store.get(ip)));
      await tx.done;
      const broken: string[] = [];
      raws.forEach((raw, i) => {
        if (raw === undefined) return;
        const record = parseCacheRecord(raw);
        const ip = ips[i]!;
        if (record && record.ip === ip) out.set(ip, record);
        else broken.push(ip);
      });
      if (broken.length) await deleteMany(broken);
      return out;
    },
    async putMany(records) {
      if (!records.length) return;
      const db = await open();
      const tx = db.transaction(STORE, 'readwrite');
      await Promise.all([...records.map((r) => tx.store.put(r)), tx.done]);
      await evictOldest(db);
    },
    deleteMany,
    async clear() {
      const db = await open();
      const tx = db.transaction(STORE, 'readwrite');
      const n = await tx.store.count();
      await tx.store.clear();
      await tx.done;
      return n;
    },
    async count() {
      const db = await open();
      return db.count(STORE);
    },
    setMaxEntries(value) {
      maxEntries = value;
      // Applied on the next write; an immediate pass would race with writes in progress.
    },
    async claim(owner) {
      const db = await open();
      const tx = db.transaction([STORE, META], 'readwrite');
      // Anything but exactly this owner (none yet, another server, a corrupted value) is not ours.
      const previous = await tx.objectStore(META).get(OWNER_KEY);
      if (previous !== owner) {
        await tx.objectStore(STORE).clear();
        await tx.objectStore(META).put(owner, OWNER_KEY);
      }
      await tx.done;
      return previous !== undefined && previous !== owner;
    },
  };
}
