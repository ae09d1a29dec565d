/**
 * The team gateway end to end: the built extension, set up from its options page with a
 * personal token and the gateway as its API, marks a console page; a second browser profile
 * with another analyst's token marks the same page the same way, and the upstream API is not
 * asked again (zero new units): the team paid once. Gateway in this process (embedded store in
 * a temp folder), the API simulator as its upstream with the organisation key.
 */
import type { BrowserContext, Page } from '@playwright/test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openEmbeddedStore } from '../../gateway/src/store/embedded-store';
import type { Store } from '../../gateway/src/store/types';
import { DEMO_KEY } from '../sim/keys';
import type { Simulator } from '../sim/server';
import { startGateway, tokenFor, type Harness } from '../unit/gateway/gateway-harness';
import { expect, launchWithExtension, serviceWorkerOf, test } from './fixtures';
import { markedIps, pageUrl, setSiteScanning, SEVERITY_NAMES, startPageSimulator } from './page-support';
import { configureApi } from './ui-helpers';

/** The bits of `chrome.*` read in the worker (no @types/chrome in this project). */
declare const chrome: {
  storage: { local: { get(keys: null): Promise<unknown> }; session: { get(keys: null): Promise<unknown> } };
};

const PAGE = 'splunk-events.html';

let sim: Simulator;
let store: Store;
let harness: Harness;
let gatewayUrl: string;
const tempDirs: string[] = [];
const contexts: BrowserContext[] = [];

const tempDir = (prefix: string) => {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  tempDirs.push(dir);
  return dir;
};

test.beforeAll(async () => {
  sim = await startPageSimulator();
  store = openEmbeddedStore({ dir: tempDir('iplens-gateway-'), flushMs: 0 });
  harness = await startGateway({ store, upstreamUrl: sim.baseUrl, key: DEMO_KEY });
  await harness.gateway.app.listen({ host: '127.0.0.1', port: 0 });
  gatewayUrl = `http://127.0.0.1:${(harness.gateway.app.server.address() as { port: number }).port}/api/v1`;
});

test.afterAll(async () => {
  await Promise.all(contexts.map((c) => c.close()));
  await harness?.gateway.close();
  await sim?.close();
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

/** A fresh browser profile with the extension, its API set to the gateway with `token` (options page, key verified). */
async function analystProfile(token: string): Promise<{ context: BrowserContext; extensionId: string }> {
  const context = await launchWithExtension(tempDir('iplens-e2e-'));
  contexts.push(context);
  const extensionId = new URL((await serviceWorkerOf(context)).url()).host;
  await configureApi(context, extensionId, gatewayUrl, token);
  await setSiteScanning(context, extensionId, 'http://127.0.0.1/*', true);
  return { context, extensionId };
}

/** Every marked IP with its severity (an IP drawn under two names would show both). */
async function marks(page: Page): Promise<Record<string, string>> {
  const out: Record<string, string[]> = {};
  for (const severity of SEVERITY_NAMES) {
    for (const ip of await markedIps(page, severity)) (out[ip] ??= []).push(severity);
  }
  return Object.fromEntries(Object.entries(out).map(([ip, names]) => [ip, names.join('+')]));
}

/** The page's marks once every lookup has been answered: none pending, the same on two reads in a row. */
async function settledMarks(page: Page): Promise<Record<string, string>> {
  let last = '';
  await expect
    .poll(
      async () => {
        const now = await marks(page);
        const text = JSON.stringify(now);
        const settled = text === last && !Object.values(now).includes('pending');
        last = text;
        return settled;
      },
      { timeout: 30_000, intervals: [500] },
    )
    .toBe(true);
  return JSON.parse(last) as Record<string, string>;
}

/** The simulator's paid lookups (what the organisation key bought) and the units they cost. */
const upstreamSpend = () => ({
  units: sim.usage(DEMO_KEY),
  lookupCalls: sim.requestLog.filter((e) => e.path.startsWith('/checkIP')).length,
});

/** The gateway's audit lines of one token's lookups. */
const auditOf = (name: string) =>
  harness.logs
    .map((line) => JSON.parse(line) as { audit?: string; token?: string; ips: number; units: number; hits: number; misses: number })
    .filter((entry) => entry.audit === 'lookup' && entry.token === name);

test('a second analyst through the gateway marks the same page as the first, with zero new upstream units', async () => {
  test.setTimeout(90_000);
  const tokenA = await tokenFor(store, 'analyst-a');
  const tokenB = await tokenFor(store, 'analyst-b');
  // Both browsers start (and wait for their policy service) at once; the second looks nothing up yet.
  const [first, second] = await Promise.all([analystProfile(tokenA), analystProfile(tokenB)]);

  const pageA = await first.context.newPage();
  await pageA.goto(pageUrl(sim, PAGE));
  const marksA = await settledMarks(pageA);
  // Looked up through the gateway and answered: severities, none failed.
  expect(marksA).toMatchObject({ '185.220.101.1': 'critical', '23.129.64.130': 'high', '10.0.4.17': 'skipped' });
  expect(Object.values(marksA)).not.toContain('failed');
  const bought = upstreamSpend();
  expect(bought.units).toBeGreaterThan(0);
  expect(auditOf('analyst-a').reduce((sum, e) => sum + e.units, 0)).toBe(bought.units);

  const pageB = await second.context.newPage();
  await pageB.goto(pageUrl(sim, PAGE));
  await expect.poll(() => settledMarks(pageB), { timeout: 40_000 }).toEqual(marksA);
  expect(upstreamSpend()).toEqual(bought);
  // The gateway answered every IP the second analyst asked from the team's cache: nothing bought.
  const auditB = auditOf('analyst-b');
  expect(auditB.length).toBeGreaterThan(0);
  expect(auditB.map(({ ips, units, hits, misses }) => ({ ips, units, hits, misses }))).toEqual(auditB.map(({ ips }) => ({ ips, units: 0, hits: ips, misses: 0 })));
  // Only the gateway spoke to the upstream, with the organisation key; the tokens never left it.
  expect(new Set(sim.requestLog.map((e) => e.key))).toEqual(new Set([DEMO_KEY]));

  // What the second profile's extension stored holds its token, never the organisation key.
  const worker = await serviceWorkerOf(second.context);
  const stored = JSON.stringify(
    await worker.evaluate(async () => ({
      local: await chrome.storage.local.get(null),
      session: await chrome.storage.session.get(null),
      secrets: await new Promise((resolve, reject) => {
        const open = indexedDB.open('ip-lens-secrets');
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const db = open.result;
          const all = db.transaction('secrets').objectStore('secrets').getAll();
          all.onsuccess = () => (resolve(all.result), db.close());
          all.onerror = () => reject(all.error);
        };
      }),
    })),
  );
  expect(stored).toContain(tokenB);
  expect(stored).not.toContain(DEMO_KEY);
  expect(stored).not.toContain(tokenA);
});
