/**
 * axe-core's WCAG 2.2 AA audit (test/e2e/axe.ts) of the popup and the options page, light and
 * dark: the popup idle, with a single lookup, with a pasted lookup, with This page listed, with
 * failures shown; the options page. Zero violations in each.
 */
import type { BrowserContext, Page } from '@playwright/test';
import { DEMO_KEY } from '../sim/keys';
import { auditPage } from './axe';
import { expect, test } from './fixtures';
import { configureApi, extensionUrl, IPS, tabIdOf, useUiSimulator } from './ui-helpers';

const env = useUiSimulator();

async function lookUp(popup: Page, text: string): Promise<void> {
  await popup.getByLabel('IP address or text').fill(text);
  await popup.getByRole('button', { name: 'Look up' }).click();
}

async function popupOn(context: BrowserContext, extensionId: string, url: string): Promise<Page> {
  const popup = await context.newPage();
  await popup.goto(extensionUrl(extensionId, 'popup.html'));
  const tabId = await tabIdOf(popup, url);
  await popup.goto(extensionUrl(extensionId, 'popup.html', `?tab=${tabId}`));
  return popup;
}

for (const colorScheme of ['light', 'dark'] as const) {
  test(`popup and options pass axe's WCAG 2.2 AA rules (${colorScheme})`, async ({ context, extensionId }) => {
    // Seven states audited in one browser: on a shared two-core machine that takes minutes.
    test.setTimeout(240_000);
    const found: string[] = [];
    const audit = async (page: Page, state: string) => {
      const { summary } = await auditPage(page, { colorScheme });
      if (summary) found.push(`${state}:\n${summary}`);
    };

    // Idle: no key yet.
    const idle = await context.newPage();
    await idle.goto(extensionUrl(extensionId, 'popup.html'));
    await expect(idle.getByText('No API key is set')).toBeVisible();
    await audit(idle, 'popup idle');
    await idle.close();

    await configureApi(context, extensionId, env.ui.sim.baseUrl, DEMO_KEY);
    const site = await context.newPage();
    await site.goto(env.ui.pageUrl);
    const popup = await popupOn(context, extensionId, env.ui.pageUrl);
    await expect(popup.getByText(/of 1,000 used/)).toBeVisible();
    await audit(popup, 'popup with a key, page not scanned');

    await lookUp(popup, IPS.critical);
    await expect(popup.getByRole('region', { name: `Reputation of ${IPS.critical}` })).toContainText('95 / 100');
    await audit(popup, 'single lookup');

    await lookUp(popup, [IPS.critical, IPS.high, IPS.medium, IPS.clean, IPS.whitelisted, IPS.private, '203.0.113.9'].join(' '));
    await expect(popup.getByText(/^Found 7 IP addresses/)).toBeVisible();
    await audit(popup, 'pasted lookup');

    await popup.getByRole('button', { name: 'Clear' }).click();
    await popup.getByRole('button', { name: 'Scan this page' }).click();
    const rows = popup.getByRole('region', { name: 'This page' }).locator('tbody tr.row');
    await expect(rows).toHaveCount(7, { timeout: 30_000 });
    await rows.first().locator('.ip-button').click();
    await popup.getByText('Quota details').click();
    await audit(popup, 'This page, a row open, quota details open');

    // Failures: the API refuses every call for a while.
    env.ui.sim.setFaults({ rateLimit: { count: 50, path: '*', retryAfterSeconds: 120 } });
    await lookUp(popup, '9.9.9.9');
    await expect(popup.locator('[data-error-kind]').first()).toBeVisible({ timeout: 30_000 });
    await audit(popup, 'failures shown');
    env.ui.sim.clearFaults();

    const options = await context.newPage();
    await options.goto(extensionUrl(extensionId, 'options.html'));
    await expect(options.getByLabel('Send private IPs')).toBeVisible();
    await audit(options, 'options');

    expect(found.join('\n\n')).toBe('');
  });
}
