/**
 * One run of the lookup engine against a half-broken simulator profile, on one fake clock shared
 * by the engine, the client's timeouts, the circuit and the simulator's latency, so that
 * simulated minutes take seconds. A page is played as the content script plays it: it shows its
 * IPs in three screens a minute apart, and re-asks those that failed each time the engine
 * announces recovery. Used by the bound tests (test/unit/lookup/half-broken.test.ts) and by
 * `npm run bench lookup`.
 */
import { createApiClient } from '../../lib/api';
import { CircuitBreaker } from '../../lib/api/circuit';
import { createMemoryCacheStore } from '../../lib/lookup/cache-store';
import { LookupService } from '../../lib/lookup/lookup-service';
import { createMemoryLedgerStore } from '../../lib/lookup/quota-ledger';
import { RETRIABLE_FAILURES } from '../../lib/lookup/recovery-watch';
import type { LookupResult } from '../../lib/lookup/types';
import type { LookupPolicy } from '../../lib/settings';
import { DEMO_KEY } from '../sim/keys';
import type { ProfileName } from '../sim/profiles';
import type { Simulator } from '../sim/server';
import { createManualClock, type ManualClock } from '../unit/lookup/helpers/manual-clock';

const MINUTE = 60_000;

export interface HalfBrokenRunOptions {
  policy: LookupPolicy;
  random?: () => number;
  /** false: the engine without a circuit (recovery inferred from any answer, /account included). */
  circuit?: boolean;
}

export async function runHalfBroken(sim: Simulator, profile: ProfileName, ips: string[], minutes: number, options: HalfBrokenRunOptions) {
  const random = options.random ?? (() => 0.5);
  sim.setProfile(profile);
  const clock: ManualClock = createManualClock();
  sim.useTimers(clock);
  const circuit = options.circuit === false ? undefined : new CircuitBreaker({ clock, random });
  /** When each bulk request left, on the engine's clock. */
  const bulkAt: number[] = [];
  /** Each bulk request: when it left and when its answer (or failure) came, on the engine's clock. */
  const bulkLog: { sentAt: number; settledAt: number | null; status: number; ips: string[] }[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    if (!String(input).endsWith('/checkIP/bulk')) return globalThis.fetch(input, init);
    bulkAt.push(clock.now());
    const entry = { sentAt: clock.now(), settledAt: null as number | null, status: 0, ips: (JSON.parse(String(init?.body)) as { ips: string[] }).ips };
    bulkLog.push(entry);
    try {
      const response = await globalThis.fetch(input, init);
      entry.status = response.status;
      return response;
    } finally {
      entry.settledAt = clock.now();
    }
  };
  const client = createApiClient({
    fetch,
    baseUrl: sim.baseUrl,
    apiKey: DEMO_KEY,
    authHeader: 'authorization',
    ...(circuit ? { circuit } : {}),
    timers: clock,
    retry: { limit: 1, baseDelayMs: 1, maxDelayMs: 2, maxRetryAfterMs: 50 },
  });
  const policy = { ...options.policy, perPageCap: 100_000, siteDailyCap: 100_000 };
  const page = new Map<string, LookupResult | 'waiting'>();
  /** How long each ask of an IP waited for its answer (simulated ms). */
  const waits: number[] = [];
  const ask = (list: string[]) => {
    const started = clock.now();
    for (const ip of list) page.set(ip, 'waiting');
    void service.lookup(list, { priority: 'visible', source: 'tab1|console.test', site: 'console.test' }).then((results) => {
      for (const result of results) {
        page.set(result.ip, result);
        waits.push(clock.now() - started);
      }
    });
  };
  const service: LookupService = new LookupService({
    clientSource: async () => ({ server: 'sim', handle: { client, identity: 'demo' } }),
    policySource: async () => policy,
    initialPolicy: policy,
    cacheStore: createMemoryCacheStore(),
    ledgerStore: createMemoryLedgerStore(),
    clock,
    ...(circuit ? { circuit } : {}),
    batch: { random },
    // The content script's rule: after recovery, re-ask what failed for a reason that may pass.
    onRecovered: () => {
      const failed = [...page].filter(([, r]) => r !== 'waiting' && r.status === 'error' && RETRIABLE_FAILURES.has(r.error.kind));
      if (failed.length) ask(failed.map(([ip]) => ip));
    },
  });
  const usageBefore = sim.usage(DEMO_KEY);
  // The page shows its IPs in three screens, a minute apart.
  const screens = [ips.slice(0, 110), ips.slice(110, 220), ips.slice(220)];
  const end = clock.now() + minutes * MINUTE;
  let shown = 0;
  const start = clock.now();
  while (clock.now() < end) {
    if (shown < screens.length && clock.now() - start >= shown * MINUTE) ask(screens[shown++]!);
    await clock.advance(250);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  const found = ips.filter((ip) => sim.dataset.lookup(ip) !== null).length;
  const bulk = sim.requestLog.filter((e) => e.path === '/checkIP/bulk');
  return {
    service,
    page,
    waits,
    paid: sim.usage(DEMO_KEY) - usageBefore,
    found,
    bulkRequests: bulk.length,
    bulkAt,
    bulkLog,
    answered: [...page.values()].filter((r) => r !== 'waiting' && (r.status === 'found' || r.status === 'not-found')).length,
    stillWaiting: [...page.values()].filter((r) => r === 'waiting').length,
  };
}
