/**
 * The popup in real Chromium against the API simulator: single and pasted-text lookups,
 * invalid input, the no-key state, "This page" (scan, filter, sort, details, site scanning),
 * export, the quota meter, every API error state, widths, keyboard use and screenshots.
 */
import { readFileSync } from 'node:fs';
import type { BrowserContext, Page } from '@playwright/test';
import { DEMO_KEY, LOW_QUOTA_KEY, SHARED_QUOTA_KEY } from '../sim/keys';
import { expect, test } from './fixtures';
import { configureApi, extensionUrl, IPS, saveApiSettings, tabIdOf, unreachableBaseUrl, useUiSimulator } from './ui-helpers';
import { takeUiScreenshots } from './ui-screenshots';

const env = useUiSimulator();

async function openPopup(context: BrowserContext, extensionId: string, query = ''): Promise<Page> {
  const popup = await context.newPage();
  await popup.goto(extensionUrl(extensionId, 'popup.html', query));
  return popup;
}

async function lookUp(popup: Page, text: string): Promise<void> {
  await popup.getByLabel('IP address or text').fill(text);
  await popup.getByRole('button', { name: 'Look up' }).click();
}

test.describe('Look up', () => {
  test('one IP gets a detailed lookup with score, reputation, hits, last attack and every ipInfo field', async ({ context, extensionId }) => {
    await configureApi(context, extensionId, env.ui.sim.baseUrl, DEMO_KEY);
    const popup = await openPopup(context, extensionId);
    await lookUp(popup, IPS.critical);
    const card = popup.getByRole('region', { name: `Reputation of ${IPS.critical}` });
    await expect(card).toContainText('95 / 100');
    await expect(card).toContainText('known attacker');
    await expect(card).toContainText('1,423');
    await expect(card).toContainText('2025-11-28 22:14:05 UTC');
    const network = card.getByLabel('Network details');
    for (const value of ['AS60729', 'Stiftung Erneuerbare Freiheit', 'torservers.net', 'Germany', 'DE', 'Europe', 'EU']) {
      await expect(network).toContainText(value);
    }
    expect(env.ui.sim.requestLog.at(-1)).toMatchObject({ path: '/checkIP', status: 200 });
  });

  test('the whitelist information of a whitelisted IP is shown', async ({ context, extensionId }) => {
    await configureApi(context, extensionId, env.ui.sim.baseUrl, DEMO_KEY);
    const popup = await openPopup(context, extensionId);
    await lookUp(popup, IPS.whitelisted);
    const card = popup.getByRole('region', { name: `Reputation of ${IPS.whitelisted}` });
    await expect(card.getByRole('note')).toContainText('Anycast resolver, never block');
    await expect(card).toContainText('Whitelisted');
  });

  test('pasted text: IPs extracted, private ones skipped, the rest looked up in bulk and listed riskiest first', async ({ context, extensionId }) => {
    await configureApi(context, extensionId, env.ui.sim.baseUrl, DEMO_KEY);
    const popup = await openPopup(context, extensionId);
    const log = [
      `Nov 28 22:14:05 sshd[811]: Failed password for root from ${IPS.clean} port 53`,
      `Nov 28 22:14:06 sshd[811]: Failed password for root from ${IPS.critical} port 4242`,
      `Nov 28 22:14:07 fw: DROP SRC=${IPS.private} DST=192.168.1.20`,
      `Nov 28 22:14:08 proxy: ${IPS.medium} -> ${IPS.critical}`,
    ].join('\n');
    await lookUp(popup, log);
    await expect(popup.getByText('Found 5 IP addresses (6 occurrences); looked up 3, skipped 2 as private or reserved.')).toBeVisible();
    await expect(popup.getByText(`Skipped: ${IPS.private} (private), 192.168.1.20 (private).`)).toBeVisible();
    const rows = popup.locator('tbody .ip-button');
    await expect(rows).toHaveText([IPS.critical, IPS.medium, IPS.clean, IPS.private, '192.168.1.20']);
    expect(env.ui.sim.requestLog.filter((e) => e.path === '/checkIP/bulk')).toHaveLength(1);

    const [download] = await Promise.all([popup.waitForEvent('download'), popup.getByRole('button', { name: 'Download CSV' }).click()]);
    const csv = readFileSync((await download.path())!, 'utf8').split('\r\n');
    expect(csv[0]).toMatch(/^ip,seen,severity,status,score,api_threat_level,reputation,total_hits,last_attack,/);
    expect(csv[1]).toMatch(new RegExp(`^${IPS.critical.replace(/\./g, '\\.')},2,critical,found,95,CRITICAL,known attacker,1423,2025-11-28T22:14:05\\.000Z,`));
    const [json] = await Promise.all([popup.waitForEvent('download'), popup.getByRole('button', { name: 'Download JSON' }).click()]);
    const data = JSON.parse(readFileSync((await json.path())!, 'utf8'));
    expect(data).toMatchObject({ source: 'lookup', count: 5 });
    expect(data.items[0]).toMatchObject({ ip: IPS.critical, country: null, fetched_at: expect.stringMatching(/Z$/) });
  });

  test('invalid input gets an inline message and sends nothing', async ({ context, extensionId }) => {
    await configureApi(context, extensionId, env.ui.sim.baseUrl, DEMO_KEY);
    const popup = await openPopup(context, extensionId);
    const before = env.ui.sim.requestLog.length;
    await lookUp(popup, '300.1.2.3');
    await expect(popup.getByText('"300.1.2.3" is not a valid IP address.')).toBeVisible();
    await expect(popup.getByLabel('IP address or text')).toHaveAttribute('aria-invalid', 'true');
    await lookUp(popup, 'nothing to see here');
    await expect(popup.getByText('No IP addresses found in this text.')).toBeVisible();
    expect(env.ui.sim.requestLog.slice(before).filter((e) => e.path.startsWith('/checkIP'))).toEqual([]);
  });

  test('without a key the popup says so and opens the options in one click', async ({ context, extensionId }) => {
    const popup = await openPopup(context, extensionId);
    await expect(popup.getByText('No API key is set')).toBeVisible();
    const [options] = await Promise.all([context.waitForEvent('page'), popup.getByRole('button', { name: 'Open settings to add a key' }).click()]);
    await options.waitForLoadState();
    expect(options.url()).toBe(extensionUrl(extensionId, 'options.html'));
    await expect(options.getByLabel('API key', { exact: true })).toBeVisible();
  });

  test('keyboard only: the input has focus on open, Enter looks up, Tab reaches every control', async ({ context, extensionId }) => {
    await configureApi(context, extensionId, env.ui.sim.baseUrl, DEMO_KEY);
    const popup = await openPopup(context, extensionId);
    await expect(popup.getByLabel('IP address or text')).toBeFocused();
    await popup.keyboard.type(IPS.high);
    await popup.keyboard.press('Enter');
    await expect(popup.getByRole('region', { name: `Reputation of ${IPS.high}` })).toContainText('Emerald Onion');
    await popup.getByLabel('IP address or text').focus();
    await popup.keyboard.press('Tab');
    await expect(popup.getByRole('button', { name: 'Look up' })).toBeFocused();
    await popup.keyboard.press('Tab');
    await expect(popup.getByRole('button', { name: 'Clear' })).toBeFocused();
    await popup.keyboard.press('Enter');
    await expect(popup.getByLabel('IP address or text')).toBeFocused();
    await expect(popup.getByLabel('IP address or text')).toHaveValue('');
  });

  test('API text is shown as text, never run as HTML', async ({ context, extensionId }) => {
    await configureApi(context, extensionId, env.ui.sim.baseUrl, DEMO_KEY);
    const popup = await openPopup(context, extensionId);
    await lookUp(popup, IPS.xss);
    const card = popup.getByRole('region', { name: `Reputation of ${IPS.xss}` });
    await expect(card).toContainText('<img src=x onerror=alert(1)>');
    await expect(card).toContainText('"><svg onload=alert(4)>');
    expect(await popup.locator('img, svg, script:not([src]), b').count()).toBe(0);
  });
});

test.describe('errors', () => {
  test('wrong key', async ({ context, extensionId }) => {
    await saveApiSettings(context, extensionId, { baseUrl: env.ui.sim.baseUrl, apiKey: 'wrong-key-123' });
    const popup = await openPopup(context, extensionId);
    await lookUp(popup, IPS.critical);
    const alert = popup.locator('[data-error-kind="invalid-key"]').first();
    await expect(alert).toContainText('Invalid key');
    await expect(alert.getByRole('button', { name: 'Open settings' })).toBeVisible();
  });

  test('unreachable server', async ({ context, extensionId }) => {
    await saveApiSettings(context, extensionId, { baseUrl: await unreachableBaseUrl(), apiKey: DEMO_KEY });
    const popup = await openPopup(context, extensionId);
    await lookUp(popup, IPS.critical);
    await expect(popup.locator('[data-error-kind="network"]').first()).toContainText('Network error');
  });

  test('rate limited (429): the pause and when lookups resume are shown', async ({ context, extensionId }) => {
    await configureApi(context, extensionId, env.ui.sim.baseUrl, DEMO_KEY);
    // A Retry-After longer than the client waits in place: the background pauses its queue.
    env.ui.sim.setFaults({ rateLimit: { count: 50, path: '*', retryAfterSeconds: 120 } });
    const popup = await openPopup(context, extensionId);
    await lookUp(popup, IPS.high);
    const notice = popup.locator('[data-error-kind="rate-limited"]').first();
    await expect(notice).toContainText('Too many requests');
    await expect(notice).toContainText('Lookups resume in 2 minutes');
    await expect(notice).toContainText('HTTP 429: Rate limit exceeded');
    await expect(popup.getByText(`Looking up ${IPS.high}…`)).toBeVisible();
  });

  test('quota exhausted', async ({ context, extensionId }) => {
    env.ui.sim.setKey(LOW_QUOTA_KEY, { currentUsage: 5 });
    await configureApi(context, extensionId, env.ui.sim.baseUrl, LOW_QUOTA_KEY);
    const popup = await openPopup(context, extensionId);
    await expect(popup.getByText('5 of 5 used')).toBeVisible();
    await expect(popup.getByText('Exhausted', { exact: true })).toBeVisible();
    await expect(popup.getByText('no lookups, automatic or manual, until the period resets')).toBeVisible();
    await lookUp(popup, IPS.medium);
    await expect(popup.locator('[data-error-kind="quota-exhausted"]').first()).toContainText('Quota exhausted');
  });
});

test.describe('quota meter', () => {
  test('shows used / limit with the reserve, the state and the last refresh, and refreshes', async ({ context, extensionId }) => {
    env.ui.sim.setKey(DEMO_KEY, { currentUsage: 950 });
    await configureApi(context, extensionId, env.ui.sim.baseUrl, DEMO_KEY);
    const popup = await openPopup(context, extensionId);
    await expect(popup.getByText('950 of 1,000 used')).toBeVisible();
    await expect(popup.getByText('Reserve reached', { exact: true })).toBeVisible();
    await expect(popup.getByText('Automatic lookups are paused to keep the reserve')).toBeVisible();
    // The rest waits behind the disclosure, so the quota takes two lines.
    await expect(popup.getByText("Limit: this key's own.")).toBeHidden();
    await popup.getByText('Quota details').click();
    await expect(popup.getByText('Reserve: the last 100 requests are kept for manual lookups.')).toBeVisible();
    await expect(popup.getByText(/^Updated .* UTC\)$/)).toBeVisible();
    await expect(popup.getByRole('meter', { name: 'Quota used' })).toHaveAttribute('aria-valuenow', '95');
    await expect(popup.getByText("Limit: this key's own.")).toBeVisible();
    env.ui.sim.setKey(DEMO_KEY, { currentUsage: 100 });
    await popup.getByRole('button', { name: 'Refresh quota' }).click();
    await expect(popup.getByText('100 of 1,000 used')).toBeVisible();
    await expect(popup.getByText('OK', { exact: true })).toBeVisible();
  });

  test("a key without its own limit: the organisation's pool, with its usage", async ({ context, extensionId }) => {
    // shared-quota-key: no own limit, in an organisation of 20 requests.
    env.ui.sim.setKey(SHARED_QUOTA_KEY, { currentUsage: 4 });
    await configureApi(context, extensionId, env.ui.sim.baseUrl, SHARED_QUOTA_KEY);
    const popup = await openPopup(context, extensionId);
    await expect(popup.getByText('4 of 20 used')).toBeVisible();
    await popup.getByText('Quota details').click();
    await expect(popup.getByText("Limit: the organisation's pool, shared with its other keys")).toBeVisible();
  });
});

test.describe('This page', () => {
  test('past the per-page cap the popup says so, and one click looks up the rest', async ({ context, extensionId }) => {
    await configureApi(context, extensionId, env.ui.sim.baseUrl, DEMO_KEY);
    const options = await context.newPage();
    await options.goto(extensionUrl(extensionId, 'options.html'));
    await options.getByLabel('Per-page cap').fill('2');
    await options.getByLabel('Per-page cap').press('Enter');
    await expect(options.getByText('Saved.')).toBeVisible();
    await options.close();

    const site = await context.newPage();
    await site.goto(env.ui.pageUrl);
    const popup = await openPopup(context, extensionId);
    const tabId = await tabIdOf(popup, env.ui.pageUrl);
    await popup.goto(extensionUrl(extensionId, 'popup.html', `?tab=${tabId}`));
    const section = popup.getByRole('region', { name: 'This page' });
    await section.getByRole('button', { name: 'Scan this page' }).click();
    // Six public IPs, a cap of two: four are left out, and the popup says so in one panel.
    const panel = section.getByTestId('page-cap');
    await expect(panel.getByText('The cap is reached: 4 addresses on this page were not looked up (marked “Past the cap”).')).toBeVisible();
    await expect(panel.getByText(/^Up to 4 API units \(cached answers are free\)\. Quota left: /)).toBeVisible();
    // One control for the cap, nothing else offering to lift it.
    await expect(popup.getByRole('button', { name: /Look up the rest|more on this tab/ })).toHaveCount(1);
    // On the page, the four are "capped", drawn apart from the private address ("skipped").
    const marks = (name: string) => site.evaluate((n) => [...(CSS.highlights.get(n) ?? [])].length, name);
    await expect.poll(() => marks('ip-rep-capped')).toBe(4);
    expect(await marks('ip-rep-skipped')).toBe(1);
    // The toolbar button's tooltip says it too (the badge keeps counting risky IPs).
    const title = () =>
      popup.evaluate((id) => (globalThis as unknown as { chrome: { action: { getTitle(d: { tabId: number }): Promise<string> } } }).chrome.action.getTitle({ tabId: id }), tabId);
    expect(await title()).toContain('this page reached its cap of automatic lookups');
    const before = env.ui.sim.requestLog.filter((r) => r.path === '/checkIP/bulk').reduce((n, r) => n + r.ips, 0);
    expect(before).toBe(2);
    await panel.getByRole('button', { name: 'Look up the rest (4)' }).click();
    await expect(section.getByText("Looked up 4 addresses past this page's cap.")).toBeVisible();
    await expect(section.getByText(/not looked up \(marked/)).toHaveCount(0);
    await expect(section.locator('tbody .ip-button')).toHaveText([IPS.critical, IPS.high, IPS.xss, IPS.medium, IPS.clean, IPS.whitelisted, IPS.private]);
    // The page's marks follow: every public IP has its colour, none is left "capped" or "skipped".
    await expect.poll(() => marks('ip-rep-whitelisted')).toBe(1);
    await expect.poll(() => marks('ip-rep-capped')).toBe(0);
    expect(await marks('ip-rep-skipped')).toBe(1);
    // Only the four were asked: nothing looked up twice.
    expect(env.ui.sim.requestLog.filter((r) => r.path === '/checkIP/bulk').reduce((n, r) => n + r.ips, 0)).toBe(6);
  });

  test('scan, list with severities, filter, sort, details, scan the site and stop', async ({ context, extensionId }) => {
    await configureApi(context, extensionId, env.ui.sim.baseUrl, DEMO_KEY);
    const site = await context.newPage();
    await site.goto(env.ui.pageUrl);
    const popup = await openPopup(context, extensionId);
    const tabId = await tabIdOf(popup, env.ui.pageUrl);
    await popup.goto(extensionUrl(extensionId, 'popup.html', `?tab=${tabId}`));
    const section = popup.getByRole('region', { name: 'This page' });

    await expect(section.getByText('This page is not scanned.')).toBeVisible();
    await section.getByRole('button', { name: 'Scan this page' }).click();
    const rows = section.locator('tbody tr.row');
    // Riskiest first: severity, then score (23.129.64.130 scores 78, the markup fixture 67).
    await expect(section.locator('tbody .ip-button')).toHaveText([IPS.critical, IPS.high, IPS.xss, IPS.medium, IPS.clean, IPS.whitelisted, IPS.private]);
    await expect(rows.first()).toContainText('Critical');
    await expect(rows.first()).toContainText('1,423');
    await expect(rows.first().locator('.col-count')).toHaveText('2');

    // One severity per IP: by score and the thresholds (high ≥ 50), as a single lookup says, so
    // the "suspicious" fixture (55, threat_level MEDIUM in bulk) is High too.
    await section.getByLabel('Severity').selectOption('high');
    await expect(section.locator('tbody .ip-button')).toHaveText([IPS.high, IPS.xss, IPS.medium]);
    await section.getByLabel('Severity').selectOption('all');
    await section.getByLabel('Filter').fill('known attacker');
    await expect(section.locator('tbody .ip-button')).toHaveText([IPS.critical]);
    await section.getByLabel('Filter').fill('');

    await section.getByRole('button', { name: 'Hits' }).click();
    await expect(section.locator('tbody .ip-button').first()).toHaveText(IPS.critical);
    await section.getByRole('button', { name: 'Hits' }).click();
    await expect(section.getByRole('columnheader', { name: 'Hits' })).toHaveAttribute('aria-sort', 'ascending');
    await section.getByRole('button', { name: 'IP' }).click();
    await expect(section.locator('tbody .ip-button').first()).toHaveText(IPS.whitelisted);

    await section.getByRole('button', { name: IPS.medium, exact: true }).click();
    const card = section.getByRole('region', { name: `Reputation of ${IPS.medium}` });
    await expect(card).toContainText('55 / 100');
    // Page results come from bulk lookups (no description, no network): one click fetches them.
    await card.getByRole('button', { name: 'Load network details (uses 1 request)' }).click();
    await expect(card.getByLabel('Network details')).toContainText('Media Land LLC');
    await expect(card).toContainText('Port scanning from a bulletproof host');

    const [download] = await Promise.all([popup.waitForEvent('download'), section.getByRole('button', { name: 'Download CSV' }).click()]);
    expect(download.suggestedFilename()).toMatch(/^ip-reputation-127-0-0-1-\d{8}-\d{6}\.csv$/);

    await section.getByRole('button', { name: 'Scan this site' }).click();
    await expect(section.getByText('Pages on http://127.0.0.1/* are now scanned when they load.')).toBeVisible();
    await section.getByRole('button', { name: 'Stop scanning this site' }).click();
    await expect(section.getByRole('button', { name: 'Scan this site' })).toBeVisible();
  });

  test('an extension page cannot be scanned, and says so', async ({ context, extensionId }) => {
    const popup = await openPopup(context, extensionId);
    await expect(popup.getByRole('region', { name: 'This page' })).toContainText('the extension cannot read it');
  });
});

test.describe('layout', () => {
  for (const width of [360, 800]) {
    test(`fits ${width} px without horizontal scrolling`, async ({ context, extensionId }) => {
      await configureApi(context, extensionId, env.ui.sim.baseUrl, DEMO_KEY);
      const popup = await context.newPage();
      await popup.setViewportSize({ width, height: 700 });
      await popup.goto(extensionUrl(extensionId, 'popup.html'));
      await lookUp(popup, `${IPS.critical} ${IPS.high} 2a0b:4140:ddd::1 193.110.107.247 ${IPS.whitelisted}`);
      await popup.getByRole('button', { name: IPS.critical, exact: true }).click();
      await expect(popup.getByRole('region', { name: `Reputation of ${IPS.critical}` })).toBeVisible();
      const overflow = await popup.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      // No IPv4 address is split over two lines (`193.110.107.2` / `47` reads as two addresses).
      const split = await popup.evaluate(() =>
        [...document.querySelectorAll('.ip-button, .rep-ip')]
          .filter((el) => !el.textContent!.includes(':'))
          .filter((el) => {
            const range = document.createRange();
            range.selectNodeContents(el);
            return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size > 1;
          })
          .map((el) => el.textContent),
      );
      expect(split).toEqual([]);
    });
  }

  test('screenshots in light and dark mode', async ({ context, extensionId }, testInfo) => {
    await configureApi(context, extensionId, env.ui.sim.baseUrl, DEMO_KEY);
    const files = await takeUiScreenshots(context, extensionId, testInfo.outputPath('screenshots'), { lookupIp: IPS.critical });
    expect(files.map((f) => f.split('/').pop())).toEqual(['popup-light.png', 'options-light.png', 'popup-dark.png', 'options-dark.png']);
    // Dark mode really is dark: the page background differs between the schemes.
    const popup = await context.newPage();
    await popup.emulateMedia({ colorScheme: 'dark' });
    await popup.goto(extensionUrl(extensionId, 'popup.html'));
    const dark = await popup.evaluate(() => getComputedStyle(document.body).backgroundColor);
    await popup.emulateMedia({ colorScheme: 'light' });
    const light = await popup.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(dark).not.toBe(light);
    for (const file of files) await testInfo.attach(file.split('/').pop()!, { path: file, contentType: 'image/png' });
  });
});
