/**
 * `npm run bench popup`: how fast the popup shows data with a warm cache, next to a blank
 * extension page loaded the same way in the same browser (the ratio is what to watch; the
 * machine is shared, so absolute times are printed for information only).
 *
 * Setup: the e2e build (BENCH_EXTENSION_DIR, else .output/chrome-mv3-e2e, else built into
 * .output-bench) is copied to a temp folder with an added `blank.html` (same head, no script),
 * loaded in Chromium with the API simulator, configured, and a SIEM-like page of ~200 IPs is
 * scanned (and scrolled through) until every IP has its result. Then, interleaved N times: the popup (`?tab=` that
 * page) until its `iplens:popup-ready` mark (quota meter and page list rendered), and the
 * blank page until its load event. Both timed from navigation start.
 *
 * Flags: BENCH_POPUP_RUNS (default 30) interleaved pairs; BENCH_EXTENSION_DIR the build.
 */
import type { Page } from '@playwright/test';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { launchWithExtension } from '../e2e/chromium';
import { DEMO_KEY } from '../sim/keys';
import { benchExtensionDir } from './extension-build';
import { configureApi, extensionUrl, startUiSimulator, tabIdOf } from '../e2e/ui-helpers';

const RUNS = Number(process.env.BENCH_POPUP_RUNS ?? 30);
const EXTRA_ROWS = 200;

/** A copy of the build with `blank.html`: the same document head (CSS), no script, no body. */
function prepareExtension(source: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'iplens-bench-ext-'));
  cpSync(source, dir, { recursive: true });
  const popupHtml = readFileSync(path.join(dir, 'popup.html'), 'utf8');
  const blank = popupHtml.replace(/<script[^>]*><\/script>\s*/g, '').replace(/<link rel="modulepreload"[^>]*>\s*/g, '');
  writeFileSync(path.join(dir, 'blank.html'), blank);
  return dir;
}

/** [IPs the tab's content script found, how many of them have a result]. */
async function pageCounts(extensionPage: Page, tabId: number): Promise<[number, number]> {
  return extensionPage.evaluate(async (id) => {
    type PageIps = { ok: boolean; value?: { ips: { result?: unknown }[] } };
    const c = (globalThis as unknown as { chrome: { tabs: { sendMessage(t: number, m: object): Promise<PageIps> } } }).chrome;
    const reply = await c.tabs.sendMessage(id, { type: 'tab:get-page-ips', payload: {} }).catch(() => null);
    const ips = reply?.ok ? (reply.value?.ips ?? []) : [];
    return [ips.length, ips.filter((ip) => ip.result).length] as [number, number];
  }, tabId);
}

/**
 * Scans the page and scrolls through it until every IP has its result (the content script
 * looks up what is visible first), at most a minute: a stuck lookup fails the bench.
 */
async function warmPage(site: Page, extensionPage: Page, tabId: number): Promise<[number, number]> {
  await extensionPage.evaluate(async (id) => {
    const c = (globalThis as unknown as { chrome: { runtime: { sendMessage(m: object): Promise<unknown> } } }).chrome;
    await c.runtime.sendMessage({ type: 'ui:scan-tab', payload: { tabId: id } });
  }, tabId);
  const deadline = Date.now() + 60_000;
  let counts: [number, number] = [0, 0];
  while (Date.now() < deadline) {
    counts = await pageCounts(extensionPage, tabId);
    if (counts[0] > 0 && counts[0] === counts[1]) break;
    await site.mouse.wheel(0, 400);
    await new Promise((r) => setTimeout(r, 200));
  }
  await site.evaluate(() => window.scrollTo(0, 0));
  return counts;
}

interface PopupTimes {
  ready: number;
  quota: number;
  list: number;
  dcl: number;
  tabKnown: number;
  pageAnswered: number;
}

async function timePopup(page: Page, url: string): Promise<PopupTimes> {
  await page.goto(url);
  await page.waitForFunction(() => performance.getEntriesByName('iplens:popup-ready').length > 0);
  // No named functions inside evaluate: tsx's keepNames would reference a helper the page lacks.
  const [ready, quota, list, tabKnown, pageAnswered, dcl] = await page.evaluate(() => [
    ...['iplens:popup-ready', 'iplens:quota-rendered', 'iplens:page-rendered', 'iplens:tab-known', 'iplens:page-answered'].map(
      (n) => performance.getEntriesByName(n)[0]?.startTime ?? Number.NaN,
    ),
    (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).domContentLoadedEventEnd,
  ]);
  return { ready: ready!, quota: quota!, list: list!, dcl: dcl!, tabKnown: tabKnown!, pageAnswered: pageAnswered! };
}

async function timeBlank(page: Page, url: string): Promise<number> {
  await page.goto(url, { waitUntil: 'load' });
  return page.evaluate(() => (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).loadEventEnd);
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const ms = (v: number) => `${v.toFixed(1)} ms`;

export async function run(): Promise<void> {
  const extensionDir = prepareExtension(benchExtensionDir());
  const userDataDir = mkdtempSync(path.join(tmpdir(), 'iplens-bench-profile-'));
  const ui = await startUiSimulator({ extraRows: EXTRA_ROWS });
  const context = await launchWithExtension(userDataDir, { extensionDir, viewport: { width: 480, height: 600 } });
  try {
    const worker = context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker'));
    const extensionId = new URL(worker.url()).host;
    await configureApi(context, extensionId, ui.sim.baseUrl, DEMO_KEY);

    const site = await context.newPage();
    await site.goto(ui.pageUrl);
    const probe = await context.newPage();
    await probe.goto(extensionUrl(extensionId, 'popup.html'));
    const tabId = await tabIdOf(probe, ui.pageUrl);
    const [ipCount, withResult] = await warmPage(site, probe, tabId);
    if (ipCount === 0 || withResult < ipCount) throw new Error(`cache not warm: ${withResult} of ${ipCount} IPs have a result after a minute`);
    await probe.close();

    const page = await context.newPage();
    const popupUrl = extensionUrl(extensionId, 'popup.html', `?tab=${tabId}`);
    const blankUrl = `chrome-extension://${extensionId}/blank.html`;
    // Warm-up: the first loads compile the bundle and fill the HTTP cache of the extension.
    for (let i = 0; i < 3; i++) {
      await timePopup(page, popupUrl);
      await timeBlank(page, blankUrl);
    }
    const times: PopupTimes[] = [];
    const blank: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      times.push(await timePopup(page, popupUrl));
      blank.push(await timeBlank(page, blankUrl));
    }
    const series = (key: keyof PopupTimes) => times.map((t) => t[key]);
    const ready = series('ready');

    console.log(`popup with a warm cache: ${ipCount} IPs on the page, ${RUNS} interleaved runs, times from navigation start`);
    const rows: [string, number[]][] = [
      ['blank extension page, load event', blank],
      ['popup: scripts run (DOMContentLoaded)', series('dcl')],
      ['popup: quota meter rendered', series('quota')],
      ['popup: current tab known', series('tabKnown')],
      ['popup: tab answered with its IPs', series('pageAnswered')],
      ['popup: page list rendered', series('list')],
      ['popup: ready (both)', ready],
    ];
    for (const [label, values] of rows) {
      console.log(`  ${label.padEnd(40)} p50 ${ms(percentile(values, 50)).padStart(9)}   p95 ${ms(percentile(values, 95)).padStart(9)}`);
    }
    const ratio50 = percentile(ready, 50) / percentile(blank, 50);
    const ratio95 = percentile(ready, 95) / percentile(blank, 95);
    console.log(`  ratio popup ready / blank page: p50 ${ratio50.toFixed(2)}×, p95 ${ratio95.toFixed(2)}×`);
    // What the popup itself adds: each run's ready time minus the blank page loaded right after
    // it, which removes the browser's navigation cost (about 100 ms here for an empty page).
    const own = ready.map((r, i) => r - blank[i]!);
    console.log(`  popup's own time (ready − blank, per run): p50 ${ms(percentile(own, 50))}, p95 ${ms(percentile(own, 95))}`);
    console.log(`  (target: popup ready under 100 ms with a warm cache; from navigation start p50 ${ms(percentile(ready, 50))}, own time p50 ${ms(percentile(own, 50))})`);
  } finally {
    await context.close();
    await ui.close();
    rmSync(userDataDir, { recursive: true, force: true });
    rmSync(extensionDir, { recursive: true, force: true });
  }
}
