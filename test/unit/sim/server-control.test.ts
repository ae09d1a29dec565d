/** Fault injection, the `/__sim/` admin API and the `/pages/` static server. */
import { request } from 'node:http';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FIXTURES } from '../../sim/dataset';
import { DEMO_KEY, LOW_QUOTA_KEY } from '../../sim/keys';
import { startSimulator, type Simulator } from '../../sim/server';

let sim: Simulator;
let root: string;
let pages: string;
beforeAll(async () => {
  root = mkdtempSync(path.join(tmpdir(), 'sim-pages-'));
  pages = path.join(root, 'pages');
  mkdirSync(path.join(pages, 'siem'), { recursive: true });
  writeFileSync(path.join(root, 'secret.txt'), 'secret');
  writeFileSync(path.join(pages, 'siem', 'index.html'), '<!doctype html><p>185.220.101.1</p>');
  writeFileSync(path.join(pages, 'app.js'), 'console.log(1)');
  writeFileSync(path.join(pages, 'style.css'), 'p{}');
  writeFileSync(path.join(pages, 'data.json'), '{}');
  sim = await startSimulator({ staticDir: pages });
});
afterAll(async () => {
  await sim.close();
  rmSync(root, { recursive: true, force: true });
});
beforeEach(() => sim.reset());

const lookup = (ip: string = FIXTURES.critical.ip, path = '/checkIP') =>
  fetch(`${sim.baseUrl}${path}?ip=${ip}`, { headers: { 'X-API-Key': DEMO_KEY } });
function rawStatus(requestPath: string): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const req = request(`${sim.origin}${requestPath}`, (res) => {
      res.resume();
      resolve(res.statusCode);
    });
    req.path = requestPath; // keep the dots the URL parser would have removed
    req.on('error', reject);
    req.end();
  });
}
const admin = (route: string, init: RequestInit = {}) => fetch(`${sim.origin}/__sim/${route}`, init);
const post = (route: string, body: unknown) =>
  admin(route, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

describe('faults', () => {
  it('rateLimit: the next N lookups answer 429, with Retry-After when set, then normal service', async () => {
    sim.setFaults({ rateLimit: { count: 2, retryAfterSeconds: 7 } });
    const first = await lookup();
    expect(first.status).toBe(429);
    expect(first.headers.get('retry-after')).toBe('7');
    expect(await first.json()).toEqual({ error: true, statusCode: 429, message: 'Rate limit exceeded' });
    expect((await lookup()).status).toBe(429);
    expect((await lookup()).status).toBe(200);
  });

  it('rateLimit without Retry-After, and as an HTTP date', async () => {
    sim.setFaults({ rateLimit: { count: 1 } });
    expect((await lookup()).headers.get('retry-after')).toBeNull();
    sim.setFaults({ rateLimit: { count: 1, retryAfterSeconds: 30, retryAfterAsDate: true } });
    const dated = (await lookup()).headers.get('retry-after')!;
    expect(dated).toMatch(/GMT$/);
    expect(Date.parse(dated)).toBeGreaterThan(Date.now());
  });

  it('applies to lookup endpoints by default, or to the given path', async () => {
    const account = () => fetch(`${sim.baseUrl}/account`, { headers: { 'X-API-Key': DEMO_KEY } });
    sim.setFaults({ rateLimit: { count: 5 } });
    expect((await account()).status).toBe(200);
    expect((await lookup()).status).toBe(429);

    sim.clearFaults();
    sim.setFaults({ rateLimit: { count: 1, path: '/checkIP/bulk' }, serverError: { count: 1, path: '/account' } });
    expect((await lookup()).status).toBe(200);
    expect((await account()).status).toBe(500);
    expect(sim.faults().rateLimit).toEqual({ count: 1, path: '/checkIP/bulk' });
  });

  it('never hits a request refused at the door', async () => {
    sim.setFaults({ serverError: { count: 1 } });
    expect((await fetch(`${sim.baseUrl}/checkIP?ip=8.8.8.8`)).status).toBe(401);
    expect((await lookup()).status).toBe(500);
  });

  it('serverError: an HTML page or the JSON body, free', async () => {
    sim.setFaults({ serverError: { count: 1, status: 503, html: true } });
    const html = await lookup();
    expect(html.status).toBe(503);
    expect(html.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await html.text()).toContain('<title>503 Service Unavailable</title>');
    sim.setFaults({ serverError: { count: 1 } });
    expect(await (await lookup()).json()).toEqual({ error: true, statusCode: 500, message: 'Failed to fetch IP details' });
    expect(sim.usage(DEMO_KEY)).toBe(0);
  });

  it('invalidJson: a 200 whose body does not parse', async () => {
    sim.setFaults({ invalidJson: { count: 1 } });
    const response = await lookup();
    expect(response.status).toBe(200);
    await expect(response.json()).rejects.toThrow();
  });

  it('dropConnection: no answer at all, logged as status 0', async () => {
    sim.setFaults({ dropConnection: { count: 1 } });
    await expect(lookup()).rejects.toThrow();
    expect(sim.requestLog.at(-1)).toMatchObject({ status: 0, fault: 'dropConnection', cost: 0 });
    expect((await lookup()).status).toBe(200);
  });

  it('latency delays the answer but not its content', async () => {
    sim.setFaults({ latencyMs: 30 });
    expect((await lookup()).status).toBe(200);
    expect(sim.faults()).toEqual({ latencyMs: 30 });
  });

  it('reset clears faults, usage and the log', async () => {
    sim.setFaults({ rateLimit: { count: 3 } });
    sim.setKey(DEMO_KEY, { currentUsage: 10 });
    await lookup();
    sim.reset();
    expect(sim.faults()).toEqual({});
    expect(sim.usage(DEMO_KEY)).toBe(0);
    expect(sim.requestLog).toHaveLength(0);
  });
});

describe('/__sim/ admin API', () => {
  it('state reports keys with usage, totals and the request log', async () => {
    await lookup();
    await lookup('4.2.2.2');
    const state = (await (await admin('state')).json()) as {
      baseUrl: string;
      keys: Array<{ key: string }>;
      totals: unknown;
      requestLog: Array<{ status: number }>;
      organizations: Array<{ id: string }>;
    };
    expect(state.baseUrl).toBe(sim.baseUrl);
    expect(state.keys.find((k) => k.key === DEMO_KEY)).toMatchObject({ currentUsage: 1, maxApiRequests: 1000, name: 'SOC demo key' });
    expect(state.totals).toEqual({ requests: 2, cost: 1, byPath: { '/checkIP': { requests: 2, cost: 1 } } });
    expect(state.requestLog.map((e) => e.status)).toEqual([200, 404]);
    expect(state.organizations.find((o) => o.id === 'org-soc-demo')).toMatchObject({ usage: 1 });
  });

  it('faults can be set, merged, cleared', async () => {
    await post('faults', { rateLimit: { count: 1 } });
    await post('faults', { invalidJson: { count: 1 } });
    expect(sim.faults()).toEqual({ rateLimit: { count: 1 }, invalidJson: { count: 1 } });
    await post('faults', { clear: true, latencyMs: 5 });
    expect(sim.faults()).toEqual({ latencyMs: 5 });
    await admin('faults', { method: 'DELETE' });
    expect(sim.faults()).toEqual({});
    await post('faults', { rateLimit: { count: 1 } });
    expect((await lookup()).status).toBe(429);
  });

  it('keys can be changed and created', async () => {
    const changed = await post('keys', { key: LOW_QUOTA_KEY, currentUsage: 5 });
    expect(((await changed.json()) as { key: unknown }).key).toMatchObject({ key: LOW_QUOTA_KEY, currentUsage: 5 });
    expect(sim.usage(LOW_QUOTA_KEY)).toBe(5);
    await post('keys', { key: 'e2e-key', maxApiRequests: 2, name: 'E2E' });
    const ok = await fetch(`${sim.baseUrl}/test-key`, { headers: { Authorization: 'Bearer e2e-key' } });
    expect(await ok.json()).toMatchObject({ api_key_info: { name: 'E2E', current_usage: 1, max_api_requests: 2 } });
    expect((await post('keys', { currentUsage: 1 })).status).toBe(400);
  });

  it('reset', async () => {
    await lookup();
    expect((await post('reset', {})).status).toBe(200);
    expect(sim.requestLog).toHaveLength(0);
    expect(sim.usage(DEMO_KEY)).toBe(0);
  });

  it('is never logged nor charged', async () => {
    await admin('state');
    expect(sim.requestLog).toHaveLength(0);
  });
});

describe('/pages/', () => {
  it.each([
    ['siem/', 'text/html'],
    ['siem/index.html', 'text/html'],
    ['app.js', 'text/javascript'],
    ['style.css', 'text/css'],
    ['data.json', 'application/json'],
  ])('serves %s as %s', async (file, type) => {
    const response = await fetch(`${sim.origin}/pages/${file}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(new RegExp(`^${type}`));
  });

  it('never serves outside its folder, and 404s missing files', async () => {
    const relative = `..%2fpages%2f..%2fsecret.txt`; // encoded slashes survive URL parsing
    expect((await fetch(`${sim.origin}/pages/nope.html`)).status).toBe(404);
    expect((await fetch(`${sim.origin}/pages/${relative}`)).status).toBe(404);
    // fetch normalises `/../` itself; a raw request sends it as is.
    expect(await rawStatus('/pages/../secret.txt')).toBe(404);
    expect(await rawStatus('/pages/siem/../app.js')).toBe(200);
  });
});
