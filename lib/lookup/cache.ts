/**
 * The lookup cache: an in-memory LRU in front of a persistent store, with a TTL per kind of
 * answer (found, not found, detailed). Reads go memory first, then the store; writes land in
 * memory at once (so an answer is visible before its callers are told) and reach the store
 * in batches behind the scenes. A failing store degrades to a memory-only cache; it never
 * fails a lookup.
 *
 * Answers belong to the API server that gave them (the owner, see useOwner): the store is read
 * and written only once it is known to hold that server's answers and no one else's.
 */
import type { Clock } from './clock';
import {
  isUseless,
  recordFromAnswer,
  resultFromRecord,
  satisfies,
  type CacheAnswer,
  type CacheRecord,
  type CacheTtls,
} from './cache-record';
import type { CacheStore } from './cache-store';
import { MemoryLru } from './memory-lru';
import type { LookupResult } from './types';

export interface LookupCacheOptions {
  store: CacheStore;
  clock: Clock;
  ttls: CacheTtls;
  /** Bound of the persistent store. */
  maxEntries: number;
  /** Bound of the memory layer (default: min(maxEntries, 10,000)). */
  memoryMaxEntries?: number;
  onStoreError?: (error: unknown) => void;
}

const DEFAULT_MEMORY_MAX = 10_000;

export class LookupCache {
  private readonly memory: MemoryLru<string, CacheRecord>;
  private readonly store: CacheStore;
  private readonly clock: Clock;
  private ttls: CacheTtls;
  private readonly pendingWrites = new Map<string, CacheRecord>();
  private writing: Promise<void> | null = null;
  private readonly onStoreError: (error: unknown) => void;
  private memoryMaxExplicit: boolean;
  /** Bumped by clear() and a new owner: answers to calls started before it are not cached. */
  generation = 0;
  /** The server whose answers the cache holds; null until the first useOwner(). */
  private owner: string | null = null;
  /** The owner the store was last claimed for; the store is used only while it equals `owner`. */
  private storeOwner: string | null = null;
  private claiming: Promise<boolean> | null = null;

  constructor(options: LookupCacheOptions) {
    this.store = options.store;
    this.clock = options.clock;
    this.ttls = options.ttls;
    this.memoryMaxExplicit = options.memoryMaxEntries !== undefined;
    this.memory = new MemoryLru(options.memoryMaxEntries ?? Math.min(options.maxEntries, DEFAULT_MEMORY_MAX));
    this.store.setMaxEntries(options.maxEntries);
    this.onStoreError = options.onStoreError ?? ((error) => console.warn('[ip-lens] cache store:', error));
  }

  setTtls(ttls: CacheTtls): void {
    this.ttls = ttls;
  }

  setMaxEntries(maxEntries: number): void {
    this.store.setMaxEntries(maxEntries);
    if (!this.memoryMaxExplicit) this.memory.resize(Math.min(maxEntries, DEFAULT_MEMORY_MAX));
  }

  /**
   * Makes `owner` (the API server) the owner of the cached answers. A new owner empties the
   * memory layer at once, synchronously, so a caller that swaps its API client in the same turn
   * knows that no call to the old server can be cached as the new one's (its generation is
   * gone); the store is claimed before it is read or written again (see CacheStore.claim), which
   * also catches a change made while the worker was stopped. Resolves when the claim is done,
   * to true if the store held another server's answers (see CacheStore.claim); if the claim
   * fails, to false, and the cache works from memory until a later call claims the store again.
   */
  useOwner(owner: string): Promise<boolean> {
    if (owner !== this.owner) {
      this.owner = owner;
      this.generation++;
      this.memory.clear();
      this.pendingWrites.clear();
      this.claiming = this.claimStore(owner, this.claiming);
    } else if (this.storeOwner !== owner && !this.claiming) {
      this.claiming = this.claimStore(owner, null);
    }
    return this.claiming ?? Promise.resolve(false);
  }

  /** A record that answers the lookup now, from memory only (synchronous). `manual`: see satisfies(). */
  fresh(ip: string, detailed: boolean, manual = false): CacheRecord | undefined {
    const record = this.memory.get(ip);
    return record && satisfies(record, detailed, this.ttls, this.clock.now(), manual) ? record : undefined;
  }

  /** Whether a record answers a lookup (for records returned by read()); a manual one is not held by an unreadable row. */
  satisfies(record: CacheRecord, detailed: boolean, manual = false): boolean {
    return satisfies(record, detailed, this.ttls, this.clock.now(), manual);
  }

  /**
   * The records held for `ips` (fresh or partly fresh), memory first then the store.
   * Records with nothing fresh left are dropped on the way.
   */
  async read(ips: readonly string[]): Promise<Map<string, CacheRecord>> {
    const now = this.clock.now();
    const out = new Map<string, CacheRecord>();
    const missing: string[] = [];
    for (const ip of ips) {
      const record = this.memory.get(ip);
      if (record && !isUseless(record, this.ttls, now)) out.set(ip, record);
      else {
        if (record) this.memory.delete(ip);
        missing.push(ip);
      }
    }
    if (!missing.length) return out;
    const generation = this.generation;
    while (this.claiming) await this.claiming;
    if (!this.storeIsOwned()) return generation === this.generation ? out : new Map();
    let stored: Map<string, CacheRecord>;
    try {
      stored = await this.store.getMany(missing);
    } catch (error) {
      this.onStoreError(error);
      return out;
    }
    // Cleared or handed to another server while reading: nothing read before counts any more.
    if (generation !== this.generation) return new Map();
    const expired: string[] = [];
    const later = this.clock.now();
    for (const [ip, record] of stored) {
      // An answer may have arrived while the store was read: the newer one wins.
      const newer = this.memory.peek(ip);
      if (newer && newer.fetchedAt >= record.fetchedAt) {
        out.set(ip, newer);
      } else if (isUseless(record, this.ttls, later)) {
        expired.push(ip);
      } else {
        this.memory.set(ip, record);
        out.set(ip, record);
      }
    }
    if (expired.length) this.store.deleteMany(expired).catch(this.onStoreError);
    return out;
  }

  /** Records an API answer: memory now, the store soon. Ignored if the cache was cleared since `generation`. */
  record(answer: CacheAnswer, generation = this.generation): CacheRecord | undefined {
    if (generation !== this.generation) return undefined;
    const record = recordFromAnswer(answer, this.memory.peek(answer.ip), this.clock.now());
    this.memory.set(answer.ip, record);
    this.pendingWrites.set(answer.ip, record);
    this.scheduleWrite();
    return record;
  }

  /** Records an API answer and returns it as a lookup result (uncached if a clear came since `generation`). */
  answer(answer: CacheAnswer, generation: number): LookupResult {
    const record = this.record(answer, generation);
    if (record) return resultFromRecord(record);
    if (answer.status === 'unreadable') return { ip: answer.ip, status: 'error', error: answer.error };
    const fetchedAt = this.clock.now();
    const from = answer.gateway ? { gateway: answer.gateway } : {};
    return answer.status === 'found'
      ? { ip: answer.ip, status: 'found', data: answer.data, fetchedAt, ...from }
      : { ip: answer.ip, status: 'not-found', fetchedAt, ...from };
  }

  /** Resolves when every recorded answer has reached the store (or failed to). */
  async flush(): Promise<void> {
    while (this.writing) await this.writing;
  }

  /**
   * Resolves when every answer recorded so far is in the store, including those held back
   * while the store is claimed (or when the store failed: then there is nothing more to wait
   * for). The bulk call waits on it before its callers hear the answers: an answer that came
   * back is kept before anything else can lose it, such as the worker being stopped.
   */
  async persisted(): Promise<void> {
    while (this.claiming || this.writing) {
      await this.claiming;
      await this.writing;
    }
  }

  /** Empties both layers; resolves to the number of stored entries removed. */
  async clear(): Promise<number> {
    this.generation++;
    this.memory.clear();
    this.pendingWrites.clear();
    await this.flush();
    try {
      return await this.store.clear();
    } catch (error) {
      this.onStoreError(error);
      return 0;
    }
  }

  /** Entries in the persistent store (memory holds a subset of them). */
  async size(): Promise<number> {
    while (this.claiming) await this.claiming;
    if (!this.storeIsOwned()) return this.memory.size;
    try {
      return Math.max(await this.store.count(), this.memory.size);
    } catch (error) {
      this.onStoreError(error);
      return this.memory.size;
    }
  }

  private storeIsOwned(): boolean {
    return this.owner !== null && this.storeOwner === this.owner;
  }

  /** After `previous` (claims run in order), once the old owner's writes in progress have landed. */
  private claimStore(owner: string, previous: Promise<boolean> | null): Promise<boolean> {
    const claim: Promise<boolean> = (async () => {
      await previous;
      await this.flush();
      try {
        const replaced = await this.store.claim(owner);
        this.storeOwner = owner;
        return replaced;
      } catch (error) {
        this.onStoreError(error);
        return false;
      }
    })().finally(() => {
      if (this.claiming === claim) this.claiming = null;
      // Answers recorded while the claim ran were held back: write them now.
      this.scheduleWrite();
    });
    return claim;
  }

  private scheduleWrite(): void {
    if (this.writing) return;
    this.writing = (async () => {
      // Let the caller finish recording its whole batch first: one store transaction for all.
      await null;
      try {
        // Never into a store that may hold another server's answers; they wait for the claim
        // (which never waits on this loop, so the two cannot deadlock).
        while (this.pendingWrites.size && this.storeIsOwned()) {
          const batch = [...this.pendingWrites.values()];
          this.pendingWrites.clear();
          try {
            await this.store.putMany(batch);
          } catch (error) {
            this.onStoreError(error);
          }
        }
        // The store could not be claimed: the cache is memory-only until a later claim succeeds.
        if (!this.claiming && !this.storeIsOwned()) this.pendingWrites.clear();
      } finally {
        this.writing = null;
      }
    })();
  }
}
