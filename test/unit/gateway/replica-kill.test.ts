/**
 * A replica killed (SIGKILL) in the middle of a bulk purchase: a real gateway process over one
 * real redis-server, the simulator slowed so the purchase is in flight, and a second replica
 * (in this process) that an analyst asks for the same IPs meanwhile. The survivor waits for the
 * dead replica's claims to run out, reconciles with /account, buys each IP once, and serves
 * every analyst; nothing is bought twice.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createClient } from 'redis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openRedisStore } from '../../../gateway/src/store/redis-store';
import type { Store } from '../../../gateway/src/store/types';
import { UNLIMITED_KEY } from '../../sim/keys';
import { startSimulator, type Simulator } from '../../sim/server';
import { startGateway, tokenFor, type Harness } from './gateway-harness';
import { freePort, startRedis, type RedisProcess } from './redis-servers';

/** Public IPs, some of them in the simulator's database. */
const IPS = Array.from({ length: 30 }, (_, i) => `45.${10 + (i % 7)}.${i}.${(i * 37) % 250 + 1}`);
/** The dying replica's lease: its claims run out this long after it stops extending them. */
const LEASE_MS = 1_500;
const REPO = fileURLToPath(new URL('../../../', import.meta.url));

let redis: RedisProcess;
let sim: Simulator;
let store: Store;
let survivor: Harness;
let doomed: ChildProcess | null = null;
let admin: ReturnType<typeof createClient>;

beforeAll(async () => {
  [redis, sim] = await Promise.all([startRedis(), startSimulator()]);
  admin = createClient({ url: redis.url });
  await admin.connect();
  store = await openRedisStore({ urls: [redis.url] });
  survivor = await startGateway({ store, upstreamUrl: sim.baseUrl, key: UNLIMITED_KEY });
});

afterAll(async () => {
  doomed?.kill('SIGKILL');
  await survivor?.gateway.close().catch(() => {});
  await admin?.close().catch(() => {});
  await sim?.close();
  await redis?.stop();
});

async function startReplicaProcess(port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'gateway/src/main.ts'], {
    cwd: REPO,
    env: {
      ...process.env,
      GATEWAY_UPSTREAM_URL: sim.baseUrl,
      GATEWAY_UPSTREAM_KEY: UNLIMITED_KEY,
      GATEWAY_REDIS_URL: redis.url,
      GATEWAY_PORT: String(port),
      GATEWAY_LEASE_MS: String(LEASE_MS),
      GATEWAY_LOG_LEVEL: 'silent',
    },
    stdio: 'ignore',
  });
  for (let i = 0; i < 300; i++) {
    const up = await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.ok, () => false);
    if (up) return child;
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill('SIGKILL');
  throw new Error('the gateway process did not start');
}

async function until(check: () => Promise<boolean>, what: string) {
  for (let i = 0; i < 200; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const bulkRequest = (token: string) => ({ method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ ips: IPS }) });

it('serves the analysts through the other replica and buys each IP once when a replica dies mid-purchase', async () => {
  const port = await freePort();
  doomed = await startReplicaProcess(port);
  const [alice, bob] = await Promise.all([tokenFor(store, 'alice'), tokenFor(store, 'bob')]);
  // The upstream answers bulk calls only after a long while: the purchase stays in flight.
  sim.setFaults({ latencyMs: 30_000, latencyPath: '/checkIP/bulk' });

  const lost = fetch(`http://127.0.0.1:${port}/api/v1/checkIP/bulk`, bulkRequest(alice)).then(
    (r) => r.status,
    () => 'connection lost',
  );
  // The dying replica has claimed every IP and marked them as being bought.
  await until(async () => (await Promise.all(IPS.map((ip) => admin.exists(`ipl:{${ip}}:b:rep`)))).every((n) => n === 1), 'the purchase to start');
  const before = (await survivor.gateway.metrics.reconciliations.get()).values[0]?.value ?? 0;
  // Bob asks the survivor meanwhile: it waits for the claims instead of buying.
  const bobs = survivor.gateway.app.inject({ method: 'POST', url: '/api/v1/checkIP/bulk', headers: bulkRequest(bob).headers, payload: bulkRequest(bob).body });
  await new Promise((r) => setTimeout(r, 200));
  expect(sim.requestLog.filter((e) => e.path === '/checkIP/bulk')).toHaveLength(0);

  doomed.kill('SIGKILL');
  sim.clearFaults();
  expect(await lost).toBe('connection lost');

  const answer = await bobs;
  expect(answer.statusCode).toBe(200);
  const rows = (answer.json() as { results: { ip: string; data: unknown; error: string | null }[] }).results;
  const found = IPS.filter((ip) => sim.dataset.lookup(ip) !== null);
  expect(found.length).toBeGreaterThan(0);
  for (const row of rows) {
    if (found.includes(row.ip)) expect(row.data).not.toBeNull();
    else expect(row.error).toBe('IP not found in database');
  }
  // One purchase, after /account was asked what the dead replica's call may have cost.
  const bulkCalls = sim.requestLog.filter((e) => e.path === '/checkIP/bulk');
  expect(bulkCalls).toHaveLength(1);
  expect(bulkCalls[0]!.cost).toBe(found.length);
  const paths = sim.requestLog.map((e) => e.path);
  expect(paths.lastIndexOf('/account')).toBeLessThan(paths.indexOf('/checkIP/bulk'));
  expect((await survivor.gateway.metrics.reconciliations.get()).values[0]?.value).toBeGreaterThan(before);

  // Alice asks again, now through the survivor: served from the store, nothing bought.
  const again = await survivor.gateway.app.inject({ method: 'POST', url: '/api/v1/checkIP/bulk', headers: bulkRequest(alice).headers, payload: bulkRequest(alice).body });
  expect(again.statusCode).toBe(200);
  expect(again.headers['x-cache']).toBe('hit');
  expect(sim.requestLog.filter((e) => e.path === '/checkIP/bulk')).toHaveLength(1);
  const sent = sim.ipLog.all().map((a) => a.ip);
  expect(sent.length).toBe(new Set(sent).size);
});
