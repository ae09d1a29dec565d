/**
 * Hostile pages: no page can blind or freeze the content script. Each fixture under
 * test/fixtures/hostile/ builds page-sized data with a small inline script; these tests check
 * correctness on them (marks present, the page still answers), never timings: those are
 * `npm run bench page-hostile`.
 */
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { markedIps, usePageSimulator } from './page-support';
import { extensionUrl, tabIdOf } from './ui-helpers';
import { ChromiumDriver } from './chromium-driver';
import { markedTexts, newTopEventMarkedAndLookedUp } from './scenarios/live-list-scenarios';
import { stormLeavesThePageAroundItMarked } from './scenarios/storm-scenario';

const env = usePageSimulator({ scanLoopback: true });

// The pages themselves take seconds to build their data on a shared two-core machine.
test.describe.configure({ timeout: 300_000 });

function hostileUrl(name: string): string {
  return `${env.sim.origin}/pages/hostile/${name}`;
}

/** Errors the content script (or anything else) left on the page's console. */
function collectErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  return errors;
}

/** The page's own script still runs: a round trip through a timer on its main thread. */
async function responsive(page: Page): Promise<boolean> {
  return page.evaluate(() => new Promise<boolean>((resolve) => setTimeout(() => resolve(true), 0)));
}

test('150,000 IPs in one element: the rows around it are still marked', async ({ context }) => {
  const page = await context.newPage();
  const errors = collectErrors(page);
  await page.goto(hostileUrl('one-element.html'));
  await expect(page.locator('#done')).toHaveText('Generated 150000 addresses.');
  await expect.poll(() => markedIps(page, 'critical'), { timeout: 20_000 }).toContain('185.220.101.1');
  await expect.poll(() => markedIps(page, 'high')).toContain('23.129.64.130');
  expect(await responsive(page)).toBe(true);
  expect(errors.filter((e) => /Maximum call stack/.test(e))).toEqual([]);
});

/** Texts under every mark of every severity, with the text node's whole data. */
async function markedNodeTexts(page: Page): Promise<string[]> {
  return (await markedTexts(page)).map(([text]) => text);
}

test('1,000,000 text nodes: the rows on screen are marked and the page answers', async ({ context }) => {
  const page = await context.newPage();
  await page.goto(hostileUrl('text-nodes.html'));
  await expect(page.locator('#done')).toHaveText('Generated 1000000 text nodes.');
  await expect.poll(() => markedIps(page, 'critical'), { timeout: 30_000 }).toContain('185.220.101.1');
  expect(await responsive(page)).toBe(true);
});

test('200,000 IPs in cells: marks on screen, the popup says only visible ones are marked', async ({ context, extensionId }) => {
  const page = await context.newPage();
  await page.goto(hostileUrl('cells.html'));
  await expect(page.locator('#done')).toHaveText('Generated 200000 addresses.');
  await expect.poll(() => markedIps(page, 'critical'), { timeout: 30_000 }).toContain('185.220.101.1');
  expect(await responsive(page)).toBe(true);
  // Far down the table, after the page reached its limits: the rows scrolled to get marked.
  await page.locator('#cells tr').nth(45_000).scrollIntoViewIfNeeded();
  const row = await page.locator('#cells tr').nth(45_000).locator('td').first().textContent();
  await expect
    .poll(async () => (await markedNodeTexts(page)).includes(row!), { timeout: 30_000 })
    .toBe(true);
  const popup = await context.newPage();
  await popup.goto(extensionUrl(extensionId, 'popup.html'));
  const tabId = await tabIdOf(popup, page.url());
  // The page reaches its limit once the whole-page scan has read 50,000 addresses.
  await expect(async () => {
    await popup.goto(extensionUrl(extensionId, 'popup.html', `?tab=${tabId}`));
    await expect(popup.getByText('Too many IPs here: marking visible ones only.')).toBeVisible({ timeout: 3_000 });
  }).toPass({ timeout: 180_000 });
});

test('mutation storm (10,000 nodes a frame): the steady rows get marked and stay marked', async ({ context }) => {
  const page = await context.newPage();
  await page.goto(hostileUrl('mutation-storm.html'));
  await expect.poll(() => markedIps(page, 'critical'), { timeout: 30_000 }).toContain('185.220.101.1');
  // The storm's own nodes live one frame each: marked or not, they must not cost the steady rows.
  expect(await responsive(page)).toBe(true);
  // Still marked a while later, the storm going on.
  await page.waitForTimeout(2_000);
  expect(await markedIps(page, 'critical')).toContain('185.220.101.1');
});

test('mutation storm: text written beside the storming container is marked while it storms, its own rows once it stops, a later big rebuild too', async ({ context, extensionId }) => {
  await stormLeavesThePageAroundItMarked(new ChromiumDriver(context, extensionId), env.sim);
});

test('1,000-deep nested shadow roots: the deepest level is scanned and marked', async ({ context }) => {
  const page = await context.newPage();
  await page.goto(hostileUrl('deep-shadow.html'));
  await expect(page.locator('#done')).toHaveText('Generated 1000 levels.');
  // One line per level: the deepest is at the bottom of the page (marks live near the screen).
  await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
  await expect
    .poll(async () => (await markedNodeTexts(page)).some((t) => t.startsWith('level 999 ')), { timeout: 30_000 })
    .toBe(true);
  expect(await responsive(page)).toBe(true);
});

test('live tail of 5,000 events: a new event at the top is marked and looked up while the list keeps re-rendering', async ({ context, extensionId }) => {
  await newTopEventMarkedAndLookedUp(new ChromiumDriver(context, extensionId), env.sim);
});
