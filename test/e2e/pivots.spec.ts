/**
 * "Open in …" (pivot links): the options editor, the hover card's buttons and O key (opened by
 * the background in a new tab, IPv4 and IPv6 percent-encoded), Copy defanged, and the popup's
 * row links. Third-party pages are never fetched: every service URL is answered by a stub, and
 * what a test checks is the URL the new tab was given.
 */
import type { BrowserContext, CDPSession, Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { clickCardButton, hoverIp, markedIps, pageUrl, readCard, usePageSimulator } from './page-support';
import { extensionUrl, tabIdOf } from './ui-helpers';

const env = usePageSimulator({ scanLoopback: true });
const SERVICES = /^https:\/\/(www\.shodan\.io|search\.censys\.io|www\.virustotal\.com|www\.abuseipdb\.com|viz\.greynoise\.io|ipinfo\.io|soar\.example)\//;

async function stubServices(context: BrowserContext): Promise<void> {
  await context.route(SERVICES, (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<title>stub</title>stub' }));
}

declare const chrome: { storage: { local: { get(k: string): Promise<Record<string, unknown>> } } };

/**
 * The URL the tab that `action` opens was sent to, from its navigation history: a tab the
 * background creates starts loading before Playwright can route it, so a third-party page
 * fails to load here (no network) and the page's own URL is Chromium's error page; the
 * history entry still holds the address the tab was given.
 */
async function openedUrl(context: BrowserContext, action: () => Promise<unknown>): Promise<string> {
  const [tab] = await Promise.all([context.waitForEvent('page'), action()]);
  // The tab swaps renderer when its navigation fails to the error page, which detaches a CDP
  // session opened before ("Not attached to an active page"): open a new one and ask again.
  let cdp: CDPSession | null = null;
  let url = '';
  await expect
    .poll(async () => {
      try {
        cdp ??= await context.newCDPSession(tab);
        const history = (await cdp.send('Page.getNavigationHistory')) as { currentIndex: number; entries: { url: string }[] };
        url = history.entries[history.currentIndex]?.url ?? '';
      } catch {
        cdp = null;
      }
      return url;
    })
    .toMatch(/^https:/);
  await tab.close();
  return url;
}

async function splunkPage(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  await page.goto(pageUrl(env.sim, 'splunk-events.html'));
  await expect.poll(() => markedIps(page, 'critical')).toEqual(expect.arrayContaining(['185.220.101.1', '2a0b:4140:ddd::1']));
  return page;
}

test('the card offers the services; O opens the first in a new tab with the encoded IPv4 or IPv6; Copy defanged', async ({ context }) => {
  await stubServices(context);
  const page = await splunkPage(context);
  const cdp = await context.newCDPSession(page);

  await hoverIp(page, '185.220.101.1');
  await expect.poll(async () => (await readCard(cdp))?.text ?? '').toContain('Open in Shodan (key O) Censys VirusTotal AbuseIPDB GreyNoise ipinfo');
  expect(await openedUrl(context, () => page.keyboard.press('o'))).toBe('https://www.shodan.io/host/185.220.101.1');

  await page.bringToFront();
  await hoverIp(page, '2a0b:4140:ddd::1');
  await expect.poll(async () => (await readCard(cdp))?.text ?? '').toContain('Total hits 902'); // the IPv6 fixture
  expect(await openedUrl(context, () => page.keyboard.press('o'))).toBe('https://www.shodan.io/host/2a0b%3A4140%3Addd%3A%3A1');

  await page.bringToFront();
  await hoverIp(page, '2a0b:4140:ddd::1');
  await expect.poll(async () => (await readCard(cdp))?.text ?? '').toContain('Total hits 902'); // the IPv6 fixture
  expect(await openedUrl(context, () => clickCardButton(page, cdp, /^ipinfo$/))).toBe('https://ipinfo.io/2a0b%3A4140%3Addd%3A%3A1');

  await page.bringToFront();
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(page.url()).origin });
  await hoverIp(page, '2a0b:4140:ddd::1');
  await expect.poll(async () => (await readCard(cdp))?.text ?? '').toContain('Total hits 902');
  await clickCardButton(page, cdp, /^Copy defanged$/);
  await expect.poll(async () => (await readCard(cdp))?.text ?? '').toContain('Copied defanged');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe('2a0b[:]4140[:]ddd[:][:]1');
});

test('options: an invalid template is refused with its reason; a service turned off or added shows in the card', async ({ context, extensionId }) => {
  await stubServices(context);
  const options = await context.newPage();
  await options.goto(extensionUrl(extensionId, 'options.html'));
  const section = options.getByRole('region', { name: 'Open in …' });
  await expect(section).toContainText('Opening one of these links is the only way an IP address goes to a third party');

  const shodanUrl = section.getByLabel('URL template of Shodan');
  await shodanUrl.fill('javascript:alert({ip})');
  await expect(section).toContainText('Only https:// links are allowed (this one is javascript:).');
  await shodanUrl.press('Enter');
  await expect(section.getByRole('status')).toContainText('Not saved');
  await shodanUrl.fill('https://{ip}.shodan.io/');
  await expect(section).toContainText('{ip} must be in the path or query, not in the host name.');
  type Stored = { id: string; name: string; urlTemplate: string; enabled: boolean }[] | undefined;
  const stored = () => options.evaluate(async () => (await chrome.storage.local.get('pivots')).pivots as Stored);
  expect(await stored()).toBeUndefined();

  await shodanUrl.fill('https://www.shodan.io/host/{ip}');
  await section.getByLabel('Offer Censys').uncheck();
  await expect(section.getByRole('status')).toHaveText('Saved.');
  expect((await stored())!.find((p) => p.id === 'censys')!.enabled).toBe(false);

  await section.getByRole('button', { name: 'Add a service' }).click();
  await section.getByLabel('Name of service 7').fill('SOAR');
  const soarUrl = section.getByLabel('URL template of SOAR');
  await soarUrl.fill('https://soar.example/ip?q={ip}');
  await soarUrl.press('Enter');
  await expect(section.getByRole('status')).toHaveText('Saved.');
  expect((await stored())!.at(-1)).toEqual({ id: 'custom-7', name: 'SOAR', urlTemplate: 'https://soar.example/ip?q={ip}', enabled: true });

  const page = await splunkPage(context);
  const cdp = await context.newCDPSession(page);
  await hoverIp(page, '185.220.101.1');
  await expect.poll(async () => (await readCard(cdp))?.text ?? '').toContain('Open in Shodan (key O) VirusTotal AbuseIPDB GreyNoise ipinfo SOAR');
  expect(await openedUrl(context, () => clickCardButton(page, cdp, /^SOAR$/))).toBe('https://soar.example/ip?q=185.220.101.1');

  await options.bringToFront();
  await section.getByRole('button', { name: 'Reset to defaults' }).click();
  await expect(section.getByRole('status')).toHaveText('Saved.');
  await expect(section.getByLabel('Offer Censys')).toBeChecked();
  await expect(section.getByLabel('URL template of SOAR')).toHaveCount(0);
});

test('a popup row opens the IP in a service in a new tab', async ({ context, extensionId }) => {
  await stubServices(context);
  const page = await splunkPage(context);
  const popup = await context.newPage();
  await popup.goto(extensionUrl(extensionId, 'options.html'));
  await popup.goto(extensionUrl(extensionId, 'popup.html', `?tab=${await tabIdOf(popup, page.url())}`));
  await popup.locator('tbody .ip-button', { hasText: '2a0b:4140:ddd::1' }).click();
  const links = popup.getByRole('navigation', { name: 'Open 2a0b:4140:ddd::1 in' });
  await expect(links.getByRole('link')).toHaveText(['Shodan', 'Censys', 'VirusTotal', 'AbuseIPDB', 'GreyNoise', 'ipinfo']);
  expect(await openedUrl(context, () => links.getByRole('link', { name: 'VirusTotal' }).click())).toBe(
    'https://www.virustotal.com/gui/ip-address/2a0b%3A4140%3Addd%3A%3A1',
  );
});
