/**
 * Contract: every ApiError kind, produced by the real simulator over HTTP, and whether it cost
 * quota or was retried (read from the simulator's request log).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../../lib/api/errors';
import { FIXTURES } from '../../sim/dataset';
import { DEMO_KEY, EXPIRED_KEY, LOW_QUOTA_KEY, SHARED_QUOTA_KEY } from '../../sim/keys';
import { startSimulator, type Simulator } from '../../sim/server';
import { clientFor, closedPort, fetchWithoutKey, requestsTo } from './sim-client';

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(() => sim.close());
beforeEach(() => sim.reset());

async function failure(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

describe('missing-key', () => {
  it('the general 401 body, not retried, free', async () => {
    const error = await failure(clientFor(sim, { fetch: fetchWithoutKey }).checkIp(FIXTURES.critical.ip));
    expect(error.toJSON()).toEqual({
      kind: 'missing-key',
      status: 401,
      message: 'API key required. Provide it via Authorization: Bearer <key> or X-API-Key header.',
    });
    expect(requestsTo(sim, '/checkIP')).toMatchObject([{ status: 401, cost: 0, key: null }]);
  });

  it("test-key's odd 401 body (statusCode + statusMessage)", async () => {
    const error = await failure(clientFor(sim, { fetch: fetchWithoutKey }).testKey());
    expect(error.toJSON()).toEqual({ kind: 'missing-key', status: 401, message: 'Valid API key required' });
  });
});

describe('invalid-key', () => {
  it('an unknown key: 403 Invalid API key, not retried', async () => {
    const error = await failure(clientFor(sim, { apiKey: 'no-such-key' }).checkIpBulk(['8.8.8.8']));
    expect(error.toJSON()).toEqual({ kind: 'invalid-key', status: 403, message: 'Invalid API key' });
    expect(requestsTo(sim, '/checkIP/bulk')).toHaveLength(1);
  });

  it('an expired key', async () => {
    const error = await failure(clientFor(sim, { apiKey: EXPIRED_KEY, authHeader: 'x-api-key' }).account());
    expect(error).toMatchObject({ kind: 'invalid-key', status: 403, message: 'API key expired' });
  });
});

describe('quota-exhausted', () => {
  it("a key's own limit: 403 once usage reaches it, not retried, not charged", async () => {
    const client = clientFor(sim, { apiKey: LOW_QUOTA_KEY });
    for (let i = 0; i < 5; i++) await client.checkIp(FIXTURES.critical.ip);
    const error = await failure(client.checkIp(FIXTURES.critical.ip));
    expect(error.toJSON()).toEqual({ kind: 'quota-exhausted', status: 403, message: 'API usage limit exceeded' });
    expect(requestsTo(sim, '/checkIP')).toHaveLength(6);
    expect(sim.usage(LOW_QUOTA_KEY)).toBe(5);
    // /account stays available to show the user why.
    await expect(client.account()).resolves.toMatchObject({ key: { currentUsage: 5, maxApiRequests: 5 } });
  });

  it("the organisation's quota, for a key without its own limit", async () => {
    sim.setKey(SHARED_QUOTA_KEY, { currentUsage: 20 });
    const error = await failure(clientFor(sim, { apiKey: SHARED_QUOTA_KEY }).testKey());
    expect(error.kind).toBe('quota-exhausted');
  });
});

describe('bad-request', () => {
  it('a malformed IP is refused before any request', async () => {
    const error = await failure(clientFor(sim).checkIp('0x7f.1'));
    expect(error.kind).toBe('bad-request');
    expect(sim.requestLog).toHaveLength(0);
  });

  it("the server's 400 (it costs 1, so it is never retried)", async () => {
    // A proxy mangling the query is the only way a bad IP reaches the server past validation.
    const mangling: typeof fetch = (input, init) => fetch(String(input).replace(/ip=[^&]+/, 'ip=127.1'), init);
    const error = await failure(clientFor(sim, { fetch: mangling }).checkIp('8.8.8.8'));
    expect(error.toJSON()).toEqual({ kind: 'bad-request', status: 400, message: 'Invalid IP address' });
    expect(requestsTo(sim, '/checkIP')).toMatchObject([{ status: 400, cost: 1 }]);
    expect(sim.usage(DEMO_KEY)).toBe(1);
  });
});

describe('not-found', () => {
  it('an endpoint missing on a wrong base URL (HTML 404)', async () => {
    const error = await failure(clientFor(sim, { baseUrl: `${sim.origin}/api/v9` }).account());
    expect(error).toMatchObject({ kind: 'not-found', status: 404 });
    expect(error.message).toBe(`The base URL does not look like this API: ${sim.origin}/api/v9/account answered 404 (404 Not Found).`);
  });

  it('an unknown endpoint below the API prefix (JSON 404), free', async () => {
    const error = await failure(clientFor(sim, { baseUrl: `${sim.baseUrl}/v2` }).account());
    expect(error).toMatchObject({ kind: 'not-found', status: 404 });
    expect(sim.usage(DEMO_KEY)).toBe(0);
  });

  it('checkIP on a wrong base URL is an error, not "IP not found"', async () => {
    const error = await failure(clientFor(sim, { baseUrl: `${sim.origin}/nothing-here` }).checkIp('8.8.8.8'));
    expect(error.kind).toBe('not-found');
  });
});

describe('server', () => {
  it("5xx with an HTML body (a gateway's): maybe billed, so not retried", async () => {
    sim.setFaults({ serverError: { count: 10, status: 502, html: true } });
    const error = await failure(clientFor(sim, { retry: { limit: 2, baseDelayMs: 1, maxDelayMs: 2 } }).checkIp(FIXTURES.critical.ip));
    expect(error.toJSON()).toEqual({ kind: 'server', status: 502, message: '502 Bad Gateway', lostAfterSend: true });
    expect(requestsTo(sim, '/checkIP').map((e) => e.status)).toEqual([502]);
  });

  it('the JSON 500 bodies of the spec', async () => {
    sim.setFaults({ serverError: { count: 10, path: '*' } });
    const client = clientFor(sim, { retry: { limit: 0 } });
    expect((await failure(client.checkIp('8.8.8.8'))).message).toBe('Failed to fetch IP details');
    expect((await failure(client.checkIpBulk(['8.8.8.8']))).message).toBe('Internal server error');
  });
});

describe('network', () => {
  it('nothing listening', async () => {
    const port = await closedPort();
    const error = await failure(clientFor(sim, { baseUrl: `http://127.0.0.1:${port}/api/v1`, retry: { limit: 1, baseDelayMs: 1, maxDelayMs: 1 } }).account());
    expect(error.kind).toBe('network');
  });

  it('a dropped connection: retried for the free /account, not for a paid lookup', async () => {
    sim.setFaults({ dropConnection: { count: 10, path: '*' } });
    const client = clientFor(sim, { retry: { limit: 1, baseDelayMs: 1, maxDelayMs: 1 } });
    expect((await failure(client.account())).kind).toBe('network');
    expect(requestsTo(sim, '/account')).toHaveLength(2);
    expect(await failure(client.checkIp(FIXTURES.critical.ip))).toMatchObject({ kind: 'network', lostAfterSend: true });
    expect(requestsTo(sim, '/checkIP')).toHaveLength(1);
  });
});

describe('timeout', () => {
  it('latency above timeoutMs', async () => {
    sim.setFaults({ latencyMs: 2_000 });
    const error = await failure(clientFor(sim, { timeoutMs: 100 }).checkIp(FIXTURES.critical.ip));
    expect(error.kind).toBe('timeout');
  });
});

describe('bad-response', () => {
  it('invalid JSON in a 200', async () => {
    sim.setFaults({ invalidJson: { count: 1 } });
    const error = await failure(clientFor(sim).checkIp(FIXTURES.critical.ip));
    expect(error).toMatchObject({ kind: 'bad-response', status: 200 });
    expect(requestsTo(sim, '/checkIP')).toHaveLength(1);
  });

  it('an HTML 200 (captive portal / wrong base URL)', async () => {
    const client = clientFor(sim, { baseUrl: `${sim.origin}/captive/api/v1` });
    expect((await failure(client.checkIp('8.8.8.8'))).kind).toBe('bad-response');
    expect((await failure(client.account())).kind).toBe('bad-response');
    expect((await failure(client.checkIpBulk(['8.8.8.8']))).kind).toBe('bad-response');
  });
});

describe('errors from evidence, not guesses', () => {
  let odd: Simulator;
  beforeAll(async () => {
    odd = await startSimulator({ profile: 'odd' });
  });
  afterAll(() => odd.close());
  beforeEach(() => odd.setProfile('odd'));

  it('a 403 "Forbidden" while /account shows the limit reached is the usage limit, quoting the server', async () => {
    odd.setKey(DEMO_KEY, { currentUsage: 1000 });
    const error = await failure(clientFor(odd).checkIpBulk(['8.8.8.8']));
    expect(error.toJSON()).toEqual({ kind: 'quota-exhausted', status: 403, message: 'Usage limit reached (the server said "Forbidden").' });
    expect(requestsTo(odd, '/account')).toHaveLength(1);
  });

  it('a 403 "Forbidden" that /account refuses too is an invalid key', async () => {
    const error = await failure(clientFor(odd, { apiKey: EXPIRED_KEY }).checkIp(FIXTURES.critical.ip));
    expect(error).toMatchObject({ kind: 'invalid-key', message: expect.stringContaining('the server said "Forbidden"') });
  });

  it('a 403 with an unknown text for a key /account accepts is refused, not "invalid key"', async () => {
    const planRefusal: typeof fetch = async (input, init) =>
      String(input).includes('/checkIP/bulk')
        ? new Response(JSON.stringify({ error: true, statusCode: 403, message: 'Your plan does not include bulk lookups' }), { status: 403 })
        : fetch(input, init);
    const error = await failure(clientFor(odd, { fetch: planRefusal }).checkIpBulk(['8.8.8.8']));
    expect(error.toJSON()).toEqual({
      kind: 'refused',
      status: 403,
      message: 'The request was refused although the key is valid (the server said "Your plan does not include bulk lookups").',
    });
  });

  it('checkIP on a missing route (HTML 404) is "not this API", with the URL, never "IP not found"', async () => {
    const error = await failure(clientFor(odd, { baseUrl: `${odd.baseUrl}/v2` }).checkIp('8.8.8.8'));
    expect(error.kind).toBe('not-found');
    expect(error.message).toContain(`does not look like this API: ${odd.baseUrl}/v2/checkIP answered 404`);
  });

  it("checkIP on a missing route (the framework's JSON 404) is \"not this API\" too", async () => {
    odd.setProfile('docs');
    const error = await failure(clientFor(odd, { baseUrl: `${odd.baseUrl}/v2` }).checkIp('8.8.8.8'));
    expect(error).toMatchObject({ kind: 'not-found', message: expect.stringContaining('does not look like this API') });
  });

  it('a redirect is refused with a message naming its target; nothing is billed', async () => {
    sim.setFaults({ redirect: { count: 1, status: 301, location: 'https://user:pw@elsewhere.example/api/v1/checkIP/bulk' } });
    const error = await failure(clientFor(sim).checkIpBulk(['8.8.8.8']));
    expect(error).toMatchObject({ kind: 'redirected', status: 301 });
    expect(error.message).toContain('redirects to https://elsewhere.example/api/v1/checkIP/bulk');
    expect(error.message).not.toContain('pw');
    expect(sim.usage(DEMO_KEY)).toBe(0);
  });
});
