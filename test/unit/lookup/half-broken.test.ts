/**
 * The lookup engine against a half-broken API: the real client and the real simulator under its
 * half-broken profiles (bulk slow, 503 or 429 while the free /account answers at once), one fake
 * clock for the engine, the client's timeouts, the circuit and the simulator's latency, so ten
 * simulated minutes take seconds. A page is played as the content script plays it: it asks its
 * IPs, and re-asks those that failed each time the engine announces recovery.
 *
 * The bounds (stated in the README):
 *   slow bulk: units paid ≤ 2 × the found IPs over 10 minutes, and every IP answered;
 *   503: at most 12 bulk requests in the first 10 minutes;
 *   429 without Retry-After: every mark leaves "Looking up…" within 60 s;
 *   429 with Retry-After: honoured, nothing sent to bulk before it ends.
 */
import 'fake-indexeddb/auto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createApiClient } from '../../../lib/api';
import { CircuitBreaker } from '../../../lib/api/circuit';
import { createIdbCacheStore } from '../../../lib/lookup/idb-cache-store';
import { LookupService } from '../../../lib/lookup/lookup-service';
import { createMemoryLedgerStore } from '../../../lib/lookup/quota-ledger';
import { RETRIABLE_FAILURES } from '../../../lib/lookup/recovery-watch';
import type { LookupResult } from '../../../lib/lookup/types';
import { DEFAULT_LOOKUP_POLICY } from '../../../lib/settings';
import { DEMO_KEY } from '../../sim/keys';
import { HALF_BROKEN_PROFILE_NAMES, type HalfBrokenProfileName } from '../../sim/profiles';
import { startSimulator, type Simulator } from '../../sim/server';
import { publicIps } from './helpers/ips';
import { createManualClock, type ManualClock } from './helpers/manual-clock';

const MINUTE = 60_000;
let sim: Simulator;
let dbCounter = 0;

beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(async () => {
  await sim.close();
});
beforeEach(() => {
  sim.reset();
  sim.useTimers(null);
});

/** One run: a service over a circuit, a page of `ips`, the clock driven for `minutes`. */
async function run(profile: HalfBrokenProfileName | 'spec', ips: string[], minutes: number, random = () => 0.5) {
  sim.setProfile(profile);
  const clock: ManualClock = createManualClock();
  sim.useTimers(clock);
  const circuit = new CircuitBreaker({ clock, random });
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
    circuit,
    timers: clock,
    retry: { limit: 1, baseDelayMs: 1, maxDelayMs: 2, maxRetryAfterMs: 50 },
  });
  const policy = { ...DEFAULT_LOOKUP_POLICY, perPageCap: 100_000, siteDailyCap: 100_000 };
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
    cacheStore: createIdbCacheStore({ name: `half-broken-${++dbCounter}` }),
    ledgerStore: createMemoryLedgerStore(),
    clock,
    circuit,
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

const PAGE = publicIps(330, 20_000);

describe('the lookup engine under a half-broken API (bulk failing, /account healthy)', () => {
  it.each([0, 0.5, 1])('slow bulk (17 s, timeout 15 s): units paid ≤ 2 × found IPs over 10 minutes, every IP answered (jitter %s)', async (jitter) => {
    const r = await run('half-broken-slow', PAGE, 10, () => jitter);
    expect(r.found).toBeGreaterThan(50);
    expect(r.paid).toBeLessThanOrEqual(2 * r.found);
    expect(r.stillWaiting).toBe(0);
    expect(r.answered).toBe(PAGE.length);
  }, 60_000);

  it.each([0, 0.5, 1])('503: at most 12 bulk requests in the first 10 minutes (jitter %s)', async (jitter) => {
    const r = await run('half-broken-503', PAGE, 10, () => jitter);
    expect(r.bulkRequests).toBeLessThanOrEqual(12);
    expect(r.bulkRequests).toBeGreaterThan(3); // it does keep probing
    expect(r.stillWaiting).toBe(0);
    // Every IP failed with the reason, none "not in database".
    const failed = [...r.page.values()].filter((x) => x !== 'waiting' && x.status === 'error');
    expect(failed).toHaveLength(PAGE.length);
  }, 60_000);

  it('429 without Retry-After: every mark leaves "Looking up…" within 60 s', async () => {
    const r = await run('half-broken-429', PAGE, 10);
    expect(r.stillWaiting).toBe(0);
    expect(r.waits.length).toBeGreaterThanOrEqual(PAGE.length);
    expect(Math.max(...r.waits)).toBeLessThanOrEqual(60_000);
    const failed = [...r.page.values()].filter((x) => x !== 'waiting' && x.status === 'error' && x.error.kind === 'rate-limited');
    expect(failed).toHaveLength(PAGE.length);
  }, 60_000);

  it('429 with Retry-After: 120: nothing is sent to bulk before it ends', async () => {
    const r = await run('half-broken-429-retry-after', PAGE, 10);
    // The first calls left together; after them each request waited the full 120 s.
    // A request never left within 120 s of a 429 received before it (the first calls of a
    // screen may leave together, before any answer came back).
    const limited = r.bulkLog.filter((b) => b.status === 429 && b.settledAt !== null);
    expect(limited.length).toBeGreaterThan(1);
    for (const request of r.bulkLog) {
      for (const refusal of limited) {
        if (refusal.settledAt! <= request.sentAt) expect(request.sentAt - refusal.settledAt!).toBeGreaterThanOrEqual(120_000);
      }
    }
    expect(r.stillWaiting).toBe(0);
    expect(Math.max(...r.waits)).toBeLessThanOrEqual(60_000);
  }, 60_000);

  it('the same page against a healthy API: one ask each, paid once', async () => {
    const r = await run('spec', PAGE, 3);
    expect(r.answered).toBe(PAGE.length);
    expect(r.paid).toBe(r.found);
  }, 60_000);
});

describe.each(HALF_BROKEN_PROFILE_NAMES)('/account stays healthy under %s', (profile) => {
  it('answers at once while bulk fails', async () => {
    const r = await run(profile, PAGE.slice(0, 20), 1);
    const accounts = sim.requestLog.filter((e) => e.path === '/account');
    expect(accounts.every((e) => e.status === 200)).toBe(true);
    expect(r.stillWaiting).toBe(0);
  }, 60_000);
});
