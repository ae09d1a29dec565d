/**
 * The lookup engine over the real API client and the real simulator: what the proof
 * asks for. Bulk request bodies are recorded through the client's `fetch` option, so a test
 * can assert which IPs went out and that none went out twice.
 */
import { createApiClient } from '../../../../lib/api';
import type { ApiClient } from '../../../../lib/api/types';
import { createIdbCacheStore } from '../../../../lib/lookup/idb-cache-store';
import { LookupService } from '../../../../lib/lookup/lookup-service';
import type { LedgerStore } from '../../../../lib/lookup/quota-ledger';
import { DEFAULT_LOOKUP_POLICY, type LookupPolicy } from '../../../../lib/settings';
import type { Simulator } from '../../../sim/server';
import type { ManualClock } from './manual-clock';

export interface BulkRecord {
  ips: string[];
  status: number;
}

export function recordingClient(sim: Simulator, apiKey: string, bulks: BulkRecord[]): ApiClient {
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const response = await globalThis.fetch(input, init);
    if (String(input).endsWith('/checkIP/bulk') && typeof init?.body === 'string') {
      bulks.push({ ips: (JSON.parse(init.body) as { ips: string[] }).ips, status: response.status });
    }
    return response;
  };
  return createApiClient({
    baseUrl: sim.baseUrl,
    apiKey,
    authHeader: 'authorization',
    fetch,
    // Keep the client's own retries short: long Retry-After values come back to the engine,
    // which pauses its queue on the manual clock.
    retry: { limit: 1, baseDelayMs: 1, maxDelayMs: 2, maxRetryAfterMs: 50 },
  });
}

export function simService(options: {
  client: ApiClient;
  clock: ManualClock;
  dbName: string;
  ledgerStore: LedgerStore;
  policy?: Partial<LookupPolicy>;
}): LookupService {
  const policy = { ...DEFAULT_LOOKUP_POLICY, ...options.policy };
  return new LookupService({
    clientSource: async () => ({ server: 'sim', handle: { client: options.client, identity: 'demo' } }),
    policySource: async () => policy,
    initialPolicy: policy,
    cacheStore: createIdbCacheStore({ name: options.dbName }),
    ledgerStore: options.ledgerStore,
    clock: options.clock,
    batch: { random: () => 0.5 },
  });
}

/**
 * Runs the manual clock in window-sized steps, letting real I/O (HTTP, IndexedDB) progress
 * between steps, until the promise settles. It only pumps; it measures nothing.
 */
export async function drive<T>(clock: ManualClock, promise: Promise<T>, stepMs = 25): Promise<T> {
  let done = false;
  void promise.then(
    () => (done = true),
    () => (done = true),
  );
  for (let i = 0; i < 20_000 && !done; i++) {
    await clock.advance(stepMs);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  return promise;
}

/** Waits (without moving the manual clock) until the condition holds. */
export async function settleIo(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 20_000 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 1));
  if (!condition()) throw new Error('condition never held');
}
