/**
 * The simulator's wire formats and quota accounting, checked with plain fetch (no client), so
 * a bug in the client cannot hide one in the simulator.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FIXTURES } from '../../sim/dataset';
import { DEMO_KEY, EXPIRED_KEY, LOW_QUOTA_KEY, SHARED_QUOTA_KEY, UNLIMITED_KEY } from '../../sim/keys';
import { startSimulator, type Simulator } from '../../sim/server';

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(() => sim.close());
beforeEach(() => sim.reset());

async function call(path: string, init: RequestInit & { key?: string | null; header?: 'bearer' | 'x-api-key' } = {}) {
  const { key = DEMO_KEY, header = 'bearer', ...rest } = init;
  const headers = new Headers(rest.headers);
  if (key !== null) headers.set(header === 'bearer' ? 'Authorization' : 'X-API-Key', header === 'bearer' ? `Bearer ${key}` : key);
  const response = await fetch(`${sim.baseUrl}${path}`, { ...rest, headers });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json: json as Record<string, unknown> };
}

const bulk = (ips: unknown, key: string = DEMO_KEY) =>
  call('/checkIP/bulk', { method: 'POST', key, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ ips }) });

describe('GET /checkIP', () => {
  it('answers a found IP in the documented shape, ipInfo only with detailed=true', async () => {
    const plain = await call(`/checkIP?ip=${FIXTURES.critical.ip}`);
    expect(plain.status).toBe(200);
    expect(plain.headers.get('content-type')).toMatch(/^application\/json/);
    expect(plain.json).toEqual({
      message: 'IP found!',
      description: FIXTURES.critical.description,
      details: {
        score: 95,
        ip: '185.220.101.1',
        last_attack: '2025-11-28T22:14:05.000Z',
        ip_rep: 'known attacker',
        total_hits: 1423,
        whitelist: null,
        whitelist_description: null,
        whitelist_note: null,
        whitelist_value: null,
      },
    });
    const detailed = await call(`/checkIP?ip=${FIXTURES.critical.ip}&detailed=true`);
    expect(detailed.json.ipInfo).toEqual({ ip: '185.220.101.1', ...FIXTURES.critical.ipInfo });
    const notTrue = await call(`/checkIP?ip=${FIXTURES.critical.ip}&detailed=TRUE`);
    expect(notTrue.json).not.toHaveProperty('ipInfo');
  });

  it('answers a whitelisted IP without ip_rep and with last_attack ""', async () => {
    const { json } = await call('/checkIP?ip=1.1.1.1');
    expect(json.message).toBe('IP is whitelisted');
    expect(json.description).toBe('Cloudflare DNS');
    expect(json.details).not.toHaveProperty('ip_rep');
    expect(json.details).toMatchObject({ last_attack: '', whitelist: FIXTURES.whitelisted.whitelist, whitelist_value: '1.1.1.1' });
  });

  it('400s: ip missing and malformed, each costing 1', async () => {
    expect(await call('/checkIP')).toMatchObject({ status: 400, json: { error: true, statusCode: 400, message: 'IP address is required' } });
    expect(await call('/checkIP?ip=127.1')).toMatchObject({ status: 400, json: { error: true, statusCode: 400, message: 'Invalid IP address' } });
    expect(sim.usage(DEMO_KEY)).toBe(2);
  });

  it('404 for an IP not in the database, free', async () => {
    expect(await call('/checkIP?ip=4.2.2.2')).toMatchObject({ status: 404, json: { error: true, statusCode: 404 } });
    expect(sim.usage(DEMO_KEY)).toBe(0);
  });

  it('clean-row mode answers 200 and charges 1', async () => {
    const other = await startSimulator({ notFoundMode: 'clean-row' });
    try {
      const response = await fetch(`${other.baseUrl}/checkIP?ip=4.2.2.2`, { headers: { 'X-API-Key': DEMO_KEY } });
      const json = (await response.json()) as { details: Record<string, unknown> };
      expect(response.status).toBe(200);
      expect(json.details).toMatchObject({ ip: '4.2.2.2', score: 0, total_hits: 0, ip_rep: 'clean', last_attack: '', whitelist: null });
      expect(other.usage(DEMO_KEY)).toBe(1);
    } finally {
      await other.close();
    }
  });
});

describe('POST /checkIP/bulk', () => {
  it('answers one result per requested IP with data or error, and charges found IPs only', async () => {
    const { status, json } = await bulk([FIXTURES.critical.ip, '4.2.2.2', 'nope', FIXTURES.whitelisted.ip, FIXTURES.critical.ip]);
    expect(status).toBe(200);
    expect(json).toMatchObject({ total: 5, successful: 3, failed: 2 });
    const results = json.results as Array<{ ip: string; data: Record<string, unknown> | null; error: string | null }>;
    expect(results.map((r) => r.ip)).toEqual(['185.220.101.1', '4.2.2.2', 'nope', '1.1.1.1', '185.220.101.1']);
    expect(results[0]).toEqual({
      ip: '185.220.101.1',
      data: { threat_score: 95, threat_level: 'CRITICAL', ip: '185.220.101.1', last_attack: '2025-11-28T22:14:05.000Z', ip_rep: 'known attacker', total_hits: 1423, score: 95 },
      error: null,
    });
    expect(results[1]).toEqual({ ip: '4.2.2.2', data: null, error: 'IP not found in database' });
    expect(results[2]).toEqual({ ip: 'nope', data: null, error: 'Invalid IP address' });
    expect(results[3]!.data).toMatchObject({ last_attack: null, whitelist: FIXTURES.whitelisted.whitelist });
    expect(results[3]!.data).not.toHaveProperty('ip_rep');
    expect(sim.usage(DEMO_KEY)).toBe(3);
    expect(sim.requestLog.at(-1)).toMatchObject({ path: '/checkIP/bulk', ips: 5, cost: 3, status: 200 });
  });

  it('refuses more than 100 IPs (and charges the 400)', async () => {
    const ips = Array.from({ length: 101 }, (_, i) => `8.8.${i}.8`);
    expect(await bulk(ips)).toMatchObject({ status: 400, json: { error: true, statusCode: 400, message: 'Maximum 100 IPs per request' } });
    expect((await bulk(ips.slice(0, 100))).status).toBe(200);
    expect(sim.requestLog.map((e) => e.cost)[0]).toBe(1);
  });

  it.each([
    ['no body', undefined, 'application/json'],
    ['not JSON', '{ips:', 'application/json'],
    ['ips not an array', JSON.stringify({ ips: '1.2.3.4' }), 'application/json'],
    ['ips with a number', JSON.stringify({ ips: [1] }), 'application/json'],
    ['empty ips', JSON.stringify({ ips: [] }), 'application/json'],
    ['not declared as JSON', JSON.stringify({ ips: ['1.2.3.4'] }), 'text/plain'],
  ])('400 Invalid request body: %s', async (_, body, contentType) => {
    const response = await call('/checkIP/bulk', { method: 'POST', headers: { 'Content-Type': contentType }, ...(body !== undefined ? { body } : {}) });
    expect(response).toMatchObject({ status: 400, json: { error: true, statusCode: 400, message: 'Invalid request body' } });
  });

  it('405 for GET', async () => {
    expect((await call('/checkIP/bulk')).status).toBe(405);
  });
});

describe('authentication', () => {
  it('accepts both headers; Authorization wins when both are sent', async () => {
    expect((await call('/account', { header: 'x-api-key' })).status).toBe(200);
    expect((await call('/account', { header: 'bearer' })).status).toBe(200);
    await call('/account', { key: EXPIRED_KEY, headers: { 'X-API-Key': DEMO_KEY } });
    expect(sim.requestLog.map((e) => e.auth)).toEqual(['x-api-key', 'authorization', 'authorization']);
    expect(sim.requestLog.at(-1)).toMatchObject({ key: EXPIRED_KEY, status: 403 });
  });

  it('401 with the documented text, and test-key its odd body', async () => {
    expect(await call('/checkIP?ip=8.8.8.8', { key: null })).toMatchObject({
      status: 401,
      json: { error: true, statusCode: 401, message: 'API key required. Provide it via Authorization: Bearer <key> or X-API-Key header.' },
    });
    const testKey = await call('/test-key', { key: null });
    expect(testKey.status).toBe(401);
    expect(testKey.json).toEqual({ statusCode: 401, statusMessage: 'Valid API key required' });
    expect((await call('/checkIP?ip=8.8.8.8', { key: null, headers: { Authorization: 'Bearer ' } })).status).toBe(401);
    expect((await call('/checkIP?ip=8.8.8.8', { key: null, headers: { Authorization: DEMO_KEY } })).status).toBe(401);
  });

  it('403 texts: invalid, expired, usage limit; test-key uses the general body', async () => {
    expect((await call('/test-key', { key: 'wrong' })).json).toEqual({ error: true, statusCode: 403, message: 'Invalid API key' });
    expect((await call('/checkIP?ip=8.8.8.8', { key: EXPIRED_KEY })).json).toMatchObject({ statusCode: 403, message: 'API key expired' });
    sim.setKey(LOW_QUOTA_KEY, { currentUsage: 5 });
    expect((await call('/checkIP?ip=8.8.8.8', { key: LOW_QUOTA_KEY })).json).toMatchObject({ statusCode: 403, message: 'API usage limit exceeded' });
    expect(sim.requestLog.every((e) => e.cost === 0)).toBe(true);
  });
});

describe('quota accounting', () => {
  it('test-key increments and reports the new usage; account is free', async () => {
    const first = await call('/test-key');
    expect(first.json).toMatchObject({
      success: true,
      message: 'API key validation successful! -1 Request',
      organization_id: 'org-soc-demo',
      api_key_info: { uid: 'key-demo-0001', name: 'SOC demo key', current_usage: 1, max_api_requests: 1000, created_at: '2025-03-01T09:00:00.000Z' },
    });
    expect(Date.parse(first.json.timestamp as string)).not.toBeNaN();
    await call('/account');
    await call('/account');
    expect(sim.usage(DEMO_KEY)).toBe(1);
  });

  it('/account reports key and organisation usage', async () => {
    await call(`/checkIP?ip=${FIXTURES.critical.ip}`);
    await call(`/checkIP?ip=${FIXTURES.critical.ip}`, { key: LOW_QUOTA_KEY });
    expect((await call('/account')).json).toEqual({
      counts_toward_quota: false,
      request_cost: 0,
      organization_id: 'org-soc-demo',
      api_key: { uid: 'key-demo-0001', name: 'SOC demo key', current_usage: 1, max_api_requests: 1000, created_at: '2025-03-01T09:00:00.000Z' },
      organization_quota: {
        total_usage: 2,
        total_quota: 100_000,
        current_usage: 2,
        max_api_requests: 100_000,
        allocated_api_key_quota: 1000 + 1000 + 5, // demo, expired, low-quota keys
        available_api_key_quota: 100_000 - 2005,
        source: 'partner_status',
        unlimited: false,
      },
    });
    const unlimited = (await call('/account', { key: UNLIMITED_KEY })).json;
    expect(unlimited.api_key).toMatchObject({ max_api_requests: null });
    expect(unlimited.organization_quota).toMatchObject({ unlimited: true, total_quota: null, available_api_key_quota: null });
  });

  it('the quota is checked before serving; a bulk may overshoot it once', async () => {
    sim.setKey(LOW_QUOTA_KEY, { currentUsage: 4 });
    const { status } = await bulk([FIXTURES.critical.ip, FIXTURES.high.ip, FIXTURES.suspicious.ip], LOW_QUOTA_KEY);
    expect(status).toBe(200);
    expect(sim.usage(LOW_QUOTA_KEY)).toBe(7);
    expect((await bulk([FIXTURES.critical.ip], LOW_QUOTA_KEY)).status).toBe(403);
    // /account still answers at the limit, to show why.
    expect((await call('/account', { key: LOW_QUOTA_KEY })).status).toBe(200);
  });

  it("a key without its own limit is stopped by its organisation's quota", async () => {
    sim.setKey(SHARED_QUOTA_KEY, { currentUsage: 19 });
    expect((await call('/test-key', { key: SHARED_QUOTA_KEY })).status).toBe(200);
    expect((await call('/test-key', { key: SHARED_QUOTA_KEY })).json).toMatchObject({ statusCode: 403, message: 'API usage limit exceeded' });
  });
});

describe('GET /checkSubnet and /export', () => {
  it('lists only found IPs with a summary and charges per found IP', async () => {
    const { status, json } = await call('/checkSubnet?cidr=185.220.101.0/28');
    expect(status).toBe(200);
    const found = Array.from({ length: 14 }, (_, i) => `185.220.101.${i + 1}`).filter((ip) => sim.dataset.lookup(ip));
    expect(json).toMatchObject({ cidr: '185.220.101.0/28', network: '185.220.101.0', broadcast: '185.220.101.15', total_ips: 14 });
    expect((json.results as Array<{ ip: string }>).map((r) => r.ip)).toEqual(found);
    expect((json.results as unknown[])[0]).toEqual({
      ip: '185.220.101.1', threat_score: 95, threat_level: 'CRITICAL', last_attack: '2025-11-28T22:14:05.000Z', ip_rep: 'known attacker', total_hits: 1423,
    });
    expect(json.summary).toMatchObject({ total: 14, found_count: found.length });
    expect(sim.usage(DEMO_KEY)).toBe(found.length);
  });

  it('400s for a missing, malformed or too large block', async () => {
    expect((await call('/checkSubnet')).json).toMatchObject({ statusCode: 400, message: 'CIDR is required' });
    expect((await call('/checkSubnet?cidr=1.2.3.0/33')).json).toMatchObject({ statusCode: 400, message: 'Invalid CIDR notation' });
    expect((await call('/checkSubnet?cidr=1.2.0.0/16')).json).toMatchObject({ statusCode: 400, message: 'Maximum subnet size is /24' });
  });

  it('exports found IPs as JSON or CSV at 1 per exported IP', async () => {
    const ips = [FIXTURES.critical.ip, '4.2.2.2', FIXTURES.high.ip].join(',');
    const json = await call(`/export?ips=${ips}`);
    expect(json.json).toMatchObject({ total: 2 });
    const csv = await call(`/export?ips=${ips}&format=csv`);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(csv.text.split('\n')[0]).toBe('ip,threat_score,threat_level,last_attack,ip_rep,total_hits');
    expect(csv.text).toContain('185.220.101.1,95,CRITICAL,2025-11-28T22:14:05.000Z,"known attacker",1423');
    expect(sim.usage(DEMO_KEY)).toBe(4);
  });
});

describe('outside the endpoints', () => {
  it('an unknown endpoint under the prefix: JSON 404, free', async () => {
    expect(await call('/nope')).toMatchObject({ status: 404, json: { error: true, statusCode: 404 } });
    expect(sim.usage(DEMO_KEY)).toBe(0);
  });

  it('other paths: HTML 404; /captive: HTML 200', async () => {
    const other = await fetch(`${sim.origin}/elsewhere`);
    expect(other.status).toBe(404);
    expect(other.headers.get('content-type')).toMatch(/^text\/html/);
    const captive = await fetch(`${sim.origin}/captive/api/v1/checkIP?ip=1.1.1.1`);
    expect(captive.status).toBe(200);
    expect(captive.headers.get('content-type')).toMatch(/^text\/html/);
  });

  it('answers CORS preflights and adds CORS headers', async () => {
    const preflight = await fetch(`${sim.baseUrl}/checkIP/bulk`, {
      method: 'OPTIONS',
      headers: { Origin: 'http://example.test', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'x-api-key,content-type' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/X-API-Key/);
    expect(preflight.headers.get('access-control-allow-methods')).toMatch(/POST/);
    const normal = await call('/account');
    expect(normal.headers.get('access-control-allow-origin')).toBe('*');
    expect(normal.headers.get('access-control-expose-headers')).toMatch(/Retry-After/);
    expect(sim.requestLog).toHaveLength(1); // preflights are not API requests
  });
});
