/**
 * The lookup engine against a half-broken API: the real client and the real simulator under its
 * half-broken profiles (bulk slow, 503 or 429 while the free /account answers at once), one fake
 * clock for the engine, the client's timeouts, the circuit and the simulator's latency, so ten
 * simulated minutes take seconds. A page is played as the content script plays it: it asks its
 * IPs, and re-asks those that failed each time the engine announces recovery.
 *
 * The bounds (stated in docs/lookups.md):
 *   slow bulk: units paid ≤ 2 × the found IPs over 10 minutes, and every IP answered;
 *   503: at most 12 bulk requests in the first 10 minutes;
 *   429 without Retry-After: every mark leaves "Looking up…" within 60 s;
 *   429 with Retry-After: honoured, nothing sent to bulk before it ends.
 */
import 'fake-indexeddb/auto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_LOOKUP_POLICY } from '../../../lib/settings';
import { runHalfBroken } from '../../bench/half-broken-run';
import { HALF_BROKEN_PROFILE_NAMES, type HalfBrokenProfileName } from '../../sim/profiles';
import { startSimulator, type Simulator } from '../../sim/server';
import { publicIps } from './helpers/ips';

let sim: Simulator;

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

function run(profile: HalfBrokenProfileName | 'spec', ips: string[], minutes: number, random = () => 0.5) {
  return runHalfBroken(sim, profile, ips, minutes, { policy: DEFAULT_LOOKUP_POLICY, random });
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
        if (refusal !== request && refusal.settledAt! < request.sentAt) expect(request.sentAt - refusal.settledAt!).toBeGreaterThanOrEqual(120_000);
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

/** An outage of 503s on `path` from `fromMinute`, healed at minute 3. */
function outage(path: string, fromMinute = 0) {
  return [
    { atMinute: fromMinute, run: () => sim.setFaults({ serverError: { count: 100_000, status: 503, path } }) },
    { atMinute: 3, run: () => sim.clearFaults() },
  ];
}

// Jitter at both ends of its range: the backoff's shortest and longest waits.
describe('a full outage (every endpoint 503, /account included), then the server is back', () => {
  it.each([0, 1])('every failed IP is answered after the bulk probe proves recovery, though /account was failing too (jitter %s)', async (jitter) => {
    const r = await runHalfBroken(sim, 'spec', PAGE, 10, {
      policy: DEFAULT_LOOKUP_POLICY,
      random: () => jitter,
      // The popup opens during the outage: its quota refresh meets /account's 503 too.
      events: [...outage('*'), { atMinute: 1, run: (service) => void service.status() }],
    });
    const accounts = sim.requestLog.filter((e) => e.path === '/account');
    expect(accounts.some((e) => e.status === 503)).toBe(true);
    expect(r.bulkLog.some((b) => b.status === 503)).toBe(true);
    expect(r.stillWaiting).toBe(0);
    expect(r.answered).toBe(PAGE.length);
    // The quota meter no longer says "Lookups failing".
    expect((await r.service.status()).lastError).toBeNull();
  }, 60_000);

  it.each([0, 1])('bulk alone answers 503 (retried once, as a 5xx costs nothing), then heals: every failed IP is answered (jitter %s)', async (jitter) => {
    const r = await runHalfBroken(sim, 'spec', PAGE, 10, {
      policy: DEFAULT_LOOKUP_POLICY,
      random: () => jitter,
      // The client's own retry of a 5xx meets the circuit its failure just opened.
      retry: { limit: 3 },
      events: outage('/checkIP/bulk', 0.01),
    });
    expect(r.bulkLog.some((b) => b.status === 503)).toBe(true);
    expect(r.stillWaiting).toBe(0);
    expect(r.answered).toBe(PAGE.length);
  }, 60_000);

  it.each([0, 1])('the worker stops while the circuit is open: the alarm wakes it, its successor sends the probe from the stored candidates (jitter %s)', async (jitter) => {
    const r = await runHalfBroken(sim, 'spec', PAGE, 10, {
      policy: DEFAULT_LOOKUP_POLICY,
      random: () => jitter,
      events: outage('*'),
      // Idle after the last screen's IPs failed: stopped, and again while the probe waits.
      stopWorkerAt: [2.75, 4],
    });
    expect(r.workerStarts).toBeGreaterThanOrEqual(3);
    expect(r.stillWaiting).toBe(0);
    expect(r.answered).toBe(PAGE.length);
    // Still one probe at a time: the 503 bound holds across the restarts.
    expect(r.bulkLog.filter((b) => b.status === 503).length).toBeLessThanOrEqual(12);
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
