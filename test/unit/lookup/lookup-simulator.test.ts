/**
 * The proof, against the real API client and the real simulator, with the persistent
 * cache in (fake) IndexedDB and a manual clock for windows, TTLs and pauses.
 */
import 'fake-indexeddb/auto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createMemoryLedgerStore, type LedgerStore } from '../../../lib/lookup/quota-ledger';
import type { LookupResult } from '../../../lib/lookup/types';
import { DEFAULT_THRESHOLDS, severityOf } from '../../../lib/severity';
import { FIXTURES, NOT_FOUND_IPS } from '../../sim/dataset';
import { DEMO_KEY } from '../../sim/keys';
import { PROFILE_NAMES } from '../../sim/profiles';
import { startSimulator, type Simulator } from '../../sim/server';
import { publicIps } from './helpers/ips';
import { createManualClock, type ManualClock } from './helpers/manual-clock';
import { drive, recordingClient, settleIo, simService, type BulkRecord } from './helpers/simulator-harness';

let sim: Simulator;
let bulks: BulkRecord[];
let clock: ManualClock;
let ledgerStore: LedgerStore;
let dbName: string;
let dbCounter = 0;

beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(async () => {
  await sim.close();
});
beforeEach(() => {
  sim.reset();
  bulks = [];
  clock = createManualClock();
  ledgerStore = createMemoryLedgerStore();
  dbName = `lookup-sim-${++dbCounter}`;
});

function newService(policy = {}) {
  return simService({ client: recordingClient(sim, DEMO_KEY, bulks), clock, dbName, ledgerStore, policy });
}

const bulkRequests = () => sim.requestLog.filter((e) => e.path === '/checkIP/bulk').length;
const foundCount = (ips: string[]) => ips.filter((ip) => sim.dataset.lookup(ip) !== null).length;
const answered = (r: LookupResult) => r.status === 'found' || r.status === 'not-found';

/** Five callers with overlapping lists: 450 asks, 250 unique IPs. */
const CALLERS = [0, 1, 2, 3, 4].map((k) => publicIps(90, k * 40));
const UNIQUE = [...new Set(CALLERS.flat())];

async function askAll(service: ReturnType<typeof newService>, priority: 'visible' | 'manual' = 'visible') {
  const asks = CALLERS.map((ips, k) => service.lookup(ips, { priority, source: `tab${k}:0:doc` }));
  // Every caller's IPs are queued before the window closes: the clock has not moved yet.
  await settleIo(() => service.stats().preparing === 0);
  return drive(clock, Promise.all(asks));
}

describe.each(PROFILE_NAMES)('lookup engine against the simulator (profile %s)', (profile) => {
  beforeEach(() => sim.setProfile(profile));
  afterAll(() => sim.setProfile('spec'));

  it('250 unique IPs from 5 overlapping callers: exactly 3 bulk calls, then 0, also after a restart', async () => {
    expect(UNIQUE).toHaveLength(250);
    const service = newService();
    const results = await askAll(service);
    expect(bulkRequests()).toBe(3);
    expect(bulks.map((b) => b.ips.length).sort()).toEqual([100, 100, 50]);
    expect(new Set(bulks.flatMap((b) => b.ips)).size).toBe(250); // no IP sent twice
    results.forEach((list, k) => {
      expect(list.map((r) => r.ip)).toEqual(CALLERS[k]);
      expect(list.every(answered)).toBe(true);
    });
    // Quota spent is exactly the found IPs (bulk costs 1 per IP found).
    expect(sim.usage(DEMO_KEY)).toBe(foundCount(UNIQUE));

    // The same IPs again: all from the cache.
    await askAll(service);
    expect(bulkRequests()).toBe(3);

    // The service worker stops and starts: a new instance over the same IndexedDB.
    await service.whenIdle();
    const restarted = newService();
    const again = await askAll(restarted);
    expect(bulkRequests()).toBe(3);
    expect(again).toEqual(results);
    expect((await restarted.status()).cacheSize).toBe(250);
  });

  it('refetches once the TTL has run out', async () => {
    const service = newService({ ttlFoundMinutes: 60, ttlNotFoundMinutes: 60 });
    await askAll(service);
    await clock.advance(61 * 60_000);
    await askAll(service);
    expect(bulkRequests()).toBe(6);
  });

  it('reserve reached: automatic lookups are skipped, manual ones are served', async () => {
    sim.setKey(DEMO_KEY, { currentUsage: 905 }); // limit 1000, reserve 10% = 100
    const service = newService();
    const auto = await drive(clock, service.lookup(publicIps(20), { priority: 'visible', source: 't' }));
    expect(auto.every((r) => r.status === 'skipped' && r.reason === 'quota-reserve')).toBe(true);
    expect(bulkRequests()).toBe(0);
    const manual = await drive(clock, service.lookup(publicIps(20), { priority: 'manual' }));
    expect(manual.every(answered)).toBe(true);
    const { quota } = await service.status();
    expect(quota.state).toBe('reserve-reached');
    expect(quota.scope).toBe(profile === 'org-pool' ? 'organization' : 'key');
    // After a reconciliation the ledger's usage is the server's.
    await service.refreshQuota();
    expect((await service.status()).quota).toMatchObject({ used: sim.usage(DEMO_KEY), limit: 1000 });
    expect(sim.usage(DEMO_KEY)).toBe(905 + foundCount(publicIps(20)));
  });

  it('a 403 usage-limit stops every lookup with a clear state, until /account shows room', async () => {
    const service = newService();
    await service.refreshQuota();
    sim.setKey(DEMO_KEY, { currentUsage: 1000 }); // someone else used the rest
    const first = await drive(clock, service.lookup(publicIps(30), { priority: 'visible', source: 't' }));
    expect(first.every((r) => r.status === 'skipped' && r.reason === 'quota-exhausted')).toBe(true);
    const status = await service.status();
    expect(status.quota.state).toBe('exhausted');
    expect(status.quota.detail).toMatch(/limit/i);
    expect(status.lastError).toMatchObject({ kind: 'quota-exhausted', status: 403 });

    const before = sim.requestLog.length;
    const manual = await drive(clock, service.lookup(publicIps(5, 500), { priority: 'manual' }));
    expect(manual.every((r) => r.status === 'skipped' && r.reason === 'quota-exhausted')).toBe(true);
    expect(sim.requestLog.slice(before).filter((e) => e.path !== '/account')).toEqual([]);

    sim.setKey(DEMO_KEY, { currentUsage: 0 }); // the billing period resets
    expect((await service.refreshQuota()).state).toBe('ok');
    const after = await drive(clock, service.lookup(publicIps(5, 500), { priority: 'visible', source: 't' }));
    expect(after.every(answered)).toBe(true);
  });

  it('a burst of 429s pauses the queue, then every caller is answered exactly once', async () => {
    sim.setFaults({ rateLimit: { count: 3, retryAfterSeconds: 2, path: '/checkIP/bulk' } });
    const service = newService();
    let answers = 0;
    const asks = CALLERS.slice(0, 3).map((ips, k) =>
      service.lookup(ips, { priority: 'visible', source: `t${k}` }).then((list) => {
        answers++;
        return list;
      }),
    );
    await settleIo(() => service.stats().preparing === 0);
    await drive(clock, settleIo(() => service.stats().pausedUntil !== null), 1);
    const results = await drive(clock, Promise.all(asks), 250);
    expect(answers).toBe(3);
    results.forEach((list, k) => expect(list.every(answered), `caller ${k}`).toBe(true));
    expect(bulks.filter((b) => b.status === 429)).toHaveLength(3);
    const served = bulks.filter((b) => b.status === 200).flatMap((b) => b.ips);
    const unique = new Set(CALLERS.slice(0, 3).flat());
    expect(served.length).toBe(unique.size); // nothing answered twice
    expect(new Set(served)).toEqual(unique);
  });
});

describe.each(PROFILE_NAMES)('every row stands on its own (profile %s)', (profile) => {
  beforeEach(() => sim.setProfile(profile));
  afterAll(() => sim.setProfile('spec'));

  /** Every fixture (odd rows included), the never-found IPs, and generated addresses. */
  const MIXED = [...Object.values(FIXTURES).map((r) => r.ip), ...NOT_FOUND_IPS, ...publicIps(60, 7_000)];

  it('one odd row never sinks its chunk: every IP answered, cached, never asked again', async () => {
    const service = newService();
    const first = await drive(clock, service.lookup(MIXED, { priority: 'manual' }));
    expect(first.filter((r) => !answered(r)).map((r) => r.ip)).toEqual([]);
    const whitelisted = first.find((r) => r.ip === FIXTURES.whitelisted.ip);
    expect(severityOf(whitelisted, DEFAULT_THRESHOLDS)).toBe('whitelisted');
    for (const ip of [FIXTURES.clean.ip, ...NOT_FOUND_IPS]) {
      expect(['clean', 'unknown'], ip).toContain(severityOf(first.find((r) => r.ip === ip), DEFAULT_THRESHOLDS));
    }
    const calls = bulkRequests();
    expect(calls).toBe(1);
    const again = await drive(clock, service.lookup(MIXED, { priority: 'manual' }));
    expect(bulkRequests()).toBe(calls);
    expect(again.map((r) => r.status)).toEqual(first.map((r) => r.status));
  });

  it('zero-hit rows are booked free: the ledger equals the server after the call', async () => {
    const service = newService();
    await service.refreshQuota();
    await drive(clock, service.lookup([...NOT_FOUND_IPS, FIXTURES.critical.ip], { priority: 'manual' }));
    await service.whenIdle();
    expect((await service.status()).quota.used).toBe(sim.usage(DEMO_KEY));
  });
});

describe('no blind paid retries', () => {
  const accountCalls = () => sim.requestLog.filter((e) => e.path === '/account').length;

  it('a bulk answer lost after charging: /account books it, the IPs fail with the reason, the next ask is their one re-ask', async () => {
    const service = newService();
    await service.refreshQuota();
    sim.setFaults({ serverError: { count: 1, status: 502, html: true, afterCharge: true, path: '/checkIP/bulk' } });
    const before = accountCalls();
    const ips = publicIps(40, 9_000);
    const first = await drive(clock, service.lookup(ips, { priority: 'manual' }), 250);
    expect(first.every((r) => r.status === 'error' && r.error.lostAfterSend === true)).toBe(true);
    expect(first[0]).toMatchObject({ error: { kind: 'server', message: expect.stringMatching(/may have billed.*asked again once/) } });
    expect(bulks.map((b) => b.status)).toEqual([502]); // no blind re-ask in a loop
    expect(accountCalls()).toBe(before + 1); // the lost call's cost, learnt for free
    const again = await drive(clock, service.lookup(ips, { priority: 'manual' }), 250);
    expect(again.every(answered)).toBe(true);
    expect(bulks.map((b) => b.status)).toEqual([502, 200]);
    expect(sim.usage(DEMO_KEY)).toBe(2 * foundCount(ips)); // the lost answer was paid for
    // Reconciled: the ledger is the server's count (zero-hit rows the server billed included).
    await service.refreshQuota();
    expect((await service.status()).quota.used).toBe(sim.usage(DEMO_KEY));
  });

  it('lost again: held with its reason, not asked a third time within the hour (no loop), booked', async () => {
    const service = newService();
    await service.refreshQuota();
    sim.setFaults({ dropConnection: { count: 10, afterCharge: true, path: '/checkIP/bulk' } });
    const ips = publicIps(20, 9_500);
    const sends = () => sim.requestLog.filter((e) => e.path === '/checkIP/bulk').length;
    const first = await drive(clock, service.lookup(ips, { priority: 'visible', source: 't' }), 250);
    expect(first.every((r) => r.status === 'error' && r.error.kind === 'network')).toBe(true);
    await drive(clock, service.lookup(ips, { priority: 'visible', source: 't' }), 250);
    expect(sends()).toBe(2);
    const third = await drive(clock, service.lookup(ips, { priority: 'manual' }), 250);
    expect(sends()).toBe(2);
    expect(third.every((r) => r.status === 'error' && /lost twice.*Try again/.test(r.error.message))).toBe(true);
    // The analyst's explicit "Try again" asks; an hour later an automatic ask may too.
    await drive(clock, service.lookup(ips.slice(0, 1), { priority: 'manual', retryLost: true }), 250);
    expect(sends()).toBe(3);
    await clock.advance(61 * 60_000);
    await drive(clock, service.lookup(ips.slice(1), { priority: 'visible', source: 't' }), 250);
    expect(sends()).toBe(4);
    await service.whenIdle();
    expect((await service.status()).quota.used).toBe(sim.usage(DEMO_KEY));
  });

  it('a detailed checkIP lost after charging: booked from /account, asked once more', async () => {
    const service = newService();
    await service.refreshQuota();
    sim.setFaults({ serverError: { count: 1, status: 504, html: true, afterCharge: true, path: '/checkIP' } });
    const [result] = await drive(clock, service.lookup([FIXTURES.critical.ip], { priority: 'manual', detailed: true }), 250);
    expect(result).toMatchObject({ status: 'found', data: { ipInfo: { asn: 'AS60729' } } });
    expect(sim.requestLog.filter((e) => e.path === '/checkIP').map((e) => e.status)).toEqual([504, 200]);
    await service.whenIdle();
    expect((await service.status()).quota.used).toBe(sim.usage(DEMO_KEY));
  });

  it('Retry-After: 0 makes no burst, and every 429 is booked as paid', async () => {
    const service = newService();
    await service.refreshQuota();
    sim.setFaults({ rateLimit: { count: 2, retryAfterSeconds: 0, path: '/checkIP/bulk' } });
    const asked = service.lookup(publicIps(30, 9_800), { priority: 'manual' });
    await drive(clock, settleIo(() => service.stats().pausedUntil !== null), 1);
    // Paused on the engine's clock for the backoff, not for the server's "0".
    expect(service.stats().pausedUntil! - clock.now()).toBeGreaterThanOrEqual(400);
    const results = await drive(clock, asked, 250);
    expect(results.every(answered)).toBe(true);
    expect(bulks.map((b) => b.status)).toEqual([429, 429, 200]);
    await service.whenIdle();
    expect((await service.status()).quota.used).toBe(sim.usage(DEMO_KEY));
  });
});
