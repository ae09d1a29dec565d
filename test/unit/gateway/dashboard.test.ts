/**
 * The team dashboard's data: per-day counters in both stores (the embedded one and a real
 * redis-server), the summary endpoint's numbers against lookups this test sends through the
 * gateway, its refusals, the page's security headers, and /account's additive team fields.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient } from '../../../lib/api';
import { ADMIN_MESSAGES } from '../../../gateway/src/dashboard/admin-auth';
import { DASHBOARD_CSP } from '../../../gateway/src/dashboard/routes';
import { summarySchema, type Summary } from '../../../gateway/src/dashboard/summary-schema';
import { openEmbeddedStore } from '../../../gateway/src/store/embedded-store';
import { openRedisStore } from '../../../gateway/src/store/redis-store';
import { dayOf, type Store } from '../../../gateway/src/store/types';
import { hashToken } from '../../../gateway/src/tokens';
import { FIXTURES, NOT_FOUND_IPS } from '../../sim/dataset';
import { DEMO_KEY } from '../../sim/keys';
import { startSimulator, type Simulator } from '../../sim/server';
import { startGateway, tokenFor, type Harness } from './gateway-harness';
import { cleanup, startRedis, type RedisProcess } from './redis-servers';

const ADMIN_TOKEN = 'admin-token-for-tests-0123456789abcdef';
const DASHBOARD = { adminTokenHash: hashToken(ADMIN_TOKEN), adminGroup: null, historyDays: 30 };
const DAY = 24 * 3600_000;

describe.each([
  ['embedded', false],
  ['redis', true],
] as const)('per-day counters in the %s store', (_kind, redis) => {
  let store: Store;
  let server: RedisProcess | null = null;
  let dir: string;
  let clock = Date.parse('2026-03-10T12:00:00Z');

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'gw-days-'));
    if (redis) {
      server = await startRedis();
      store = await openRedisStore({ urls: [server.url] });
    } else {
      store = openEmbeddedStore({ dir, flushMs: 0, now: () => clock });
    }
  });
  afterAll(async () => {
    await store.close();
    await server?.stop();
    cleanup(dir);
  });

  it('adds counters, overwrites snapshots, and leaves days nobody wrote absent', async () => {
    await store.addDayStats('2026-03-10', { paid: 3, saved: 0, 'u:alice': 3 }, {}, 30 * DAY);
    await store.addDayStats('2026-03-10', { paid: 2, saved: 4, 'u:bob': 2 }, { quotaUsed: 10 }, 30 * DAY);
    await store.addDayStats('2026-03-10', {}, { quotaUsed: 12 }, 30 * DAY);
    const stats = await store.dayStats(['2026-03-09', '2026-03-10']);
    expect(stats.has('2026-03-09')).toBe(false);
    expect(stats.get('2026-03-10')).toEqual({ paid: 5, saved: 4, 'u:alice': 3, 'u:bob': 2, quotaUsed: 12 });
  });

  it('forgets a day after its retention', async () => {
    await store.addDayStats('2026-01-01', { paid: 1 }, {}, redis ? 150 : DAY);
    if (redis) await new Promise((r) => setTimeout(r, 300));
    else clock += DAY + 1;
    expect((await store.dayStats(['2026-01-01'])).size).toBe(0);
  });

  it('lists the replicas that beat within their time to live, and forgets the silent ones', async () => {
    const at = clock;
    await store.beat({ id: 'a', host: 'h1', startedAt: at - 5000, seenAt: at }, 30_000);
    await store.beat({ id: 'b', host: 'h2', startedAt: at - 5000, seenAt: at - 40_000 }, 30_000);
    expect((await store.replicas(at)).map((r) => r.id)).toEqual(['a']);
    expect(await store.replicas(at + 31_000)).toEqual([]);
  });
});

describe('the dashboard summary through the gateway', () => {
  let sim: Simulator;
  let store: Store;
  let harness: Harness;
  let origin: string;
  let dir: string;
  let alice: string;
  let bob: string;

  beforeAll(async () => {
    sim = await startSimulator();
    dir = mkdtempSync(path.join(tmpdir(), 'gw-dash-'));
    store = openEmbeddedStore({ dir, flushMs: 0 });
    harness = await startGateway({ store, upstreamUrl: sim.baseUrl, key: DEMO_KEY, dashboard: DASHBOARD });
    await harness.gateway.app.listen({ host: '127.0.0.1', port: 0 });
    origin = `http://127.0.0.1:${(harness.gateway.app.server.address() as { port: number }).port}`;
    alice = await tokenFor(store, 'alice', { budget: 50 });
    bob = await tokenFor(store, 'bob');
  });
  afterAll(async () => {
    await harness.gateway.close();
    await sim.close();
    cleanup(dir);
  });

  const bulk = (token: string, ips: string[]) =>
    fetch(`${origin}/api/v1/checkIP/bulk`, { method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ ips }) });
  const summary = async (credential: string | null, query = '') => {
    const response = await fetch(`${origin}/dashboard/api/summary${query}`, credential ? { headers: { Authorization: `Bearer ${credential}` } } : {});
    return { response, body: (await response.json()) as unknown };
  };

  it('counts what the team paid, what the cache saved, the hit rate and each analyst against the upstream log', async () => {
    const ips = [FIXTURES.critical.ip, FIXTURES.whitelisted.ip, NOT_FOUND_IPS[0]!, FIXTURES.ipv6.ip];
    sim.reset();
    expect((await bulk(alice, ips)).status).toBe(200);
    expect((await bulk(bob, ips)).status).toBe(200);
    expect((await fetch(`${origin}/api/v1/checkIP?ip=${FIXTURES.critical.ip}`, { headers: { 'X-API-Key': bob } })).status).toBe(200);
    const charged = sim.requestLog.filter((e) => e.path !== '/account').reduce((total, e) => total + (e.cost ?? 0), 0);
    // Sightings are the sightings feature's to record; the dashboard ranks what the store holds.
    const at = Date.now();
    await store.recordSightings(
      [
        { ip: FIXTURES.critical.ip, analyst: 'alice', at },
        { ip: FIXTURES.critical.ip, analyst: 'bob', at },
        { ip: FIXTURES.whitelisted.ip, analyst: 'alice', at },
      ],
      at - 30 * DAY,
      30 * DAY,
    );

    const { response, body } = await summary(ADMIN_TOKEN);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const s: Summary = summarySchema.parse(body);
    const today = s.days.find((d) => d.day === dayOf(Date.now()))!;
    // Three of the four IPs are found: alice paid 3 (what the simulator charged); bob's four
    // answers and his single lookup came from the cache, the three found ones plus one saved units.
    expect(charged).toBe(3);
    expect(today).toMatchObject({ paid: 3, saved: 4, hits: 5, misses: 4 });
    expect(s.totals).toMatchObject({ paid: 3, saved: 4, hits: 5, misses: 4 });
    expect(s.totals.hitRate).toBeCloseTo(5 / 9, 6);
    expect(s.days).toHaveLength(14);
    const byName = Object.fromEntries(s.analysts.map((a) => [a.name, a]));
    expect(byName.alice).toMatchObject({ kind: 'token', unitsToday: 3, ipsToday: 4, budget: 50 });
    expect(byName.bob).toMatchObject({ kind: 'token', unitsToday: 0, ipsToday: 5, budget: null });
    const ledger = (await store.getLedger())!;
    expect(s.quota).toMatchObject({ used: ledger.usage + ledger.reserved, limit: ledger.limit, reservePercent: 10 });
    expect(today.quotaUsed).toBe(ledger.usage + ledger.reserved);
    expect(s.replicas).toEqual([expect.objectContaining({ self: true })]);
    expect(s.store).toMatchObject({ kind: 'embedded', ok: true });
    expect(s.mostSeen).toEqual([
      { ip: FIXTURES.critical.ip, analysts: 2, lastSeenAt: new Date(at).toISOString(), severity: 'critical', score: 95 },
      { ip: FIXTURES.whitelisted.ip, analysts: 1, lastSeenAt: new Date(at).toISOString(), severity: 'whitelisted', score: expect.any(Number) },
    ]);
  });

  it('refuses without a token (401), with an analyst token or a wrong one (403), each saying why', async () => {
    const none = await summary(null);
    expect(none.response.status).toBe(401);
    expect(none.response.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(none.body).toMatchObject({ statusCode: 401, message: ADMIN_MESSAGES.missing });
    const analyst = await summary(alice);
    expect(analyst.response.status).toBe(403);
    expect(analyst.body).toMatchObject({ message: ADMIN_MESSAGES.analystToken });
    const wrong = await summary('not-the-admin-token');
    expect(wrong.response.status).toBe(403);
    expect(wrong.body).toMatchObject({ message: ADMIN_MESSAGES.wrong });
    expect(JSON.stringify(wrong.body)).not.toContain('not-the-admin-token');
    const bad = await summary(ADMIN_TOKEN, '?days=lots');
    expect(bad.response.status).toBe(400);
  });

  it('serves the page, its script and style same-origin under a strict CSP with no inline script', async () => {
    const page = await fetch(`${origin}/dashboard`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toBe(DASHBOARD_CSP);
    expect(DASHBOARD_CSP).toContain("script-src 'self'");
    expect(DASHBOARD_CSP).not.toContain('unsafe');
    const html = await page.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)/);
    const script = await fetch(`${origin}/dashboard/app.js`);
    expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect((await script.text()).length).toBeGreaterThan(1000);
    expect((await fetch(`${origin}/dashboard/app.css`)).headers.get('content-type')).toMatch(/^text\/css/);
  }, 30_000);

  it("adds the analyst's budget and the team's pool to /account, leaving the API's fields as they were", async () => {
    const response = await fetch(`${origin}/api/v1/account`, { headers: { Authorization: `Bearer ${alice}` } });
    const body = (await response.json()) as { api_key: unknown; gateway: unknown };
    const ledger = (await store.getLedger())!;
    expect(body.api_key).toMatchObject({ name: 'alice', current_usage: 3, max_api_requests: 50 });
    expect(body.gateway).toEqual({
      analyst: { name: 'alice', used_today: 3, daily_budget: 50, day: dayOf(Date.now()) },
      team: { used: ledger.usage + ledger.reserved, limit: ledger.limit, reserve_percent: 10, allowed: ledger.limit === null ? null : Math.floor(ledger.limit * 0.9), reserve_reached: false },
    });
    // The extension's own client reads them, tolerantly, as AccountInfo.team.
    const account = await createApiClient({ baseUrl: `${origin}/api/v1`, apiKey: alice, authHeader: 'authorization' }).account();
    expect(account.team).toMatchObject({ analyst: { usedToday: 3, dailyBudget: 50 }, team: { reservePercent: 10, reserveReached: false } });
  });
});

describe('a gateway without an admin token', () => {
  it('keeps the dashboard off and says how to turn it on', async () => {
    const sim = await startSimulator();
    const dir = mkdtempSync(path.join(tmpdir(), 'gw-dash-off-'));
    const store = openEmbeddedStore({ dir, flushMs: 0 });
    const harness = await startGateway({ store, upstreamUrl: sim.baseUrl, key: DEMO_KEY });
    try {
      const page = await harness.gateway.app.inject({ url: '/dashboard' });
      expect(page.statusCode).toBe(404);
      const api = await harness.gateway.app.inject({ url: '/dashboard/api/summary', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      expect(api.statusCode).toBe(404);
      expect(api.json()).toMatchObject({ message: ADMIN_MESSAGES.off });
    } finally {
      await harness.gateway.close();
      await sim.close();
      cleanup(dir);
    }
  });
});
