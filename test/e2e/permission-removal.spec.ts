/**
 * Host permissions are given back when nothing needs them (permissions stay minimal), read from
 * `chrome.permissions.getAll()` in the service worker before and after the analyst acts:
 *   - "Stop scanning this site" in the popup removes the site's permission;
 *   - saving a new API base URL in Options removes the old server's.
 * The profile starts with the permission granted (./granted-origins.ts explains how).
 */
import type { BrowserContext, Page } from '@playwright/test';
import { DEMO_KEY } from '../sim/keys';
import { expect, serviceWorkerOf, test } from './fixtures';
import { GRANTED_HOST, GRANTED_PATTERN, grantedOrigins, launchWithGrantedOrigins } from './granted-origins';
import { configureApi, extensionUrl, tabIdOf, useUiSimulator } from './ui-helpers';

const env = useUiSimulator();

/** The same simulator, under the host the profile has a permission for. */
const onGrantedHost = (url: string) => url.replace('127.0.0.1', GRANTED_HOST);

/** Options' Save with the API on the granted host: plain http off loopback needs the analyst's consent. */
async function saveApiOnGrantedHost(context: BrowserContext, extensionId: string): Promise<Page> {
  const options = await context.newPage();
  await options.goto(extensionUrl(extensionId, 'options.html'));
  await options.getByLabel('API base URL').fill(onGrantedHost(env.ui.sim.baseUrl));
  await options.getByLabel('API key', { exact: true }).fill(DEMO_KEY);
  await options.getByLabel('I understand the key travels unencrypted').check();
  await options.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(options.getByText('Key verified:')).toBeVisible();
  return options;
}

/** What Options asks for when the API is on the granted host: its origin with the port (Chromium). */
const apiPattern = () => `http://${GRANTED_HOST}:${new URL(env.ui.sim.baseUrl).port}/*`;

async function open(userDataDir: string, patterns: string[]): Promise<{ context: BrowserContext; extensionId: string }> {
  const context = await launchWithGrantedOrigins(userDataDir, patterns);
  const extensionId = new URL((await serviceWorkerOf(context)).url()).host;
  return { context, extensionId };
}

test('"Stop scanning this site" in the popup gives the site\'s host permission back', async ({ userDataDir }) => {
  const { context, extensionId } = await open(userDataDir, [GRANTED_PATTERN]);
  try {
    await configureApi(context, extensionId, env.ui.sim.baseUrl, DEMO_KEY);
    const site = await context.newPage();
    const url = onGrantedHost(env.ui.pageUrl);
    await site.goto(url);
    const popup = await context.newPage();
    await popup.goto(extensionUrl(extensionId, 'popup.html'));
    const tabId = await tabIdOf(popup, url);
    await popup.goto(extensionUrl(extensionId, 'popup.html', `?tab=${tabId}`));
    const section = popup.getByRole('region', { name: 'This page' });

    // The analyst scans the site (the permission is already granted: no prompt), then stops.
    await section.getByRole('button', { name: 'Scan this site' }).click();
    await expect(section.getByText(`Pages on ${GRANTED_PATTERN} are now scanned when they load.`)).toBeVisible();
    expect(await grantedOrigins(context)).toContain(GRANTED_PATTERN);

    await section.getByRole('button', { name: 'Stop scanning this site' }).click();
    await expect(section.getByRole('button', { name: 'Scan this site' })).toBeVisible();
    await expect.poll(() => grantedOrigins(context)).not.toContain(GRANTED_PATTERN);
    // What the extension ships with stays.
    expect(await grantedOrigins(context)).toEqual(expect.arrayContaining(['http://127.0.0.1/*', 'https://ipswamp.com/*']));
  } finally {
    await context.close();
  }
});

test('a new API base URL saved in Options gives the old server\'s host permission back', async ({ userDataDir }) => {
  const { context, extensionId } = await open(userDataDir, [apiPattern()]);
  try {
    // The API was on the granted host (same simulator, other name).
    const options = await saveApiOnGrantedHost(context, extensionId);
    expect(await grantedOrigins(context)).toContain(apiPattern());

    await options.getByLabel('API base URL').fill(env.ui.sim.baseUrl);
    await options.getByRole('button', { name: 'Save', exact: true }).click();
    await expect(options.getByText('Key verified:')).toBeVisible();
    await expect.poll(() => grantedOrigins(context)).not.toContain(apiPattern());
    await expect(options.getByLabel('API base URL')).toHaveValue(env.ui.sim.baseUrl);
  } finally {
    await context.close();
  }
});

test('with a site to scan on the old API\'s host, each grant leaves when its user does', async ({ userDataDir }) => {
  const { context, extensionId } = await open(userDataDir, [apiPattern(), GRANTED_PATTERN]);
  try {
    const options = await saveApiOnGrantedHost(context, extensionId);
    await options.getByLabel('Site to add').fill(GRANTED_PATTERN);
    await options.getByRole('button', { name: 'Add site' }).click();
    await expect(options.getByRole('list', { name: 'Sites to scan' }).getByText(GRANTED_PATTERN)).toBeVisible();

    // The API moves: its origin (with the port) goes, the site's wider pattern stays.
    await options.getByLabel('API base URL').fill(env.ui.sim.baseUrl);
    await options.getByRole('button', { name: 'Save', exact: true }).click();
    await expect(options.getByText('Key verified:')).toBeVisible();
    await expect.poll(() => grantedOrigins(context)).not.toContain(apiPattern());
    expect(await grantedOrigins(context)).toContain(GRANTED_PATTERN);

    // The site is removed too: nothing on that host is left.
    await options.getByRole('button', { name: `Remove ${GRANTED_PATTERN}` }).click();
    await expect(options.getByText('No sites yet.')).toBeVisible();
    await expect.poll(async () => (await grantedOrigins(context)).filter((o) => o.includes(GRANTED_HOST))).toEqual([]);
  } finally {
    await context.close();
  }
});
