/**
 * The gateway against a half-broken upstream (the simulator's half-broken profiles: bulk slow,
 * 503 or 429 while the free /account answers at once), two replicas on one real redis-server.
 * A fast clock (100 simulated ms per real ms) drives the upstream client's timeouts, the
 * circuit and the simulator's latency, so ten simulated minutes take a few real seconds.
 *
 * The gateway uses lib's rules (circuit per endpoint, slow-server timeout, lost-answer memory)
 * with their state in the store, so the bounds the extension keeps hold for the whole team:
 *   slow bulk: units paid ≤ 2 × the found IPs, and the IPs get answered;
 *   503 / 429: at most 12 bulk requests in ten simulated minutes, analysts answered 503/429
 *   with Retry-After while the circuit is open; two replicas share the open circuit.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ApiTimers } from '../../../lib/api/types';
import { openRedisStore } from '../../../gateway/src/store/redis-store';
import type { Store } from '../../../gateway/src/store/types';
import { UNLIMITED_KEY } from '../../sim/keys';
import type { HalfBrokenProfileName } from '../../sim/profiles';
import { startSimulator, type Simulator } from '../../sim/server';
import { publicIps } from '../lookup/helpers/ips';
import { startGateway, tokenFor, type Harness } from './gateway-harness';
import { startRedis, type RedisProcess } from './redis-servers';

const SPEED = 100;
const run = promisify(execFile);

/** Simulated time running SPEED times faster than the wall clock, for every timer involved. */
function fastClock(): ApiTimers {
  const start = Date.now();
  return {
    now: () => start + (Date.now() - start) * SPEED,
    setTimeout: (callback, ms) => setTimeout(callback, Math.max(0, ms / SPEED)),
    clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
  };
}

/** The wall clock moved forward by hand: nothing depends on how fast the machine runs. */
function movedClock() {
  const moved = {
    skew: 0,
    now: () => Date.now() + moved.skew,
    setTimeout: (callback: () => void, ms: number) => setTimeout(callback, ms),
    clearTimeout: (handle: unknown) => clearTimeout(handle as ReturnType<typeof setTimeout>),
  };
  return moved;
}

let redis: RedisProcess;
let sim: Simulator;
let stores: Store[] = [];
let replicas: Harness[] = [];
let clock: ApiTimers;

beforeAll(async () => {
  [redis, sim] = await Promise.all([startRedis(), startSimulator()]);
}, 30_000);

afterAll(async () => {
  await sim?.close();
  await redis?.stop();
});

async function startReplicas(profile: HalfBrokenProfileName | 'spec', timers: ApiTimers = fastClock()) {
  for (const r of replicas) await r.gateway.close().catch(() => {});
  await run('redis-cli', ['-p', String(redis.port), 'flushall']);
  sim.reset();
  sim.setProfile(profile);
  clock = timers;
  sim.useTimers(clock);
  stores = [];
  replicas = [];
  for (let i = 0; i < 2; i++) {
    const store = await openRedisStore({ urls: [redis.url] });
    stores.push(store);
    replicas.push(
      await startGateway({
        store,
        upstreamUrl: sim.baseUrl,
        key: UNLIMITED_KEY,
        settings: { leaseMs: 5_000 },
        upstream: { timeoutMs: 15_000, slowCapMs: 60_000, timers: clock, random: () => 0.5 },
      }),
    );
  }
}

beforeEach(() => sim.useTimers(null));

function ask(replica: Harness, token: string, ips: string[]) {
  return replica.gateway.app.inject({
    method: 'POST',
    url: '/api/v1/checkIP/bulk',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    payload: { ips },
  });
}

const bulkLog = () => sim.requestLog.filter((e) => e.path === '/checkIP/bulk');

/**
 * Analysts ask pages of IPs every 5 simulated seconds through both replicas for `minutes`
 * simulated minutes; returns the gateway's answers' status codes.
 */
async function analysts(ips: string[], minutes: number) {
  const token = await tokenFor(stores[0]!, 'analyst');
  const end = clock.now() + minutes * 60_000;
  const statuses: number[] = [];
  const asks: Promise<unknown>[] = [];
  let turn = 0;
  while (clock.now() < end) {
    const page = ips.slice((turn * 20) % ips.length, ((turn * 20) % ips.length) + 40);
    const replica = replicas[turn % 2]!;
    turn++;
    asks.push(ask(replica, token, page).then((r) => statuses.push(r.statusCode)));
    await new Promise((r) => setTimeout(r, 5_000 / SPEED));
  }
  // Every analyst gets an answer (calls in flight settle within the slow cap).
  await Promise.all(asks);
  return statuses;
}

const PAGE = publicIps(120, 30_000);

describe('the gateway under a half-broken upstream (bulk failing, /account healthy), two replicas on Redis', () => {
  afterAll(async () => {
    for (const r of replicas) await r.gateway.close().catch(() => {});
  });

  it('slow bulk (17 s, timeout 15 s): units paid ≤ 2 × found IPs over 10 simulated minutes, and they are answered', async () => {
    await startReplicas('half-broken-slow');
    await analysts(PAGE, 10);
    const found = PAGE.filter((ip) => sim.dataset.lookup(ip) !== null).length;
    const paid = bulkLog().reduce((sum, e) => sum + e.cost, 0);
    expect(found).toBeGreaterThan(10);
    expect(paid).toBeLessThanOrEqual(2 * found);
    // The slow server was given longer and answered: every IP is in the shared store.
    const stored = await stores[0]!.getAnswers(PAGE);
    expect(stored.size).toBe(PAGE.length);
    // Each IP was sent at most twice (the lost ask and its one re-ask).
    const sends = new Map<string, number>();
    for (const { ip } of sim.ipLog.all()) sends.set(ip, (sends.get(ip) ?? 0) + 1);
    expect(Math.max(...sends.values())).toBeLessThanOrEqual(2);
  }, 60_000);

  it('503: at most 12 bulk requests in 10 simulated minutes; analysts get 503 with Retry-After, nothing paid', async () => {
    await startReplicas('half-broken-503');
    const statuses = await analysts(PAGE, 10);
    expect(bulkLog().length).toBeLessThanOrEqual(12);
    expect(bulkLog().length).toBeGreaterThan(3); // it does keep probing
    expect(bulkLog().reduce((sum, e) => sum + e.cost, 0)).toBe(0);
    expect(statuses.filter((s) => s === 503).length).toBeGreaterThan(statuses.length / 2);
    // The upstream's own 503s come back as error rows (200), as the API's bulk answer does.
    expect(statuses.every((s) => s === 503 || s === 200)).toBe(true);
  }, 60_000);

  it('429 without Retry-After: at most 12 bulk requests in 10 simulated minutes; analysts get 429 with Retry-After', async () => {
    await startReplicas('half-broken-429');
    const statuses = await analysts(PAGE, 10);
    expect(bulkLog().length).toBeLessThanOrEqual(12);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(statuses.length / 2);
  }, 60_000);

  it('two replicas share the open circuit: the second is refused without sending, with the API error shape and Retry-After', async () => {
    await startReplicas('half-broken-503', movedClock());
    const token = await tokenFor(stores[0]!, 'analyst');
    const first = await ask(replicas[0]!, token, PAGE.slice(0, 10));
    expect((first.json() as { results: { error: unknown }[] }).results.every((r) => r.error)).toBe(true);
    const sent = bulkLog().length;
    const second = await ask(replicas[1]!, token, PAGE.slice(10, 20));
    expect(second.statusCode).toBe(503);
    expect(Number(second.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    const body = second.json() as { error: boolean; statusCode: number; message: string };
    expect(body).toMatchObject({ error: true, statusCode: 503 });
    expect(body.message).toMatch(/Not sent/);
    expect(bulkLog().length).toBe(sent);
  }, 30_000);

  it('half-open: one probe across both replicas', async () => {
    const moved = movedClock();
    await startReplicas('half-broken-503', moved);
    const token = await tokenFor(stores[0]!, 'analyst');
    await ask(replicas[0]!, token, PAGE.slice(0, 5)); // the upstream's 503: open
    expect(bulkLog()).toHaveLength(1);
    moved.skew += 6 * 60_000; // past the longest open period: half-open
    const both = await Promise.all([ask(replicas[0]!, token, PAGE.slice(20, 25)), ask(replicas[1]!, token, PAGE.slice(30, 35))]);
    // One probe went (and failed: open again); the other replica's request was refused unsent.
    expect(bulkLog()).toHaveLength(2);
    expect(both.map((r) => r.statusCode).sort()).toEqual([200, 503]);
  }, 30_000);

  it('a lost paid answer: re-asked once automatically (by either replica), then held for an hour with the reason', async () => {
    let skew = 0;
    const moved: ApiTimers = {
      now: () => Date.now() + skew,
      setTimeout: (callback, ms) => setTimeout(callback, ms),
      clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
    };
    await startReplicas('spec', moved);
    const token = await tokenFor(stores[0]!, 'analyst');
    const ip = PAGE.find((x) => sim.dataset.lookup(x) !== null)!;
    sim.setFaults({ dropConnection: { count: 2, path: '/checkIP/bulk', afterCharge: true } });
    const rowOf = async (replica: Harness) => (await ask(replica, token, [ip])).json() as { results: { data: unknown; error: string | null }[] };
    expect((await rowOf(replicas[0]!)).results[0]!.error).toBeTruthy(); // lost (billed)
    skew += 6 * 60_000; // past the circuit's open period
    expect((await rowOf(replicas[1]!)).results[0]!.error).toBeTruthy(); // its one re-ask, lost again
    expect(bulkLog()).toHaveLength(2);
    skew += 6 * 60_000;
    const held = await rowOf(replicas[0]!);
    expect(held.results[0]!.error).toMatch(/not asked again automatically/);
    expect(bulkLog()).toHaveLength(2);
    skew += 60 * 60_000;
    expect((await rowOf(replicas[1]!)).results[0]!.data).not.toBeNull();
    expect(bulkLog()).toHaveLength(3);
  }, 30_000);
});
