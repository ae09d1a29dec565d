/**
 * The lookup engine: cache, batcher and quota guard combined by the lookup service. Only the
 * background service worker uses it (lib/background/lookup-handlers.ts builds it from the
 * stored settings); everything it needs is passed in, so tests and benchmarks run it in Node.
 */
export {
  LookupService,
  type ClientHandle,
  type ClientSetup,
  type ClientSource,
  type LookupOptions,
  type LookupServiceOptions,
} from './lookup-service';
export { createIdbCacheStore, DEFAULT_CACHE_DB_NAME } from './idb-cache-store';
export { createMemoryCacheStore, type CacheStore } from './cache-store';
export { createMemoryLedgerStore, fingerprint, type LedgerStore, type QuotaLedger } from './quota-ledger';
export type { PageCapStore, PageCapUsage } from './page-cap';
export { systemClock, type Clock } from './clock';
export type * from './types';
