/** The answer profiles (profiles.ts) and the faults that model answers lost after billing. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FIXTURES, NOT_FOUND_IPS } from '../../sim/dataset';
import { DEMO_KEY } from '../../sim/keys';
import { POOL_SIBLING_KEY } from '../../sim/profiles';
import { startSimulator, type Simulator } from '../../sim/server';

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(() => sim.close());
beforeEach(() => sim.setProfile('spec'));

const headers = { 'X-API-Key': DEMO_KEY, 'Content-Type': 'application/json' };
const bulk = (ips: string[]) =>
  fetch(`${sim.baseUrl}/checkIP/bulk`, { method: 'POST', headers, body: JSON.stringify({ ips }), redirect: 'manual' });
const get = (path: string) => fetch(`${sim.baseUrl}${path}`, { headers, redirect: 'manual' });
type Rows = { results: Array<{ ip: string | null; data: Record<string, unknown> | null; error: string | null }>; failed: number };

describe('profiles', () => {
  it('docs: zero-hit data rows (free), whitelisted rows by ip_rep and a nested object, ipInfo always without isp', async () => {
    sim.setProfile('docs');
    const body = (await (await bulk([NOT_FOUND_IPS[0], FIXTURES.whitelisted.ip])).json()) as Rows;
    expect(body.failed).toBe(0);
    expect(body.results[0]).toEqual({
      ip: '4.2.2.2',
      data: { threat_score: 10, threat_level: 'LOW', last_attack: null, ip_rep: 'clean', total_hits: 0, score: 10, ip: '4.2.2.2' },
      error: null,
    });
    expect(body.results[1]!.data).toMatchObject({ ip_rep: 'whitelisted', whitelist: { value: '1.1.1.1', range: '1.1.1.1/32' } });
    expect(body.results[1]!.data).not.toHaveProperty('whitelist_description');
    expect(sim.usage(DEMO_KEY)).toBe(1); // the whitelisted IP is in the database; the zero-hit row is not

    const single = (await (await get(`/checkIP?ip=${FIXTURES.high.ip}`)).json()) as { ipInfo: Record<string, string> };
    expect(single.ipInfo).toMatchObject({ asn: 'AS396507' });
    expect(single.ipInfo).not.toHaveProperty('isp');
    expect((await get('/checkIP?ip=9.9.9.9')).status).toBe(200); // clean row

    const missing = await get('/nope');
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ statusCode: 404, statusMessage: expect.stringContaining('Page Not Found') });
  });

  it('odd: other not-found text, flat whitelist fields only, rows with ip null and score "n/a", "Forbidden", HTML 404', async () => {
    sim.setProfile('odd');
    const body = (await (await bulk([NOT_FOUND_IPS[1], NOT_FOUND_IPS[0], FIXTURES.low.ip, FIXTURES.whitelisted.ip])).json()) as Rows;
    expect(body.results[0]).toEqual({ ip: '9.9.9.9', data: null, error: 'No threat intelligence for this address' });
    expect(body.results[1]).toMatchObject({ ip: null, data: null });
    expect(body.results[2]!.data).toMatchObject({ score: 'n/a', threat_score: 'n/a', threat_level: 'LOW' });
    expect(body.results[3]!.data).toMatchObject({ whitelist: null, whitelist_value: '1.1.1.1' });
    sim.setKey(DEMO_KEY, { currentUsage: 1000 });
    expect(await (await get(`/checkIP?ip=${FIXTURES.high.ip}`)).json()).toMatchObject({ statusCode: 403, message: 'Forbidden' });
    const missing = await get('/nope');
    expect([missing.status, missing.headers.get('content-type')]).toEqual([404, 'text/html; charset=utf-8']);
  });

  it('org-pool: the key has no own limit; available = total - allocated; the pool is what runs out', async () => {
    sim.setProfile('org-pool');
    sim.setKey(POOL_SIBLING_KEY, { currentUsage: 100 });
    sim.setKey(DEMO_KEY, { currentUsage: 850 });
    const account = (await (await get('/account')).json()) as Record<string, Record<string, unknown>>;
    expect(account.api_key).toMatchObject({ max_api_requests: null, current_usage: 850 });
    expect(account.organization_quota).toMatchObject({
      total_quota: 1000,
      total_usage: 950,
      allocated_api_key_quota: 300,
      available_api_key_quota: 700,
      unlimited: false,
    });
    sim.setKey(DEMO_KEY, { currentUsage: 900 });
    expect((await get(`/checkIP?ip=${FIXTURES.high.ip}`)).status).toBe(403);
  });

  it('a profile can be chosen at start and through the admin endpoint', async () => {
    const docs = await startSimulator({ profile: 'docs' });
    try {
      expect(docs.profile).toBe('docs');
      const response = await fetch(`${docs.origin}/__sim/profile`, { method: 'POST', body: JSON.stringify({ name: 'odd' }) });
      expect(await response.json()).toEqual({ profile: 'odd' });
      expect(docs.profile).toBe('odd');
      const bad = await fetch(`${docs.origin}/__sim/profile`, { method: 'POST', body: JSON.stringify({ name: 'nope' }) });
      expect(bad.status).toBe(400);
    } finally {
      await docs.close();
    }
  });
});

describe('faults that lose a billed answer, and odd 429s and redirects', () => {
  it('a gateway 502 after charging: billed, and logged with its cost', async () => {
    sim.setFaults({ serverError: { count: 1, status: 502, html: true, afterCharge: true } });
    const response = await bulk([FIXTURES.critical.ip, FIXTURES.high.ip, NOT_FOUND_IPS[0]]);
    expect(response.status).toBe(502);
    expect(sim.usage(DEMO_KEY)).toBe(2);
    expect(sim.requestLog.at(-1)).toMatchObject({ status: 502, cost: 2, fault: 'serverError' });
  });

  it('a connection reset after charging', async () => {
    sim.setFaults({ dropConnection: { count: 1, afterCharge: true } });
    await expect(bulk([FIXTURES.critical.ip])).rejects.toThrow();
    expect(sim.usage(DEMO_KEY)).toBe(1);
  });

  it('every: fires on every n-th matching request only', async () => {
    sim.setFaults({ rateLimit: { count: 10, every: 3, retryAfterSeconds: 0 } });
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await get(`/checkIP?ip=${FIXTURES.high.ip}`)).status);
    expect(statuses).toEqual([200, 200, 429, 200, 200, 429]);
    expect(sim.requestLog.filter((e) => e.status === 429)).toHaveLength(2);
  });

  it('429 as text/plain, with Retry-After: 0', async () => {
    sim.setFaults({ rateLimit: { count: 1, plainText: true, retryAfterSeconds: 0 } });
    const response = await get(`/checkIP?ip=${FIXTURES.high.ip}`);
    expect([response.status, response.headers.get('retry-after'), response.headers.get('content-type')]).toEqual([
      429,
      '0',
      'text/plain; charset=utf-8',
    ]);
    expect(await response.text()).toMatch(/too many requests/i);
  });

  it('a 308 redirect naming its target, free', async () => {
    sim.setFaults({ redirect: { count: 1, status: 308, location: 'https://elsewhere.example/api/v1/checkIP/bulk' } });
    const response = await bulk([FIXTURES.critical.ip]);
    expect([response.status, response.headers.get('location')]).toEqual([308, 'https://elsewhere.example/api/v1/checkIP/bulk']);
    expect(sim.usage(DEMO_KEY)).toBe(0);
  });
});
