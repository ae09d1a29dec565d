/**
 * A failed lookup is a state of its own, in real Chromium against the simulator: while the
 * server fails (503 on every endpoint) the marks are "ip-rep-failed", the card and the popup
 * list say "Lookup failed", the popup shows one notice with the reason and the quota meter does
 * not say "OK"; once the server answers again, the marks resolve without a reload.
 */
import { expect, test } from './fixtures';
import { hoverIp, markedIps, pageUrl, readCard, usePageSimulator } from './page-support';
import { extensionUrl, tabIdOf } from './ui-helpers';

const env = usePageSimulator({ scanLoopback: true });
const CRITICAL = '185.220.101.1';

test('failed lookups are shown as failed everywhere and resolve when the server is back', async ({ context, extensionId }) => {
  test.setTimeout(330_000);
  env.sim.setFaults({ serverError: { count: 100_000, status: 503, path: '*' } });
  const page = await context.newPage();
  await page.goto(pageUrl(env.sim, 'splunk-events.html'));
  // While the bulk endpoint's circuit is open an IP waits up to 30 s for it, then shows failed:
  // every mark leaves "Looking up…" within 60 s (docs/lookups.md).
  await expect.poll(() => markedIps(page, 'failed'), { timeout: 60_000 }).toContain(CRITICAL);
  expect(await markedIps(page, 'unknown')).not.toContain(CRITICAL);

  // The card says why.
  const cdp = await context.newCDPSession(page);
  await hoverIp(page, CRITICAL);
  await expect.poll(async () => (await readCard(cdp))?.text ?? '').toContain('Lookup failed');
  expect((await readCard(cdp))!.text).toContain('Server error');

  // The popup: one page-level notice, failed rows, and a quota meter that does not say OK.
  const popup = await context.newPage();
  await popup.goto(extensionUrl(extensionId, 'popup.html'));
  const tabId = await tabIdOf(popup, page.url());
  await popup.goto(extensionUrl(extensionId, 'popup.html', `?tab=${tabId}`));
  const section = popup.getByRole('region', { name: 'This page' });
  const notice = section.locator('[data-error-kind="server"]');
  await expect(notice).toHaveCount(1);
  await expect(notice).toContainText(/Lookup failed for \d+ IPs on this page: Server error/);
  await expect(notice).toContainText('Try again in a few minutes');
  await expect(section.getByRole('row', { name: /Lookup failed/ }).first()).toBeVisible();
  await expect(section.getByRole('row', { name: /^\S+ (Critical|High|Medium|Low|Clean|Whitelisted|Unknown) / })).toHaveCount(0);
  await expect(popup.locator('.quota-state')).toHaveText('Lookups failing');

  // The server is back: the circuit's next probe notices on the endpoint that failed, the page
  // re-asks, marks resolve. The probe backs off (5 s doubling, with jitter): after about a minute
  // of failures the next one is 40-80 s away, and a step never exceeds 5 minutes. Meanwhile the
  // idle worker may be stopped: the wake alarm brings it back for the probe.
  env.sim.clearFaults();
  await expect.poll(() => markedIps(page, 'critical'), { timeout: 200_000 }).toContain(CRITICAL);
  // The probe's success is announced: every other failed mark is re-asked and resolved.
  await expect.poll(() => markedIps(page, 'failed'), { timeout: 30_000 }).toEqual([]);
  await popup.reload();
  await expect(popup.locator('.quota-state')).not.toHaveText('Lookups failing');
});
