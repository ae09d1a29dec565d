/**
 * Subnet checks in real Chromium against the simulator: blocks on a page get their own mark and
 * are never looked up; the popup offers a typed block with its worst-case cost and the quota
 * left, refuses a block above /24 with an offer of the /24 holding a chosen IP, shows the
 * summary and the found IPs riskiest first, and the page's marks for those IPs update from the
 * cache with no further API call.
 */
import type { BrowserContext, Page } from '@playwright/test';
import { DEMO_KEY } from '../sim/keys';
import { expect, test } from './fixtures';
import { clickCardButton, configure, highlightSizes, hoverIp, markedIps, markedTexts, pageUrl, readCard, usePageSimulator } from './page-support';
import { extensionUrl } from './ui-helpers';

const env = usePageSimulator({ scanLoopback: true });

declare const chrome: { storage: { local: { set(items: Record<string, unknown>): Promise<void> } } };

async function turnAutomaticOff(context: BrowserContext, extensionId: string) {
  const page = await context.newPage();
  await page.goto(extensionUrl(extensionId, 'options.html'));
  await page.evaluate(() =>
    chrome.storage.local.set({
      lookupPolicy: {
        sendPrivate: false, automatic: false, perPageCap: 500, reservePercent: 10,
        ttlFoundMinutes: 1440, ttlNotFoundMinutes: 360, ttlDetailedMinutes: 10080, cacheMaxEntries: 50000,
      },
    }),
  );
  await page.close();
}

const blockTexts = (page: Page) =>
  page.evaluate(() => [...(CSS.highlights.get('ip-rep-block') ?? [])].map((r) => (r.startContainer as Text).data.slice(r.startOffset, r.endOffset)));

async function openPopup(context: BrowserContext, extensionId: string): Promise<Page> {
  const popup = await context.newPage();
  await popup.goto(extensionUrl(extensionId, 'popup.html'));
  return popup;
}

test('a block on a page is marked as a block and never looked up; a popup check updates the page marks from the cache', async ({ context, extensionId }) => {
  await configure(context, extensionId, env.sim, DEMO_KEY);
  await turnAutomaticOff(context, extensionId);
  const page = await context.newPage();
  await page.goto(pageUrl(env.sim, 'subnet-report.html'));
  await expect.poll(() => blockTexts(page)).toEqual(['185.220.101.0/24', '185.220.101[.]0/24']);
  await expect.poll(() => markedIps(page, 'skipped')).toEqual(['185.220.101.1', '185.220.101.3', '185.220.101.4', '203.0.113.7', '4.2.2.2']);
  // The network address is the block's name, not a host: no IP mark on it.
  const all = (await Promise.all((['critical', 'high', 'medium', 'low', 'unknown', 'skipped', 'pending'] as const).map((s) => markedTexts(page, s)))).flat();
  expect(all.map((m) => m.text)).not.toContain('185.220.101.0');

  const popup = await openPopup(context, extensionId);
  await popup.getByLabel('IP address or text').fill('185.220.101.0/24');
  await popup.getByRole('button', { name: 'Look up' }).click();
  await expect(popup.getByText('185.220.101.0/24 is a block of IPv4 addresses')).toBeVisible();
  await expect(popup.getByText('Costs 1 request per IP found in the database: at most 256 for this block.')).toBeVisible();
  await expect(popup.getByText(/^Quota left: [\d,]+ of [\d,]+\.$/)).toBeVisible();
  expect(env.sim.requestLog.filter((e) => e.path === '/checkSubnet')).toHaveLength(0);

  await popup.getByRole('button', { name: 'Check 185.220.101.0/24' }).click();
  const foundCount = Array.from({ length: 254 }, (_, i) => `185.220.101.${i + 1}`).filter((ip) => env.sim.dataset.lookup(ip)).length;
  await expect(popup.getByText(new RegExp(`^185\\.220\\.101\\.0/24: found ${foundCount} of 254 addresses in the database; charged ${foundCount}\\.$`))).toBeVisible();
  await expect(popup.getByText(/^Malicious \d+ · clean \d+ · average score [\d.]+$/)).toBeVisible();
  // Riskiest first: the first row holds the block's highest score.
  const rows = popup.locator('.subnet-panel tbody .ip-button');
  // The list draws the first 50 rows (PAGE_SIZE) until asked for more.
  await expect(rows).toHaveCount(Math.min(50, foundCount));
  const scores = Array.from({ length: 254 }, (_, i) => env.sim.dataset.lookup(`185.220.101.${i + 1}`)?.score ?? -1);
  expect(env.sim.dataset.lookup((await rows.first().textContent())!)!.score).toBe(Math.max(...scores));
  await rows.filter({ hasText: /^185\.220\.101\.1$/ }).click();
  await expect(popup.getByRole('region', { name: 'Reputation of 185.220.101.1' })).toContainText('95 / 100');

  // The page's marks follow from the cache: no lookup was sent for them.
  await expect.poll(() => markedIps(page, 'critical')).toEqual(['185.220.101.1']);
  await expect.poll(() => markedIps(page, 'high')).toEqual(['185.220.101.4']);
  await expect.poll(() => markedIps(page, 'unknown')).toEqual(['185.220.101.3']);
  expect(await markedIps(page, 'skipped')).toEqual(['203.0.113.7', '4.2.2.2']);
  const paths = env.sim.requestLog.map((e) => e.path).filter((p) => p !== '/account');
  expect(paths).toEqual(['/checkSubnet']);
  expect(env.sim.usage(DEMO_KEY)).toBe(foundCount);
  expect((await highlightSizes(page)).pending).toBe(0);
});

test('a block above /24 is refused with the documented limit and an offer to check the /24 of a chosen IP', async ({ context, extensionId }) => {
  await configure(context, extensionId, env.sim, DEMO_KEY);
  // The simulator serves the whole file: count this test's requests only.
  const logStart = env.sim.requestLog.length;
  const popup = await openPopup(context, extensionId);
  await popup.getByLabel('IP address or text').fill('185.220.0.0/16');
  await popup.getByRole('button', { name: 'Look up' }).click();
  await expect(popup.getByText('185.220.0.0/16 is larger than /24: the API scans at most 256 addresses per request.')).toBeVisible();
  const pick = popup.getByLabel('Check the /24 that holds this IP instead');
  await pick.fill('8.8.8.8');
  await expect(popup.getByRole('alert').filter({ hasText: '8.8.8.8 is not in 185.220.0.0/16.' })).toBeVisible();
  await pick.fill('185.220.101.77');
  await expect(popup.getByText('Costs 1 request per IP found in the database: at most 256 for this block.')).toBeVisible();
  await popup.getByRole('button', { name: 'Check 185.220.101.0/24' }).click();
  await expect(popup.getByText(/^185\.220\.101\.0\/24: found \d+ of 254 addresses/)).toBeVisible();
  expect(env.sim.requestLog.slice(logStart).filter((e) => e.path === '/checkSubnet').map((e) => e.status)).toEqual([200]);
});

test('the hover card offers the /24 of an IP; the extension shows cost and quota, and only its confirmation pays', async ({ context, extensionId }) => {
  await configure(context, extensionId, env.sim, DEMO_KEY);
  await turnAutomaticOff(context, extensionId);
  const logStart = env.sim.requestLog.length;
  const page = await context.newPage();
  await page.goto(pageUrl(env.sim, 'subnet-report.html'));
  await expect.poll(() => markedIps(page, 'skipped')).toContain('185.220.101.1');
  const cdp = await context.newCDPSession(page);

  await hoverIp(page, '185.220.101.1');
  await expect.poll(async () => (await readCard(cdp))?.text ?? '').toContain('Check 185.220.101.0/24');
  expect((await readCard(cdp))!.text).toContain('Up to 256 API requests (1 per address found)');
  const opened = context.waitForEvent('page');
  await clickCardButton(page, cdp, /^Check 185\.220\.101\.0\/24$/);
  const confirm = await opened;
  await confirm.waitForLoadState();
  expect(confirm.url()).toMatch(new RegExp(`^${extensionUrl(extensionId, 'popup.html')}\\?tab=\\d+&subnet=185\\.220\\.101\\.0%2F24$`));
  await expect(confirm.getByText('185.220.101.0/24 is a block of IPv4 addresses')).toBeVisible();
  await expect(confirm.getByText('Costs 1 request per IP found in the database: at most 256 for this block.')).toBeVisible();
  await expect(confirm.getByText(/^Quota left: [\d,]+ of [\d,]+\.$/)).toBeVisible();
  // Opening the offer paid nothing.
  expect(env.sim.requestLog.slice(logStart).filter((e) => e.path === '/checkSubnet')).toHaveLength(0);

  await confirm.getByRole('button', { name: 'Check 185.220.101.0/24' }).click();
  await expect(confirm.getByText(/^185\.220\.101\.0\/24: found \d+ of 254 addresses/)).toBeVisible();
  expect(env.sim.requestLog.slice(logStart).filter((e) => e.path === '/checkSubnet').map((e) => e.status)).toEqual([200]);
  // The page's marks follow from the cache.
  await expect.poll(() => markedIps(page, 'critical')).toEqual(['185.220.101.1']);
  await expect.poll(() => markedIps(page, 'high')).toEqual(['185.220.101.4']);
  expect(env.sim.requestLog.slice(logStart).filter((e) => e.path === '/checkSubnet')).toHaveLength(1);
});
