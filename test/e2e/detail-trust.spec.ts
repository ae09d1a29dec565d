/**
 * The trust rule for paid requests from a page (lib/background/detail-trust.ts: a hostile page must not spend the quota), in
 * real Chromium: the card's "Details" and "Check this /24" are refused, with the card's
 * sentence, when they come from a tab that is not in front (a background tab can be driven by
 * a script, not by the analyst reading it), and work once the same tab is in front again.
 * The unit tests cover every rule; this one proves the browser's own answer (tabs.get and
 * windows.getLastFocused) is what the background reads.
 */
import type { BrowserContext, CDPSession, Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { clickCardButton, hoverIp, markedIps, pageUrl, readCard, usePageSimulator } from './page-support';

const env = usePageSimulator({ scanLoopback: true });

const cardText = async (cdp: CDPSession) => (await readCard(cdp))?.text ?? '';

/** The page with its card open on `ip`, then another tab brought to the front. */
async function cardInBackgroundTab(context: BrowserContext, ip: string): Promise<{ page: Page; cdp: CDPSession; front: Page }> {
  const page = await context.newPage();
  await page.goto(pageUrl(env.sim, 'splunk-events.html'));
  await expect.poll(() => markedIps(page, 'critical')).toContain(ip);
  const cdp = await context.newCDPSession(page);
  await hoverIp(page, ip);
  await expect.poll(() => cardText(cdp)).toContain('Network details cost 1 API request');
  const front = await context.newPage();
  await front.goto(pageUrl(env.sim, 'splunk-events.html', 'localhost'));
  await front.bringToFront();
  return { page, cdp, front };
}

test('Details from a background tab is refused with the card sentence; from the tab in front it works', async ({ context }) => {
  const { page, cdp, front } = await cardInBackgroundTab(context, '185.220.101.1');
  const detailed = () => env.sim.requestLog.filter((r) => r.path === '/checkIP').length;
  const before = detailed();

  await clickCardButton(page, cdp, /^Details$/);
  await expect.poll(() => cardText(cdp)).toContain('Details are only looked up from the tab in front: click the card again in this tab.');
  expect(await cardText(cdp)).not.toContain('AS60729');
  expect(detailed()).toBe(before);

  await page.bringToFront();
  await front.close();
  await clickCardButton(page, cdp, /^Details$/);
  await expect.poll(() => cardText(cdp)).toContain('AS60729');
  expect(detailed()).toBe(before + 1);
});

test('"Check this /24" from a background tab is refused with the card sentence; from the tab in front it opens the check', async ({ context, extensionId }) => {
  const { page, cdp, front } = await cardInBackgroundTab(context, '185.220.101.1');
  const opened: Page[] = [];
  context.on('page', (p) => opened.push(p));

  await clickCardButton(page, cdp, /^Check 185\.220\.101\.0\/24$/);
  await expect.poll(() => cardText(cdp)).toContain('A subnet check opens only from the tab in front: click the card again in this tab.');
  expect(opened).toHaveLength(0);

  await page.bringToFront();
  await front.close();
  const confirm = context.waitForEvent('page');
  await clickCardButton(page, cdp, /^Check 185\.220\.101\.0\/24$/);
  const popup = await confirm;
  await popup.waitForLoadState();
  expect(popup.url()).toContain(`chrome-extension://${extensionId}/popup.html?tab=`);
  expect(popup.url()).toContain('subnet=185.220.101.0%2F24');
  // Opening the offer pays nothing: only the popup's confirmation does.
  expect(env.sim.requestLog.filter((r) => r.path === '/checkSubnet')).toHaveLength(0);
});
