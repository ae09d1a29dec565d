/**
 * Contract: the retry rules against the simulator's faults, asserted through its request log
 * (never through elapsed time: the machine is shared).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FIXTURES } from '../../sim/dataset';
import { DEMO_KEY, EXPIRED_KEY } from '../../sim/keys';
import { startSimulator, type Simulator } from '../../sim/server';
import { clientFor, fetchWithoutKey, requestsTo } from './sim-client';

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(() => sim.close());
beforeEach(() => sim.reset());

describe('retried', () => {
  it('429 without Retry-After: backs off and succeeds', async () => {
    sim.setFaults({ rateLimit: { count: 2 } });
    const answer = await clientFor(sim).checkIp(FIXTURES.critical.ip);
    expect(answer.status).toBe('found');
    expect(requestsTo(sim, '/checkIP').map((e) => e.status)).toEqual([429, 429, 200]);
  });

  it('429 with Retry-After in seconds: waits and succeeds', async () => {
    sim.setFaults({ rateLimit: { count: 1, retryAfterSeconds: 1 } });
    const answer = await clientFor(sim).checkIp(FIXTURES.critical.ip);
    expect(answer.status).toBe('found');
    expect(requestsTo(sim, '/checkIP').map((e) => e.status)).toEqual([429, 200]);
  });

  it('429 with Retry-After as an HTTP date', async () => {
    sim.setFaults({ rateLimit: { count: 1, retryAfterSeconds: 1, retryAfterAsDate: true } });
    await expect(clientFor(sim).checkIp(FIXTURES.critical.ip)).resolves.toMatchObject({ status: 'found' });
    expect(requestsTo(sim, '/checkIP')).toHaveLength(2);
  });

  it('a Retry-After beyond maxRetryAfterMs is not waited for: rate-limited with retryAfterMs', async () => {
    sim.setFaults({ rateLimit: { count: 5, retryAfterSeconds: 120 } });
    await expect(clientFor(sim).checkIpBulk([FIXTURES.critical.ip])).rejects.toMatchObject({
      kind: 'rate-limited',
      status: 429,
      message: 'Rate limit exceeded',
      retryAfterMs: 120_000,
    });
    expect(requestsTo(sim, '/checkIP/bulk')).toHaveLength(1);
  });

  it('POST bulk is retried on 429, 5xx and dropped connections', async () => {
    sim.setFaults({ rateLimit: { count: 1 }, serverError: { count: 1, html: true }, dropConnection: { count: 1 } });
    const result = await clientFor(sim).checkIpBulk([FIXTURES.critical.ip, FIXTURES.high.ip]);
    expect(result.items.map((i) => i.status)).toEqual(['found', 'found']);
    expect(result.requests).toBe(1); // one chunk, however many attempts
    expect(requestsTo(sim, '/checkIP/bulk').map((e) => e.fault ?? e.status)).toEqual(['dropConnection', 'serverError', 'rateLimit', 200]);
  });

  it('attempts are bounded: limit 2 means 3 requests, then the last error', async () => {
    sim.setFaults({ rateLimit: { count: 10 } });
    await expect(clientFor(sim, { retry: { limit: 2, baseDelayMs: 1, maxDelayMs: 1 } }).checkIp(FIXTURES.critical.ip)).rejects.toMatchObject({
      kind: 'rate-limited',
    });
    expect(requestsTo(sim, '/checkIP')).toHaveLength(3);
  });

  it('every 429 costs 1, as every 4xx except 404 does', async () => {
    sim.setFaults({ rateLimit: { count: 2 } });
    await clientFor(sim).checkIp(FIXTURES.critical.ip);
    expect(sim.usage(DEMO_KEY)).toBe(3);
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

  it('a timeout', async () => {
    sim.setFaults({ latencyMs: 2_000 });
    await expect(clientFor(sim, { timeoutMs: 100 }).account()).rejects.toMatchObject({ kind: 'timeout' });
    sim.clearFaults();
    // The abandoned request may still be logged when its latency ends; it was asked once.
    expect(requestsTo(sim, '/account').length).toBeLessThanOrEqual(1);
  });
});
