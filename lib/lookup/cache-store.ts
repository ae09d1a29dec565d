/**
 * Persistence behind the in-memory LRU. The browser uses IndexedDB (idb-cache-store.ts); unit
 * tests and benchmarks may use the in-memory one below. Implementations drop what they
 * cannot parse instead of throwing, and keep at most `maxEntries`, evicting the oldest.
 * They also remember whose answers they hold (the API server), so answers of one server are
 * never read back as another's, even after a change made while the service worker was stopped.
 */
import type { CacheRecord } from './cache-record';

export interface CacheStore {
  /** The valid records among `ips`; corrupted or old-version ones are deleted, not returned. */
  getMany(ips: readonly string[]): Promise<Map<string, CacheRecord>>;
  putMany(records: readonly CacheRecord[]): Promise<void>;
  deleteMany(ips: readonly string[]): Promise<void>;
  /** Deletes everything; resolves to the number of entries deleted. */
  clear(): Promise<number>;
  count(): Promise<number>;
  setMaxEntries(maxEntries: number): void;
  /**
   * Makes `owner` the owner of the records: if they belong to anyone else (or to no one yet),
   * they are all deleted first, in one step with recording the new owner. Resolves to true when
   * they belonged to another server (not when the store had no owner yet): answers already
   * shown elsewhere came from that server.
   */
  claim(owner: string): Promise<boolean>;
}

/** A Map ordered by write time, for tests and benchmarks. */
export function createMemoryCacheStore(maxEntries = 50_000): CacheStore {
  const records = new Map<string, CacheRecord>();
  let max = maxEntries;
  let owner: string | undefined;
  const evict = () => {
    for (const ip of records.keys()) {
      if (records.size <= max) break;
      records.delete(ip);
    }
  };
  return {
    async getMany(ips) {
      const out = new Map<string, CacheRecord>();
      for (const ip of ips) {
        const record = records.get(ip);
        if (record) out.set(ip, structuredClone(record));
      }
      return out;
    },
    async putMany(list) {
      for (const record of list) {
        records.delete(record.ip);
        records.set(record.ip, structuredClone(record));
      }
      evict();
    },
    async deleteMany(ips) {
      for (const ip of ips) records.delete(ip);
    },
    async clear() {
      const n = records.size;
      records.clear();
      return n;
    },
    async count() {
      return records.size;
    },
    setMaxEntries(value) {
      max = value;
      evict();
    },
    async claim(next) {
      if (owner === next) return false;
      const replaced = owner !== undefined;
      records.clear();
      owner = next;
      return replaced;
    },
  };
}
