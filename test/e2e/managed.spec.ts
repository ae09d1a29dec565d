/**
 * Managed deployment in real Chromium: an administrator's policy, delivered by Chromium's own
 * policy machinery into a temp profile (see chromium-policy.ts), reaches chrome.storage.managed
 * through our managed_schema. Options shows the values locked, "Set by your organisation", and
 * never the key; lookups go to the managed server with the managed key; a popup action cannot
 * change a managed site list.
 */
import { DEMO_KEY } from '../sim/keys';
import { test as base, expect } from './fixtures';
import { E2E_EXTENSION_DIR } from './chromium';
import { unpackedExtensionId, writeExtensionPolicy } from './chromium-policy';
import { sendFromExtension } from './page-support';
import { extensionUrl, useUiSimulator } from './ui-helpers';

const env = useUiSimulator();

/** Every test's profile starts with the organisation's policy (written before the browser starts). */
const test = base.extend({
  userDataDir: async ({ userDataDir }, use) => {
    writeExtensionPolicy(userDataDir, unpackedExtensionId(E2E_EXTENSION_DIR), orgPolicy());
    await use(userDataDir);
  },
});

/** Built per test: the simulator's port is known only once it runs. */
function orgPolicy(): Record<string, unknown> {
  return {
    apiBaseUrl: env.ui.sim.baseUrl,
    apiKey: DEMO_KEY,
    sitesToScan: [`${env.ui.sim.origin}/pages/*`],
    thresholds: { critical: 95, high: 80, medium: 50, low: 20 },
    // perPageCap passes Chrome's schema (an integer) but not ours (at least 1): ignored, named.
    lookupPolicy: { reservePercent: 25, perPageCap: -5 },
    markStyle: 'background',
  };
}

test.describe('managed by policy', () => {
  test('options shows managed values locked and "Set by your organisation", hides the key, names ignored values', async ({ context, extensionId }) => {
    const page = await context.newPage();
    await page.goto(extensionUrl(extensionId, 'options.html'));
    await expect(page.getByRole('heading', { name: 'Managed by your organisation' })).toBeVisible();
    const url = page.getByLabel('API base URL');
    await expect(url).toHaveValue(env.ui.sim.baseUrl);
    await expect(url).toBeDisabled();
    await expect(page.locator('#api-base-url-help')).toContainText('Set by your organisation');
    // The managed key: not in a field, not masked, not anywhere in the page.
    await expect(page.locator('input#api-key')).toHaveCount(0);
    await expect(page.getByText("Only the extension's background uses it")).toBeVisible();
    expect(await page.content()).not.toContain(DEMO_KEY);
    // Lookup policy: the managed field locked, the invalid one ignored (editable, user's value).
    await expect(page.getByLabel('Quota reserve (%)')).toHaveValue('25');
    await expect(page.getByLabel('Quota reserve (%)')).toBeDisabled();
    await expect(page.getByLabel('Per-page cap')).toBeEnabled();
    await expect(page.getByLabel('Per-page cap')).toHaveValue('500');
    await expect(page.getByRole('alert').filter({ hasText: 'ignored' })).toContainText('lookupPolicy.perPageCap');
    await expect(page.getByLabel('Critical from score')).toHaveValue('95');
    await expect(page.getByLabel('Critical from score')).toBeDisabled();
    await expect(page.getByLabel('Background')).toBeChecked();
    await expect(page.getByLabel('Background')).toBeDisabled();
    // Sites: the managed list, with no Remove and no Add.
    await expect(page.getByText(`${env.ui.sim.origin}/pages/*`)).toBeVisible();
    await expect(page.getByRole('button', { name: /^Remove / })).toHaveCount(0);
    await expect(page.getByLabel('Site to add')).toHaveCount(0);
  });

  test('lookups use the managed server and key; a popup action cannot drop a managed site', async ({ context, extensionId }) => {
    const reply = await sendFromExtension(context, extensionId, { type: 'ui:lookup', payload: { ips: ['185.220.101.1'] } });
    expect(reply.ok).toBe(true);
    expect(env.ui.sim.requestLog.some((e) => e.path.startsWith('/check'))).toBe(true);
    expect(env.ui.sim.usage(DEMO_KEY)).toBeGreaterThan(0);
    const stop = await sendFromExtension(context, extensionId, {
      type: 'ui:set-site-scanning',
      payload: { pattern: `${env.ui.sim.origin}/pages/*`, enabled: false },
    });
    expect(stop.ok).toBe(false);
    expect(stop.error?.message).toContain('Set by your organisation');
  });
});
