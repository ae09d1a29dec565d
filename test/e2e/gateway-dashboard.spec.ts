/**
 * The team dashboard as a SOC lead uses it: the gateway (embedded store, the API simulator as
 * its upstream) answers lookups this test sends with two analysts' tokens; then Chromium opens
 * /dashboard, is refused with an analyst's token, signs in with the admin token, and the
 * numbers on the page are compared with what the test sent and what the simulator charged.
 * No extension is needed: a plain browser page on the gateway's origin.
 */
import { chromium, test, expect, type Browser } from '@playwright/test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ADMIN_MESSAGES } from '../../gateway/src/dashboard/admin-auth';
import { openEmbeddedStore } from '../../gateway/src/store/embedded-store';
import type { Store } from '../../gateway/src/store/types';
import { hashToken } from '../../gateway/src/tokens';
import { FIXTURES, NOT_FOUND_IPS } from '../sim/dataset';
import { DEMO_KEY } from '../sim/keys';
import { startSimulator, type Simulator } from '../sim/server';
import { startGateway, tokenFor, type Harness } from '../unit/gateway/gateway-harness';
import { auditPage } from './axe';
import { BASE_CHROMIUM_ARGS, chromiumExecutable } from './chromium';

const ADMIN_TOKEN = 'e2e-admin-token-0123456789abcdefghijkl';

let sim: Simulator;
let harness: Harness;
let store: Store;
let browser: Browser;
let origin: string;
let dir: string;
let alice: string;
let bob: string;

test.beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'iplens-dashboard-'));
  sim = await startSimulator();
  store = openEmbeddedStore({ dir, flushMs: 0 });
  harness = await startGateway({ store, upstreamUrl: sim.baseUrl, key: DEMO_KEY, dashboard: { adminTokenHash: hashToken(ADMIN_TOKEN), adminGroup: null, historyDays: 30 } });
  await harness.gateway.app.listen({ host: '127.0.0.1', port: 0 });
  origin = `http://127.0.0.1:${(harness.gateway.app.server.address() as { port: number }).port}`;
  alice = await tokenFor(store, 'alice', { budget: 40 });
  bob = await tokenFor(store, 'bob', { budget: 10 });
  const executablePath = chromiumExecutable();
  browser = await chromium.launch({ ...(executablePath ? { executablePath } : {}), args: BASE_CHROMIUM_ARGS });
});

test.afterAll(async () => {
  await browser?.close();
  await harness?.gateway.close();
  await sim?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function lookUp(token: string, ips: string[]) {
  const response = await fetch(`${origin}/api/v1/checkIP/bulk`, { method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ ips }) });
  expect(response.status).toBe(200);
}

test('a SOC lead signs in and reads what the team paid, saved and used', async () => {
  // Alice buys five IPs (four found: four units); Bob asks three of them again (all from the
  // cache: two found ones saved) and one new found IP (one unit).
  sim.reset();
  await lookUp(alice, [FIXTURES.critical.ip, FIXTURES.high.ip, FIXTURES.suspicious.ip, FIXTURES.whitelisted.ip, NOT_FOUND_IPS[0]!]);
  await lookUp(bob, [FIXTURES.critical.ip, FIXTURES.high.ip, NOT_FOUND_IPS[0]!, FIXTURES.ipv6.ip]);
  // Two analysts looked the critical IP up (what the sightings feature records after a lookup).
  const at = Date.now();
  await store.recordSightings([{ ip: FIXTURES.critical.ip, analyst: 'alice', at }, { ip: FIXTURES.critical.ip, analyst: 'bob', at }], at - 86_400_000, 86_400_000);
  const charged = sim.requestLog.filter((e) => e.path !== '/account').reduce((total, e) => total + (e.cost ?? 0), 0);
  expect(charged).toBe(5);

  const context = await browser.newContext();
  const page = await context.newPage();
  const cspViolations: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
  });
  await page.goto(`${origin}/dashboard`);
  await expect(page.getByRole('heading', { name: 'Team dashboard', level: 1 })).toBeVisible();

  // An analyst's lookup token does not open it, and the page says why.
  await page.getByLabel('Admin token').fill(alice);
  await page.getByRole('button', { name: 'Open dashboard' }).click();
  await expect(page.getByRole('alert')).toHaveText(ADMIN_MESSAGES.analystToken);

  await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
  await page.getByRole('button', { name: 'Open dashboard' }).click();
  await expect(page.getByRole('heading', { name: 'Overview' })).toBeVisible();

  const stat = (id: string) => page.locator(`[data-stat="${id}"] dd`);
  await expect(stat('units-paid')).toHaveText(String(charged));
  await expect(stat('units-saved')).toHaveText('2');
  // Nine IPs answered, three from the cache.
  await expect(stat('hit-rate')).toHaveText('33.3%');

  const row = (name: string) => page.getByRole('row', { name: new RegExp(`^${name}\\b`) });
  await expect(row('alice').locator('[data-col="units"]')).toHaveText('4');
  await expect(row('alice').locator('[data-col="budget"]')).toHaveText('40');
  await expect(row('alice').locator('[data-col="ips"]')).toHaveText('5');
  await expect(row('bob').locator('[data-col="units"]')).toHaveText('1');
  await expect(row('bob').locator('[data-col="ips"]')).toHaveText('4');
  await expect(page.getByRole('meter', { name: 'alice: 4 of 40 units' })).toBeVisible();

  // The chart is an image with words, and its table says the same as the tiles.
  await expect(page.getByRole('img', { name: /Units per day: paid and saved/ })).toBeVisible();
  await page.getByText('Units per day as a table').click();
  const today = new Date().toISOString().slice(0, 10);
  await expect(page.getByRole('row', { name: new RegExp(`^${today} ${charged} 2 3 6$`) })).toBeVisible();
  await expect(page.getByRole('row', { name: new RegExp(`^${FIXTURES.critical.ip.replace(/\./g, '\\.')} 2 critical 95 `) })).toBeVisible();
  await expect(page.locator('[data-stat="store"]')).toContainText('Store: embedded, reachable');
  await expect(page.getByRole('row', { name: /answered this page/ })).toBeVisible();

  const audit = await auditPage(page);
  expect(audit.violations, audit.summary).toEqual([]);
  expect(cspViolations).toEqual([]);
  await context.close();
});
