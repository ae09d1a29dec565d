/**
 * Contract: the retry rules against the simulator's faults, asserted through its request log
 * (never through elapsed time: the machine is shared). A paid call (checkIP, bulk, test-key)
 * is retried only when the failure provably cost nothing; a 429 (billed) and an answer lost
 * after sending (maybe billed) go back to the lookup engine, which books them.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FIXTURES } from '../../sim/dataset';
import { DEMO_KEY, EXPIRED_KEY } from '../../sim/keys';
import { startSimulator, type Simulator } from '../../sim/server';
import { clientFor, closedPort, fetchWithoutKey, requestsTo } from './sim-client';

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(() => sim.close());
beforeEach(() => sim.reset());

describe('free calls (/account) are retried', () => {
  it('429 without Retry-After: backs off and succeeds', async () => {
    sim.setFaults({ rateLimit: { count: 2, path: '/account' } });
    await expect(clientFor(sim).account()).resolves.toMatchObject({ key: { name: 'SOC demo key' } });
    expect(requestsTo(sim, '/account').map((e) => e.status)).toEqual([429, 429, 200]);
  });

  it('429 with Retry-After in seconds, and as an HTTP date', async () => {
    sim.setFaults({ rateLimit: { count: 1, retryAfterSeconds: 1, path: '/account' } });
    await clientFor(sim).account();
    sim.setFaults({ rateLimit: { count: 1, retryAfterSeconds: 1, retryAfterAsDate: true, path: '/account' } });
    await clientFor(sim).account();
    expect(requestsTo(sim, '/account').map((e) => e.status)).toEqual([429, 200, 429, 200]);
  });

  it('Retry-After: 0 is no burst: the next attempt waits at least the backoff base', async () => {
    sim.setFaults({ rateLimit: { count: 3, retryAfterSeconds: 0, path: '/account' } });
    await clientFor(sim, { retry: { limit: 3, baseDelayMs: 150, maxDelayMs: 150, maxRetryAfterMs: 5_000, maxElapsedMs: 15_000 } }).account();
    const times = requestsTo(sim, '/account').map((e) => e.time);
    expect(times).toHaveLength(4);
    // A lower bound only: a busy machine makes the gaps longer, never shorter.
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(140);
  });

  it('attempts are bounded: limit 2 means 3 requests, then the last error', async () => {
    sim.setFaults({ rateLimit: { count: 10, path: '/account' } });
    await expect(clientFor(sim, { retry: { limit: 2, baseDelayMs: 1, maxDelayMs: 1 } }).account()).rejects.toMatchObject({ kind: 'rate-limited' });
    expect(requestsTo(sim, '/account')).toHaveLength(3);
  });

  it('a Retry-After beyond maxRetryAfterMs is not waited for: rate-limited with retryAfterMs', async () => {
    sim.setFaults({ rateLimit: { count: 5, retryAfterSeconds: 120, path: '/account' } });
    await expect(clientFor(sim).account()).rejects.toMatchObject({ kind: 'rate-limited', status: 429, retryAfterMs: 120_000 });
    expect(requestsTo(sim, '/account')).toHaveLength(1);
  });
});

describe('paid calls are not retried blindly', () => {
  it('a 429 is billed and handed back at once, with its Retry-After and the server words', async () => {
    sim.setFaults({ rateLimit: { count: 5, retryAfterSeconds: 0 } });
    await expect(clientFor(sim).checkIp(FIXTURES.critical.ip)).rejects.toMatchObject({ kind: 'rate-limited', retryAfterMs: 0 });
    await expect(clientFor(sim).checkIpBulk([FIXTURES.critical.ip])).rejects.toMatchObject({ kind: 'rate-limited', message: 'Rate limit exceeded' });
    expect(sim.requestLog.map((e) => e.status)).toEqual([429, 429]);
    expect(sim.usage(DEMO_KEY)).toBe(2); // every 429 costs 1, as every 4xx except 404 does
  });

  it('a text/plain 429 keeps the server words', async () => {
    sim.setFaults({ rateLimit: { count: 1, plainText: true } });
    await expect(clientFor(sim).checkIpBulk([FIXTURES.critical.ip])).rejects.toMatchObject({
      kind: 'rate-limited',
      message: 'Too many requests: slow down and retry in a minute.',
    });
  });

  it.each([
    ['a gateway 502 after charging', { serverError: { count: 5, status: 502, html: true, afterCharge: true } }, 'server'],
    ['a connection reset after charging', { dropConnection: { count: 5, afterCharge: true } }, 'network'],
    ['a connection reset', { dropConnection: { count: 5 } }, 'network'],
  ] as const)('%s: one request, lostAfterSend', async (_name, faults, kind) => {
    sim.setFaults(faults);
    await expect(clientFor(sim).checkIpBulk([FIXTURES.critical.ip, FIXTURES.high.ip])).rejects.toMatchObject({ kind, lostAfterSend: true });
    expect(requestsTo(sim, '/checkIP/bulk')).toHaveLength(1);
  });

  it('a timeout: lostAfterSend, not retried', async () => {
    sim.setFaults({ latencyMs: 1_000 });
    await expect(clientFor(sim, { timeoutMs: 100 }).checkIp(FIXTURES.critical.ip)).rejects.toMatchObject({ kind: 'timeout', lostAfterSend: true });
    sim.clearFaults();
    expect(requestsTo(sim, '/checkIP').length).toBeLessThanOrEqual(1);
  });

  it("the service's own JSON 500 is not billed: retried", async () => {
    sim.setFaults({ serverError: { count: 1 } });
    const result = await clientFor(sim).checkIpBulk([FIXTURES.critical.ip]);
    expect(result.items[0]!.status).toBe('found');
    expect(requestsTo(sim, '/checkIP/bulk').map((e) => e.status)).toEqual([500, 200]);
  });

  it('a connection refused never reached the server: retried as before', async () => {
    const port = await closedPort();
    let calls = 0;
    const counting: typeof fetch = (input, init) => {
      calls++;
      return fetch(input, init);
    };
    const client = clientFor(sim, { baseUrl: `http://127.0.0.1:${port}/api/v1`, fetch: counting, retry: { limit: 2, baseDelayMs: 1, maxDelayMs: 1 } });
    await expect(client.checkIpBulk([FIXTURES.critical.ip])).rejects.toMatchObject({ kind: 'network' });
    expect(calls).toBe(3);
  });
});

describe('never retried', () => {
  it('400 from the server', async () => {
    const mangling: typeof fetch = (input, init) => fetch(String(input).replace(/ip=[^&]+/, 'ip=1.2.3'), init);
    await expect(clientFor(sim, { fetch: mangling }).checkIp('8.8.8.8')).rejects.toMatchObject({ kind: 'bad-request' });
    expect(requestsTo(sim, '/checkIP')).toHaveLength(1);
  });

  it('401', async () => {
    await expect(clientFor(sim, { fetch: fetchWithoutKey }).account()).rejects.toMatchObject({ kind: 'missing-key' });
    expect(requestsTo(sim, '/account')).toHaveLength(1);
  });

  it('403', async () => {
    await expect(clientFor(sim, { apiKey: EXPIRED_KEY }).checkIpBulk(['8.8.8.8'])).rejects.toMatchObject({ kind: 'invalid-key' });
    expect(requestsTo(sim, '/checkIP/bulk')).toHaveLength(1);
  });

  it('a redirect', async () => {
    sim.setFaults({ redirect: { count: 5, status: 308, location: 'https://elsewhere.example/api/v1/checkIP/bulk' } });
    await expect(clientFor(sim).checkIpBulk(['8.8.8.8'])).rejects.toMatchObject({ kind: 'redirected' });
    expect(requestsTo(sim, '/checkIP/bulk')).toHaveLength(1);
  });
});
