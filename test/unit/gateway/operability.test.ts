/**
 * Operating the gateway: draining on shutdown, a lost upstream answer, bad tokens slowed down,
 * TLS served by the gateway itself. Embedded store, the simulator as upstream.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../gateway/src/config';
import { createGateway } from '../../../gateway/src/server';
import { openEmbeddedStore } from '../../../gateway/src/store/embedded-store';
import { createUpstream } from '../../../gateway/src/upstream';
import { startSimulator, type Simulator } from '../../sim/server';
import { UNLIMITED_KEY } from '../../sim/keys';
import { FIXTURES } from '../../sim/dataset';
import { cleanup } from './redis-servers';
import { startGateway, TEST_SETTINGS, tokenFor } from './gateway-harness';

let sim: Simulator;
const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'gw-ops-'));
  dirs.push(dir);
  return dir;
};

beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(async () => {
  await sim.close();
  dirs.forEach(cleanup);
});

const bulkRequest = (token: string, ips: string[]) => ({
  method: 'POST' as const,
  url: '/api/v1/checkIP/bulk',
  headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
  payload: { ips },
});

describe('operating the gateway', () => {
  it('drains a lookup in flight when it is closed (SIGTERM), then takes no more', async () => {
    sim.reset();
    const store = openEmbeddedStore({ dir: tempDir(), flushMs: 0 });
    const { gateway } = await startGateway({ store, upstreamUrl: sim.baseUrl, key: UNLIMITED_KEY });
    const token = await tokenFor(store, 'alice');
    await gateway.app.listen({ host: '127.0.0.1', port: 0 });
    const url = `http://127.0.0.1:${(gateway.app.server.address() as { port: number }).port}/api/v1/checkIP/bulk`;
    sim.setFaults({ latencyMs: 400, latencyPath: '/checkIP/bulk' });
    const inFlight = fetch(url, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ ips: [FIXTURES.high.ip] }) });
    while (!sim.requestLog.some((e) => e.path === '/account') && sim.ipLog.all().length === 0) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 100));
    const closing = gateway.close();
    const response = await inFlight;
    expect(response.status).toBe(200);
    expect(((await response.json()) as { results: { data: unknown }[] }).results[0]!.data).not.toBeNull();
    await closing;
    await expect(fetch(url, { method: 'POST' })).rejects.toThrow();
    sim.clearFaults();
  });

  it('after a lost answer, reconciles with /account, does not re-ask blindly, and buys the IP once on the next request', async () => {
    sim.reset();
    const store = openEmbeddedStore({ dir: tempDir(), flushMs: 0 });
    // A clock the test moves: the lost call opens the bulk endpoint's circuit for a backoff step.
    let skew = 0;
    const timers = {
      now: () => Date.now() + skew,
      setTimeout: (callback: () => void, ms: number) => setTimeout(callback, ms),
      clearTimeout: (handle: unknown) => clearTimeout(handle as ReturnType<typeof setTimeout>),
    };
    const { gateway } = await startGateway({ store, upstreamUrl: sim.baseUrl, key: UNLIMITED_KEY, upstream: { timers } });
    const token = await tokenFor(store, 'bob');
    sim.setFaults({ dropConnection: { count: 1, path: '/checkIP/bulk', afterCharge: true } });
    const first = await gateway.app.inject(bulkRequest(token, [FIXTURES.suspicious.ip]));
    expect(first.statusCode).toBe(200);
    expect(first.json().results[0]).toMatchObject({ data: null, error: expect.stringMatching(/^Failed/) });
    expect(sim.requestLog.filter((e) => e.path === '/checkIP/bulk')).toHaveLength(1);
    expect((await gateway.metrics.reconciliations.get()).values[0]?.value).toBe(1);
    // The ledger now holds the server's count, the lost call's unit included.
    expect((await store.getLedger())?.usage).toBe(sim.usage(UNLIMITED_KEY));
    // Asked again at once: the circuit is open, nothing is sent, the analyst is told when to come back.
    const refused = await gateway.app.inject(bulkRequest(token, [FIXTURES.suspicious.ip]));
    expect(refused.statusCode).toBe(503);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(sim.requestLog.filter((e) => e.path === '/checkIP/bulk')).toHaveLength(1);
    // After the open period, the lost IP's one automatic re-ask is the half-open probe.
    skew += 5 * 60_000;
    const second = await gateway.app.inject(bulkRequest(token, [FIXTURES.suspicious.ip]));
    expect(second.json().results[0].data).not.toBeNull();
    const third = await gateway.app.inject(bulkRequest(token, [FIXTURES.suspicious.ip]));
    expect(third.headers['x-cache']).toBe('hit');
    expect(sim.requestLog.filter((e) => e.path === '/checkIP/bulk')).toHaveLength(2);
    await gateway.close();
  });

  it('slows down repeated bad tokens from one address (429 after ten 403s)', async () => {
    const store = openEmbeddedStore({ dir: tempDir(), flushMs: 0 });
    const { gateway } = await startGateway({ store, upstreamUrl: sim.baseUrl, key: UNLIMITED_KEY });
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      statuses.push((await gateway.app.inject({ method: 'GET', url: '/api/v1/account', headers: { 'x-api-key': `guess-${i}` } })).statusCode);
    }
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(403));
    expect(statuses.slice(10)).toEqual([429, 429]);
    await gateway.close();
  });

  it('serves TLS itself with GATEWAY_TLS_CERT and GATEWAY_TLS_KEY', async () => {
    const dir = tempDir();
    const cert = path.join(dir, 'cert.pem');
    const key = path.join(dir, 'key.pem');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
    const config = loadConfig({ GATEWAY_UPSTREAM_KEY: UNLIMITED_KEY, GATEWAY_TLS_CERT: cert, GATEWAY_TLS_KEY: key });
    const store = openEmbeddedStore({ dir, flushMs: 0 });
    const upstream = createUpstream({ baseUrl: sim.baseUrl, apiKey: UNLIMITED_KEY, timeoutMs: 5_000 });
    const gateway = await createGateway({ settings: TEST_SETTINGS, store, upstream, logger: pino({ level: 'silent' }), https: config.tls });
    await gateway.app.listen({ host: '127.0.0.1', port: 0 });
    const port = (gateway.app.server.address() as { port: number }).port;
    const body = await new Promise<string>((resolve, reject) => {
      const req = httpsRequest({ host: '127.0.0.1', port, path: '/healthz', ca: config.tls!.cert }, (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve(text));
      });
      req.on('error', reject);
      req.end();
    });
    expect(JSON.parse(body)).toEqual({ status: 'ok' });
    await gateway.close();
  });
});
