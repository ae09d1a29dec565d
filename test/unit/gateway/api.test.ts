/**
 * The gateway speaks the API: lib/api's own client, pointed at the gateway with a personal
 * token, reads its answers as it reads the API's. Embedded store, the simulator as upstream.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient } from '../../../lib/api';
import { openEmbeddedStore } from '../../../gateway/src/store/embedded-store';
import type { Store } from '../../../gateway/src/store/types';
import { startSimulator, type Simulator } from '../../sim/server';
import { FIXTURES, NOT_FOUND_IPS } from '../../sim/dataset';
import { DEMO_KEY } from '../../sim/keys';
import { cleanup } from './redis-servers';
import { startGateway, tokenFor, type Harness } from './gateway-harness';

let sim: Simulator;
let store: Store;
let harness: Harness;
let base: string;
let token: string;
let dir: string;

beforeAll(async () => {
  sim = await startSimulator();
  dir = mkdtempSync(path.join(tmpdir(), 'gw-api-'));
  store = openEmbeddedStore({ dir, flushMs: 0 });
  harness = await startGateway({ store, upstreamUrl: sim.baseUrl, key: DEMO_KEY });
  await harness.gateway.app.listen({ host: '127.0.0.1', port: 0 });
  const address = harness.gateway.app.server.address() as { port: number };
  base = `http://127.0.0.1:${address.port}/api/v1`;
  token = await tokenFor(store, 'alice');
});

afterAll(async () => {
  await harness.gateway.close();
  await sim.close();
  cleanup(dir);
});

const paidCalls = () => sim.requestLog.filter((e) => e.path !== '/account');

describe('the gateway through lib/api', () => {
  it('answers a bulk lookup as the API does, in both header modes, buying each IP once', async () => {
    const ips = [FIXTURES.critical.ip, FIXTURES.whitelisted.ip, NOT_FOUND_IPS[0], FIXTURES.ipv6.ip];
    const direct = await createApiClient({ baseUrl: sim.baseUrl, apiKey: DEMO_KEY, authHeader: 'authorization' }).checkIpBulk(ips);
    sim.reset();
    for (const authHeader of ['authorization', 'x-api-key'] as const) {
      const viaGateway = await createApiClient({ baseUrl: base, apiKey: token, authHeader }).checkIpBulk(ips);
      // The same answers, plus where each came from (the API's carry no provenance).
      expect(viaGateway.items.map((item) => ({ ...item, gateway: undefined }))).toEqual(direct.items);
      expect(direct.items.every((item) => !('gateway' in item))).toBe(true);
      expect(viaGateway.items.filter((item) => item.status !== 'error').every((item) => 'gateway' in item && item.gateway?.sightings !== null)).toBe(true);
    }
    const bulkCalls = paidCalls();
    expect(bulkCalls).toHaveLength(1);
    expect(bulkCalls[0]!.cost).toBe(3);
  });

  it('answers single and detailed lookups as the API does, 404 for an IP not in the database', async () => {
    const client = createApiClient({ baseUrl: base, apiKey: token, authHeader: 'authorization' });
    const direct = createApiClient({ baseUrl: sim.baseUrl, apiKey: DEMO_KEY, authHeader: 'authorization' });
    const { gateway, ...detailed } = await client.checkIp(FIXTURES.high.ip, { detailed: true });
    expect(detailed).toEqual(await direct.checkIp(FIXTURES.high.ip, { detailed: true }));
    expect(gateway).toMatchObject({ cache: 'miss', ageMs: 0, sightings: { count: 0, newToTeam: true } });
    expect(await client.checkIp(NOT_FOUND_IPS[1])).toEqual({ status: 'not-found', ip: NOT_FOUND_IPS[1], gateway: expect.objectContaining({ cache: 'miss' }) });
  });

  it('says where each answer came from: X-Cache, its age, and an additive gateway field', async () => {
    const ask = () =>
      fetch(`${base}/checkIP/bulk`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ ips: [FIXTURES.suspicious.ip] }),
      });
    const first = await ask();
    expect(first.headers.get('x-cache')).toBe('miss');
    const second = await ask();
    expect(second.headers.get('x-cache')).toBe('hit');
    expect(Number(second.headers.get('x-cache-age'))).toBeGreaterThanOrEqual(0);
    const body = (await second.json()) as { results: { gateway: { cache: string; age: number } }[] };
    expect(body.results[0]!.gateway.cache).toBe('hit');
  });

  it('gives the analyst their own account view: token as api_key, the team pool as organization_quota', async () => {
    const account = await createApiClient({ baseUrl: base, apiKey: token, authHeader: 'authorization' }).account();
    expect(account.key.name).toBe('alice');
    expect(account.key.maxApiRequests).toBeNull();
    expect(account.organization?.totalQuota).toBe(1000);
    const testKey = await createApiClient({ baseUrl: base, apiKey: token, authHeader: 'x-api-key' }).testKey();
    expect(testKey.success).toBe(true);
    expect(testKey.key.name).toBe('alice');
  });

  it('refuses a missing token (401), a wrong one (403), in the API error bodies', async () => {
    const none = await fetch(`${base}/checkIP?ip=8.8.8.8`);
    expect(none.status).toBe(401);
    expect(await none.json()).toMatchObject({ error: true, statusCode: 401 });
    const testKey = await fetch(`${base}/test-key`);
    expect(await testKey.json()).toEqual({ statusCode: 401, statusMessage: 'Valid API key required' });
    const wrong = await fetch(`${base}/checkIP?ip=8.8.8.8`, { headers: { 'X-API-Key': 'iplg_wrong' } });
    expect(wrong.status).toBe(403);
    expect(await wrong.json()).toEqual({ error: true, statusCode: 403, message: 'Invalid API key' });
    const refused = await createApiClient({ baseUrl: base, apiKey: 'iplg_wrong', authHeader: 'authorization' }).account().then(() => null, (e: { kind: string }) => e.kind);
    expect(refused).toBe('invalid-key');
  });

  it('answers bad input with the API 400s and buys nothing', async () => {
    sim.reset();
    const post = (body: string, type = 'application/json') =>
      fetch(`${base}/checkIP/bulk`, { method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': type }, body });
    const expect400 = async (response: Response, message: string) => {
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({ error: true, statusCode: 400, message });
    };
    await expect400(await post('{"ips": [1.2.3'), 'Invalid request body');
    await expect400(await post('{"ips": []}'), 'Invalid request body');
    await expect400(await post('{"ips": [1]}'), 'Invalid request body');
    await expect400(await post('ips=1.2.3.4', 'text/plain'), 'Invalid request body');
    const many = Array.from({ length: 101 }, (_, i) => `11.0.0.${i}`);
    await expect400(await post(JSON.stringify({ ips: many })), 'Maximum 100 IPs per request');
    await expect400(await post(JSON.stringify({ ips: ['1.1.1.1'], pad: 'x'.repeat(70_000) })), 'Request body too large');
    await expect400(await fetch(`${base}/checkIP`, { headers: { Authorization: `Bearer ${token}` } }), 'IP address is required');
    await expect400(await fetch(`${base}/checkIP?ip=1.2.3.999`, { headers: { Authorization: `Bearer ${token}` } }), 'Invalid IP address');
    await expect400(await fetch(`${base}/checkIP?ip=10.0.0.1`, { headers: { Authorization: `Bearer ${token}` } }), 'Private or reserved IP address: not sent to the service by this gateway');
    const mixed = await post(JSON.stringify({ ips: ['999.1.1.1', '192.168.1.1', '127.0.0.1'] }));
    expect(mixed.status).toBe(200);
    const body = (await mixed.json()) as { results: { data: unknown; error: string }[]; failed: number };
    expect(body.failed).toBe(3);
    expect(body.results.map((r) => r.data)).toEqual([null, null, null]);
    expect(sim.requestLog).toEqual([]);
  });

  it('writes one audit line per lookup with the token name, never the token', async () => {
    const lines = harness.logs.filter((l) => l.includes('"audit":"lookup"'));
    expect(lines.length).toBeGreaterThan(0);
    const first = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(first).toMatchObject({ token: 'alice' });
    expect(harness.logs.join('\n')).not.toContain(token);
    expect(harness.logs.join('\n')).not.toContain(DEMO_KEY);
  });

  it('serves /healthz, /readyz and /metrics', async () => {
    const origin = base.replace('/api/v1', '');
    expect((await fetch(`${origin}/healthz`)).status).toBe(200);
    const ready = await fetch(`${origin}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ store: { kind: 'embedded', ok: true }, upstream: { ok: true } });
    const metrics = await (await fetch(`${origin}/metrics`)).text();
    expect(metrics).toMatch(/gateway_cache_hits_total \d+/);
    expect(metrics).toMatch(/gateway_upstream_units_total \d+/);
    expect(metrics).not.toContain(DEMO_KEY);
  });
});
