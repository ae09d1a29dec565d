/**
 * The gateway over a real redis-server (started here on a free port), two replicas in this
 * process, the API simulator as upstream: each IP bought once per team, whatever the replica.
 */
import fc from 'fast-check';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRedisStore } from '../../../gateway/src/store/redis-store';
import type { Store } from '../../../gateway/src/store/types';
import { startSimulator, type Simulator } from '../../sim/server';
import { UNLIMITED_KEY } from '../../sim/keys';
import { startRedis, type RedisProcess } from './redis-servers';
import { startGateway, tokenFor, type Harness } from './gateway-harness';

let redis: RedisProcess;
let sim: Simulator;
const stores: Store[] = [];
const replicas: Harness[] = [];
let admin: ReturnType<typeof createClient>;

beforeAll(async () => {
  [redis, sim] = await Promise.all([startRedis(), startSimulator()]);
  admin = createClient({ url: redis.url });
  await admin.connect();
  for (let i = 0; i < 2; i++) {
    const store = await openRedisStore({ urls: [redis.url] });
    stores.push(store);
    replicas.push(await startGateway({ store, upstreamUrl: sim.baseUrl, key: UNLIMITED_KEY }));
  }
});

afterAll(async () => {
  for (const r of replicas) await r.gateway.close().catch(() => {});
  await admin?.close().catch(() => {});
  await sim?.close();
  await redis?.stop();
});

/** A pool of public IPs, about 40% of them in the simulator's database. */
const POOL = Array.from({ length: 80 }, (_, i) => `45.${10 + (i % 7)}.${i}.${(i * 37) % 250 + 1}`);

async function bulk(replica: Harness, token: string, ips: string[]) {
  const response = await replica.gateway.app.inject({
    method: 'POST',
    url: '/api/v1/checkIP/bulk',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    payload: { ips },
  });
  expect(response.statusCode).toBe(200);
  return { body: response.json() as { results: { ip: string; data: Record<string, unknown> | null; error: string | null }[] }, cache: response.headers['x-cache'] };
}

describe('two replicas over one redis-server', () => {
  it('buys each IP once for the whole team: units = distinct found IPs, no IP sent twice, one answer per IP', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ replica: fc.nat(1), ips: fc.subarray(POOL, { minLength: 1, maxLength: 40 }) }), { minLength: 2, maxLength: 6 }),
        async (analysts) => {
          await admin.flushAll();
          sim.reset();
          const tokens = await Promise.all(analysts.map((_, i) => tokenFor(stores[0]!, `analyst-${i}`)));
          const answers = await Promise.all(analysts.map((a, i) => bulk(replicas[a.replica]!, tokens[i]!, a.ips)));

          const distinct = new Set(analysts.flatMap((a) => a.ips));
          const found = [...distinct].filter((ip) => sim.dataset.lookup(ip) !== null);
          const bulkCalls = sim.requestLog.filter((e) => e.path === '/checkIP/bulk');
          expect(bulkCalls.reduce((sum, e) => sum + e.cost, 0)).toBe(found.length);
          const sent = sim.ipLog.all().map((a) => a.ip);
          expect(sent.length).toBe(new Set(sent).size);
          expect(new Set(sent)).toEqual(distinct);
          expect(bulkCalls.every((e) => e.ips <= 100)).toBe(true);

          const seen = new Map<string, string>();
          for (const { body } of answers) {
            for (const row of body.results) {
              const { gateway: _provenance, ...rest } = row as Record<string, unknown>;
              const text = JSON.stringify(rest);
              expect(seen.get(row.ip) ?? text).toBe(text);
              seen.set(row.ip, text);
            }
          }
        },
      ),
      { numRuns: 8 },
    );
  });

  it('answers a cached bulk lookup with three Redis commands (token, rate limit, one MGET) and keeps each answer compact', async () => {
    await admin.flushAll();
    sim.reset();
    const token = await tokenFor(stores[0]!, 'dora');
    const ips = POOL.slice(0, 40);
    await bulk(replicas[0]!, token, ips);
    await bulk(replicas[0]!, token, ips); // the token's "last used" mark is written now at the latest
    await admin.configResetStat();
    for (let i = 0; i < 5; i++) expect((await bulk(replicas[0]!, token, ips)).cache).toBe('hit');
    const stats = await admin.info('commandstats');
    const calls = Object.fromEntries([...stats.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)].map(([, name, n]) => [name!, Number(n)]));
    // Sent per request: the token (HGETALL), the rate limit (one EVAL; Redis counts the SET,
    // INCRBY and PTTL it runs too), every answer in one MGET. The token's "last used" mark
    // (HGET, HSET, GET) is written at most once a second per token.
    expect(calls).toMatchObject({ hgetall: 5, eval: 5, mget: 5 });
    const marks = (calls.hget ?? 0) + (calls.hset ?? 0) + (calls.get ?? 0);
    expect(marks).toBeLessThanOrEqual(3);
    const known = new Set(['hgetall', 'eval', 'mget', 'set', 'incrby', 'pttl', 'hget', 'hset', 'get', 'config|resetstat', 'info']);
    expect(Object.keys(calls).filter((name) => !known.has(name))).toEqual([]);
    const found = ips.find((ip) => sim.dataset.lookup(ip) !== null)!;
    // Field names, the IP and null fields are not stored: a found answer is a short array.
    expect(await admin.strLen(`ipl:{${found}}:a`)).toBeLessThanOrEqual(80);
  });

  it('serves an IP bought through one replica from the store through the other, and marks it coalesced or hit', async () => {
    await admin.flushAll();
    sim.reset();
    const token = await tokenFor(stores[0]!, 'bob');
    const first = await bulk(replicas[0]!, token, POOL.slice(0, 10));
    expect(first.cache).toBe('miss');
    const second = await bulk(replicas[1]!, token, POOL.slice(0, 10));
    expect(second.cache).toBe('hit');
    expect(sim.requestLog.filter((e) => e.path === '/checkIP/bulk')).toHaveLength(1);
  });

  it('refuses a revoked token on every replica at once', async () => {
    const token = await tokenFor(stores[0]!, 'carol');
    expect((await bulk(replicas[1]!, token, [POOL[0]!])).body.results).toHaveLength(1);
    expect(await stores[1]!.revokeToken('carol')).toBe(true);
    for (const replica of replicas) {
      const response = await replica.gateway.app.inject({ method: 'GET', url: `/api/v1/checkIP?ip=${POOL[0]}`, headers: { 'x-api-key': token } });
      expect(response.statusCode).toBe(403);
    }
  });

  it('leaves a claim to its owner: another owner can neither extend nor release it', async () => {
    const [a, b] = stores as [Store, Store];
    expect(await a.claim('rep', '203.0.113.9', 'owner-a', 5_000)).toBe('won');
    expect(await b.claim('rep', '203.0.113.9', 'owner-b', 5_000)).toBe('held');
    expect(await b.releaseClaim('rep', '203.0.113.9', 'owner-b')).toBe(false);
    expect(await b.extendClaim('rep', '203.0.113.9', 'owner-b', 5_000)).toBe(false);
    expect(await a.extendClaim('rep', '203.0.113.9', 'owner-a', 5_000)).toBe(true);
    await a.markBuying('rep', ['203.0.113.9'], 'owner-a');
    // The owner vanishes mid-purchase (its lease runs out): the next claim is told so.
    await admin.del('ipl:{203.0.113.9}:c:rep');
    expect(await b.claim('rep', '203.0.113.9', 'owner-b', 5_000)).toBe('won-stale');
    expect(await b.releaseClaim('rep', '203.0.113.9', 'owner-b')).toBe(true);
    expect(await a.claim('rep', '203.0.113.9', 'owner-a', 5_000)).toBe('won');
  });

  it('reconciles with /account before buying an IP whose holder vanished mid-purchase, then buys it once', async () => {
    await admin.flushAll();
    sim.reset();
    const token = await tokenFor(stores[0]!, 'dave');
    const ip = POOL.find((candidate) => sim.dataset.lookup(candidate) !== null)!;
    await stores[0]!.claim('rep', ip, 'dead-replica', 5_000);
    await stores[0]!.markBuying('rep', [ip], 'dead-replica');
    await admin.del(`ipl:{${ip}}:c:rep`);
    const before = (await replicas[1]!.gateway.metrics.reconciliations.get()).values[0]?.value ?? 0;
    await bulk(replicas[1]!, token, [ip]);
    const after = (await replicas[1]!.gateway.metrics.reconciliations.get()).values[0]?.value ?? 0;
    expect(after).toBe(before + 1);
    const order = sim.requestLog.map((e) => e.path);
    expect(order.lastIndexOf('/account')).toBeLessThan(order.indexOf('/checkIP/bulk'));
  });

  it('keeps a per-token daily budget (403 in the API shape) and a rate limit (429 with Retry-After)', async () => {
    await admin.flushAll();
    const budgeted = await tokenFor(stores[0]!, 'erin', { budget: 1 });
    const foundIps = POOL.filter((ip) => sim.dataset.lookup(ip) !== null).slice(0, 3);
    await bulk(replicas[0]!, budgeted, foundIps);
    const refused = await replicas[1]!.gateway.app.inject({ method: 'GET', url: `/api/v1/checkIP?ip=${POOL[70]}`, headers: { 'x-api-key': budgeted } });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ error: true, statusCode: 403, message: expect.stringMatching(/usage limit exceeded/) });

    const limited = await startGateway({ store: stores[0]!, upstreamUrl: sim.baseUrl, key: UNLIMITED_KEY, settings: { rateLimitPerMinute: 2 } });
    const fast = await tokenFor(stores[0]!, 'frank');
    const ask = () => limited.gateway.app.inject({ method: 'GET', url: '/api/v1/account', headers: { 'x-api-key': fast } });
    expect((await ask()).statusCode).toBe(200);
    expect((await ask()).statusCode).toBe(200);
    const third = await ask();
    expect(third.statusCode).toBe(429);
    expect(Number(third.headers['retry-after'])).toBeGreaterThan(0);
    expect(third.json()).toEqual({ error: true, statusCode: 429, message: 'Rate limit exceeded' });
    await limited.gateway.core.stop();
  });
});

describe('redis-server stopped and started again', () => {
  it('stays up, reports it on /readyz, refuses to buy (503), and shares again once Redis is back', async () => {
    const own = await startRedis();
    try {
      const store = await openRedisStore({ urls: [own.url] });
      const { gateway } = await startGateway({ store, upstreamUrl: sim.baseUrl, key: UNLIMITED_KEY });
      const token = await tokenFor(store, 'gina');
      await own.stop();
      sim.reset();
      const ready = await gateway.app.inject({ method: 'GET', url: '/readyz' });
      expect(ready.statusCode).toBe(503);
      expect(ready.json()).toMatchObject({ store: { ok: false } });
      const lookup = await gateway.app.inject({ method: 'GET', url: `/api/v1/checkIP?ip=${POOL[3]}`, headers: { 'x-api-key': token } });
      expect(lookup.statusCode).toBe(503);
      expect(lookup.json()).toMatchObject({ error: true, statusCode: 503 });
      expect(sim.requestLog.filter((e) => e.path !== '/account')).toEqual([]);

      await own.restart();
      // An in-memory Redis came back empty: the token is added again, as an operator would.
      let again = '';
      for (let i = 0; i < 50 && !again; i++) {
        again = await tokenFor(store, 'gina').catch(async () => (await new Promise((r) => setTimeout(r, 100)), ''));
      }
      const back = await gateway.app.inject({ method: 'GET', url: `/api/v1/checkIP?ip=${POOL[3]}`, headers: { 'x-api-key': again } });
      expect([200, 404]).toContain(back.statusCode);
      expect((await gateway.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
      await gateway.close();
    } finally {
      await own.stop();
    }
  });
});
