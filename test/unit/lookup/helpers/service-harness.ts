/** Builds a LookupService over a fake client, in-memory stores and a manual clock. */
import type { CacheStore } from '../../../../lib/lookup/cache-store';
import { createMemoryCacheStore } from '../../../../lib/lookup/cache-store';
import { LookupService, type LookupServiceOptions } from '../../../../lib/lookup/lookup-service';
import { createMemoryLedgerStore, type LedgerStore } from '../../../../lib/lookup/quota-ledger';
import { DEFAULT_LOOKUP_POLICY, type LookupPolicy } from '../../../../lib/settings';
import { FakeApiClient } from './fake-api-client';
import { createManualClock, type ManualClock } from './manual-clock';

export interface Harness {
  service: LookupService;
  client: FakeApiClient;
  clock: ManualClock;
  cacheStore: CacheStore;
  ledgerStore: LedgerStore;
  policy: LookupPolicy;
  /** The API base URL the client source reports; change it, then call credentialsChanged(). */
  server: string;
  /** Moves the clock in window-sized steps until the promise settles. */
  settle<T>(promise: Promise<T>, stepMs?: number): Promise<T>;
  /** Moves the clock in window-sized steps until the condition holds. */
  until(condition: () => boolean, stepMs?: number): Promise<void>;
}

export interface HarnessOptions {
  policy?: Partial<LookupPolicy>;
  /** null: no key configured. */
  client?: FakeApiClient | null;
  cacheStore?: CacheStore;
  ledgerStore?: LedgerStore;
  clock?: ManualClock;
  identity?: string;
  server?: string;
  extra?: Partial<LookupServiceOptions>;
}

export function createHarness(options: HarnessOptions = {}): Harness {
  const clock = options.clock ?? createManualClock();
  const client = options.client === undefined ? new FakeApiClient() : options.client;
  const cacheStore = options.cacheStore ?? createMemoryCacheStore();
  const ledgerStore = options.ledgerStore ?? createMemoryLedgerStore();
  const harness = {
    client: client ?? new FakeApiClient(),
    clock,
    cacheStore,
    ledgerStore,
    policy: { ...DEFAULT_LOOKUP_POLICY, ...options.policy },
    server: options.server ?? 'https://api.test/v1',
  } as Harness;
  harness.service = new LookupService({
    clientSource: async () => ({
      server: harness.server,
      handle: client ? { client, identity: options.identity ?? 'key-1' } : null,
    }),
    policySource: async () => harness.policy,
    initialPolicy: harness.policy,
    cacheStore,
    ledgerStore,
    clock,
    batch: { random: () => 1 },
    ...options.extra,
  });
  harness.settle = async <T>(promise: Promise<T>, stepMs = 25): Promise<T> => {
    let done = false;
    void promise.then(
      () => (done = true),
      () => (done = true),
    );
    for (let i = 0; i < 2_000 && !done; i++) await clock.advance(stepMs);
    return promise;
  };
  harness.until = async (condition, stepMs = 25) => {
    for (let i = 0; i < 2_000 && !condition(); i++) await clock.advance(stepMs);
    if (!condition()) throw new Error('condition never held');
  };
  return harness;
}
