/**
 * One run of the lookup engine against a half-broken simulator profile, on one fake clock shared
 * by the engine, the client's timeouts, the circuit and the simulator's latency, so that
 * simulated minutes take seconds. A page is played as the content script plays it: it shows its
 * IPs in three screens a minute apart, and re-asks those that failed each time the engine
 * announces recovery. Used by the bound tests (test/unit/lookup/half-broken.test.ts) and by
 * `npm run bench lookup`.
 */
import { createApiClient } from '../../lib/api';
import type { RetryPolicy } from '../../lib/api/types';
import { CircuitBreaker } from '../../lib/api/circuit';
import { createMemoryCacheStore } from '../../lib/lookup/cache-store';
import { LookupService } from '../../lib/lookup/lookup-service';
import { createMemoryLedgerStore } from '../../lib/lookup/quota-ledger';
import { RETRIABLE_FAILURES } from '../../lib/lookup/recovery-watch';
import type { Clock, TimerHandle } from '../../lib/lookup/clock';
import type { StoredValue } from '../../lib/lookup/stored-value';
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
  /** Things that happen during the run (the server heals, the popup opens), at simulated minutes. */
  events?: { atMinute: number; run: (service: LookupService) => void }[];
  /** The client's retry policy (default: one retry, at once). */
  retry?: Partial<RetryPolicy>;
  /** Simulated minutes at which the worker stops (idle MV3): it starts again on the next event that needs it. */
  stopWorkerAt?: number[];
}

/** A worker's view of the clock: its timers die when it stops. */
interface ScopedClock extends Clock {
  stop(): void;
}

function scopedClock(clock: ManualClock): ScopedClock {
  const live = new Set<TimerHandle>();
  let stopped = false;
  return {
    now: () => clock.now(),
    setTimeout(callback, ms) {
      if (stopped) return null;
      const handle: TimerHandle = clock.setTimeout(() => {
        live.delete(handle);
        callback();
      }, ms);
      live.add(handle);
      return handle;
    },
    clearTimeout(handle) {
      live.delete(handle);
      clock.clearTimeout(handle);
    },
    stop() {
      stopped = true;
      for (const handle of live) clock.clearTimeout(handle);
      live.clear();
    },
  };
}

export async function runHalfBroken(sim: Simulator, profile: ProfileName, ips: string[], minutes: number, options: HalfBrokenRunOptions) {
  const random = options.random ?? (() => 0.5);
  sim.setProfile(profile);
  const clock: ManualClock = createManualClock();
  sim.useTimers(clock);
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
  const policy = { ...options.policy, perPageCap: 100_000, siteDailyCap: 100_000 };
  const page = new Map<string, LookupResult | 'waiting'>();
  /** How long each ask of an IP waited for its answer (simulated ms). */
  const waits: number[] = [];
  // What outlives the worker: the persistent cache and ledger, and storage.session's values.
  const cacheStore = createMemoryCacheStore();
  const ledgerStore = createMemoryLedgerStore();
  const session = new Map<string, unknown>();
  const sessionValue = (name: string): StoredValue => ({
    load: async () => structuredClone(session.get(name)),
    save: async (value) => void session.set(name, structuredClone(value)),
  });
  /** The browser's alarm: survives the worker and wakes a stopped one (browser.alarms). */
  let alarm: TimerHandle | null = null;
  let worker: { service: LookupService; clock: ScopedClock } | null = null;
  let workerStarts = 0;
  const startWorker = () => {
    workerStarts++;
    const workerClock = scopedClock(clock);
    const circuit = options.circuit === false ? undefined : new CircuitBreaker({ clock: workerClock, random, store: sessionValue('circuits') });
    const client = createApiClient({
      fetch,
      baseUrl: sim.baseUrl,
      apiKey: DEMO_KEY,
      authHeader: 'authorization',
      ...(circuit ? { circuit } : {}),
      timers: workerClock,
      retry: { limit: 1, baseDelayMs: 1, maxDelayMs: 2, maxRetryAfterMs: 50, ...options.retry },
    });
    const service: LookupService = new LookupService({
      clientSource: async () => ({ server: 'sim', handle: { client, identity: 'demo' } }),
      policySource: async () => policy,
      initialPolicy: policy,
      cacheStore,
      ledgerStore,
      clock: workerClock,
      ...(circuit ? { circuit } : {}),
      batch: { random },
      recoveryStore: sessionValue('recoveryWatch'),
      lostAnswerStore: sessionValue('lostAnswers'),
      journalStore: sessionValue('callJournal'),
      pageCapStore: sessionValue('pageCap'),
      probeCandidateStore: sessionValue('probeCandidates'),
      scheduleWake: (at) => {
        if (alarm !== null) clock.clearTimeout(alarm);
        alarm = at === null ? null : clock.setTimeout(() => {
          alarm = null;
          void running().service.wake();
        }, Math.max(0, at - clock.now()));
      },
      // The content script's rule: after recovery, re-ask what failed for a reason that may pass.
      onRecovered: () => {
        if (worker?.service !== service) return;
        const failed = [...page].filter(([, r]) => r !== 'waiting' && r.status === 'error' && RETRIABLE_FAILURES.has(r.error.kind));
        if (failed.length) ask(failed.map(([ip]) => ip));
      },
    });
    return { service, clock: workerClock };
  };
  /** The worker, started by the event that needs it if it was stopped. */
  const running = () => (worker ??= startWorker());
  const ask = (list: string[]) => {
    const started = clock.now();
    for (const ip of list) page.set(ip, 'waiting');
    void running()
      .service.lookup(list, { priority: 'visible', source: 'tab1|console.test', site: 'console.test' })
      .then((results) => {
        for (const result of results) {
          page.set(result.ip, result);
          waits.push(clock.now() - started);
        }
      });
  };
  const stopWorker = () => {
    // MV3 stops an idle worker: its timers die with it; what it stored stays.
    worker?.clock.stop();
    worker = null;
  };
  const usageBefore = sim.usage(DEMO_KEY);
  // The page shows its IPs in three screens, a minute apart.
  const screens = [ips.slice(0, 110), ips.slice(110, 220), ips.slice(220)];
  const end = clock.now() + minutes * MINUTE;
  let shown = 0;
  const start = clock.now();
  const events = [...(options.events ?? [])].sort((a, b) => a.atMinute - b.atMinute);
  const stops = [...(options.stopWorkerAt ?? [])].sort((a, b) => a - b);
  while (clock.now() < end) {
    if (shown < screens.length && clock.now() - start >= shown * MINUTE) ask(screens[shown++]!);
    while (events.length && clock.now() - start >= events[0]!.atMinute * MINUTE) events.shift()!.run(running().service);
    while (stops.length && clock.now() - start >= stops[0]! * MINUTE) {
      stops.shift();
      stopWorker();
    }
    await clock.advance(250);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  const found = ips.filter((ip) => sim.dataset.lookup(ip) !== null).length;
  const bulk = sim.requestLog.filter((e) => e.path === '/checkIP/bulk');
  return {
    service: running().service,
    workerStarts,
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
