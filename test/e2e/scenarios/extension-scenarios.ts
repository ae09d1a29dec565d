/**
 * What a user does with the extension, written once and driven in either browser through the
 * ExtensionDriver (./driver.ts): Firefox runs all of them (test/e2e-firefox), Chromium runs them
 * in shared-scenarios.spec.ts next to its own, more detailed specs.
 */
import { expect } from '@playwright/test';
import type { Simulator } from '../../sim/server';
import { sendsKeyInClear } from '../../../lib/ui/options/clear-text-url';
import { waitUntil, type Evaluator, type ExtensionDriver, type Tab } from './driver';

/** Simulator dataset fixtures (test/sim/dataset.ts), fixed whatever the seed. */
export const CRITICAL_IP = '185.220.101.1';
export const HIGH_IP = '23.129.64.130';
/**
 * The "suspicious" fixture: score 55, which bulk rows label MEDIUM. One severity per IP comes
 * from the score and the thresholds (high ≥ 50), so it is marked High, as its single lookup says.
 */
export const MEDIUM_IP = '45.155.205.233';
/** Rated high too; the markup-in-API-strings fixture. */
export const LATE_ROW_IP = '93.184.216.66';

export const SEVERITY_NAMES = ['critical', 'high', 'medium', 'low', 'unknown', 'skipped', 'pending'] as const;
export type SeverityName = (typeof SEVERITY_NAMES)[number];

/** The fixture console with a same-origin frame, open (and nested) shadow roots and a closed one. */
export function framesShadowUrl(sim: Simulator): string {
  return `${sim.origin}/pages/siem/frames-shadow.html`;
}

/** Options page: fill the API section and press Save. `whileSaving` runs after the click. */
export async function saveApiSettings(
  driver: ExtensionDriver,
  values: { baseUrl: string; apiKey: string },
  whileSaving?: () => Promise<unknown>,
): Promise<Tab> {
  const options = await driver.openExtensionPage('options.html');
  await options.fill('API base URL', values.baseUrl);
  await options.fill('API key', values.apiKey);
  // A remote http:// server gets the key in clear: Options asks for explicit consent first.
  if (sendsKeyInClear(values.baseUrl)) await options.check('I understand the key travels unencrypted');
  await options.clickButton('Save');
  await whileSaving?.();
  return options;
}

/** Saves the API settings and checks the free /account verification shows the key's details. */
export async function saveAndVerifyKey(
  driver: ExtensionDriver,
  sim: Simulator,
  values: { baseUrl: string; apiKey: string },
  whileSaving?: () => Promise<unknown>,
): Promise<void> {
  const options = await saveApiSettings(driver, values, whileSaving);
  await options.waitForText('Key verified: SOC demo key');
  await options.waitForText('org-soc-demo');
  expect(sim.requestLog.map((e) => e.path)).toContain('/account');
  await options.close();
}

export async function popupSingleLookup(driver: ExtensionDriver, sim: Simulator): Promise<void> {
  const popup = await driver.openExtensionPage('popup.html');
  await popup.fill('IP address or text', CRITICAL_IP);
  await popup.clickButton('Look up');
  for (const text of ['95 / 100', 'known attacker', '1,423', '2025-11-28 22:14:05 UTC', 'AS60729', 'Stiftung Erneuerbare Freiheit']) {
    await popup.waitForText(text);
  }
  expect(sim.requestLog.at(-1)).toMatchObject({ path: '/checkIP', status: 200 });
  await popup.close();
}

export async function popupPastedLookup(driver: ExtensionDriver, sim: Simulator): Promise<void> {
  const popup = await driver.openExtensionPage('popup.html');
  const bulkBefore = sim.requestLog.filter((e) => e.path === '/checkIP/bulk').length;
  await popup.fill(
    'IP address or text',
    [
      'Nov 28 22:14:05 sshd[811]: Failed password for root from 8.8.8.8 port 53',
      `Nov 28 22:14:06 sshd[811]: Failed password for root from ${CRITICAL_IP} port 4242`,
      'Nov 28 22:14:07 fw: DROP SRC=10.0.0.5 DST=192.168.1.20',
      `Nov 28 22:14:08 proxy: ${MEDIUM_IP} -> ${CRITICAL_IP}`,
    ].join('\n'),
  );
  await popup.clickButton('Look up');
  await popup.waitForText('Found 5 IP addresses (6 occurrences); looked up 3, skipped 2 as private or reserved.');
  const rows = await popup.evaluate(() => [...document.querySelectorAll('tbody .ip-button')].map((b) => b.textContent), null);
  expect(rows).toEqual([CRITICAL_IP, MEDIUM_IP, '8.8.8.8', '10.0.0.5', '192.168.1.20']);
  expect(sim.requestLog.filter((e) => e.path === '/checkIP/bulk').length).toBe(bulkBefore + 1);
  await popup.close();
}

/** Options page: "Sites to scan" gets the site of `pageUrl`, with its access granted. */
export async function registerSite(driver: ExtensionDriver, pageUrl: string, whileAdding?: () => Promise<unknown>): Promise<void> {
  const pattern = `${new URL(pageUrl).protocol}//${new URL(pageUrl).hostname}/*`;
  const options = await driver.openExtensionPage('options.html');
  await options.fill('Site to add', pageUrl);
  await options.waitForText(`Will add ${pattern}`);
  await options.clickButton('Add site');
  await whileAdding?.();
  // Waited for in the list itself: another site listed already says "Access granted".
  const listed = () => options.evaluate(() => document.querySelector('[aria-label="Sites to scan"]')?.textContent ?? '', null);
  await waitUntil(listed, (text) => text.includes(pattern), `${pattern} in "Sites to scan"`);
  await options.waitForText('Access granted');
  await options.close();
}

/** IPs under one severity's highlight (CSS.highlights is shared with page scripts). */
export function markedIps(target: Evaluator, severity: SeverityName): Promise<string[]> {
  return target.evaluate((name) => {
    const h = CSS.highlights.get(`ip-rep-${name}`);
    const texts = [...(h ?? [])].map((r) => (r.startContainer as Text).data.slice(r.startOffset, r.endOffset));
    return [...new Set(texts)].sort();
  }, severity);
}

export async function expectMarked(target: Evaluator, severity: SeverityName, ips: string[]): Promise<void> {
  const wanted = [...ips].sort();
  await waitUntil(() => markedIps(target, severity), (seen) => JSON.stringify(seen) === JSON.stringify(wanted), `${severity} marks ${wanted.join(', ')}`);
}

/**
 * A registered site's page gets its marks: in the document, an open (and nested) shadow root,
 * a same-origin frame, and a row the page adds later. Returns the page, left open.
 */
export async function marksEverywhere(driver: ExtensionDriver, sim: Simulator): Promise<Tab> {
  const page = await driver.openPage(framesShadowUrl(sim));
  await expectMarked(page, 'critical', [CRITICAL_IP]);
  await expectMarked(page, 'high', [HIGH_IP, MEDIUM_IP]);
  expect(await markedIps(page, 'medium')).toEqual([]);
  // The closed shadow root's address is never marked.
  expect(await markedIps(page, 'low')).toEqual([]);
  const frame = await page.frame('frame-child.html');
  await expectMarked(frame, 'critical', [CRITICAL_IP]);
  await expectMarked(frame, 'high', [HIGH_IP]);
  await expectMarked(frame, 'skipped', ['10.0.4.17']);

  await page.evaluate((ip) => {
    const p = document.createElement('p');
    p.id = 'late-row';
    p.textContent = `Later alert: beacon to ${ip}`;
    document.querySelector('main')!.append(p);
  }, LATE_ROW_IP);
  await expectMarked(page, 'high', [HIGH_IP, MEDIUM_IP, LATE_ROW_IP]);
  await waitUntil(() => markedIps(page, 'pending'), (p) => p.length === 0, 'no pending marks');
  return page;
}

/** The toolbar badge of the tab showing `url`, read from an extension page. */
export async function badgeOf(driver: ExtensionDriver, url: string): Promise<string> {
  const ext = await driver.openExtensionPage('options.html');
  try {
    return await ext.evaluate(async (wanted) => {
      type Api = {
        tabs: { query(q: object): Promise<{ id?: number; url?: string }[]> };
        action: { getBadgeText(d: { tabId: number }): Promise<string> };
      };
      const api = (globalThis as unknown as { chrome: Api }).chrome;
      const tab = (await api.tabs.query({})).find((t) => t.url === wanted);
      if (tab?.id === undefined) throw new Error(`no tab shows ${wanted}`);
      return api.action.getBadgeText({ tabId: tab.id });
    }, url);
  } finally {
    await ext.close();
  }
}

/** Where an IP's first visible mark is drawn, scrolled into view, in viewport pixels. */
export function ipPoint(page: Tab, ip: string): Promise<{ x: number; y: number } | null> {
  return page.evaluate((wanted) => {
    for (const [name, h] of CSS.highlights) {
      if (!name.startsWith('ip-rep-')) continue;
      for (const r of h) {
        const node = r.startContainer as Text;
        if (!node.isConnected || node.data.slice(r.startOffset, r.endOffset) !== wanted) continue;
        node.parentElement?.scrollIntoView({ block: 'center', inline: 'nearest' });
        const live = document.createRange();
        live.setStart(node, r.startOffset);
        live.setEnd(node, r.endOffset);
        const rect = live.getBoundingClientRect();
        if (rect.width > 0) return { x: rect.left + rect.width / 2, y: rect.top + rect.height / 2 };
      }
    }
    return null;
  }, ip);
}

export async function hoverIp(page: Tab, ip: string): Promise<void> {
  const point = await ipPoint(page, ip);
  if (!point) throw new Error(`${ip} is not marked on the page`);
  // Approach from below-left, or from above at the bottom edge: WebDriver refuses moves outside the viewport.
  const { height } = await page.evaluate(() => ({ height: window.innerHeight }), null);
  await page.moveMouse(Math.max(1, point.x - 40), point.y + 30 < height ? point.y + 30 : point.y - 30);
  await page.moveMouse(point.x, point.y);
}

export function cardText(page: Tab): Promise<string> {
  return page.readCard().then((c) => c?.text ?? '');
}

/**
 * Hover shows the reputation of the row added later (the simulator's markup fixture: its API
 * strings are HTML, shown as text); Details costs one /checkIP and adds the network; Escape
 * closes the card.
 */
export async function hoverCardWithDetails(page: Tab, sim: Simulator): Promise<void> {
  await hoverIp(page, LATE_ROW_IP);
  await waitUntil(() => cardText(page), (t) => t.includes(LATE_ROW_IP) && t.includes('Network details'), 'the hover card');
  const card = (await page.readCard())!;
  expect(card.shadowRootMode).toBe('closed');
  for (const expected of ['High', '67', '<img src=x onerror=alert(1)>', '2025-08-08 08:08:08 UTC', 'Network details cost 1 API request']) {
    expect(card.text).toContain(expected);
  }
  expect(card.text).not.toContain('AS15133');
  const detailed = sim.requestLog.filter((r) => r.path === '/checkIP').length;
  await page.clickCardButton('Details');
  await waitUntil(() => cardText(page), (t) => t.includes('AS15133'), 'network details in the card');
  for (const expected of ['<b onmouseover=alert(2)>Edgecast</b>', '"><svg onload=alert(4)>', 'United States']) {
    expect(await cardText(page)).toContain(expected);
  }
  expect(sim.requestLog.filter((r) => r.path === '/checkIP').length).toBe(detailed + 1);
  await page.pressKey('Escape');
  await waitUntil(() => page.readCard(), (c) => c === null, 'the card to close');
}

/**
 * The browser stops the background; a page that loads afterwards wakes it and gets its marks
 * from the persistent cache, with no new API call.
 */
export async function suspendAndWake(driver: ExtensionDriver, sim: Simulator): Promise<void> {
  const warm = await driver.openPage(framesShadowUrl(sim));
  await expectMarked(warm, 'critical', [CRITICAL_IP]);
  await waitUntil(() => markedIps(warm, 'pending'), (p) => p.length === 0, 'no pending marks');
  await warm.close();

  const apiCalls = sim.requestLog.length;
  await driver.suspendBackground();
  expect(await driver.backgroundRunning()).toBe(false);

  const page = await driver.openPage(framesShadowUrl(sim));
  await expectMarked(page, 'critical', [CRITICAL_IP]);
  await expectMarked(page, 'high', [HIGH_IP, MEDIUM_IP]);
  expect(await markedIps(page, 'medium')).toEqual([]);
  expect(await driver.backgroundRunning()).toBe(true);
  expect(sim.requestLog.slice(apiCalls)).toEqual([]);
  await page.close();
}
