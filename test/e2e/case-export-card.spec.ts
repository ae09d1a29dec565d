/**
 * The hover card's "Copy as STIX" in Chromium: the background builds the bundle, the card
 * writes it to the page's clipboard; what lands there is parsed and checked.
 */
import { stixViolations } from '../unit/export/stix-rules';
import { expect, test } from './fixtures';
import { clickCardButton, hoverIp, markedIps, pageUrl, readCard, usePageSimulator } from './page-support';

const env = usePageSimulator({ scanLoopback: true });

test('Copy as STIX copies a valid bundle of the hovered IP, with its indicator', async ({ context }) => {
  const page = await context.newPage();
  const url = pageUrl(env.sim, 'splunk-events.html');
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(url).origin });
  await page.goto(url);
  await expect.poll(() => markedIps(page, 'critical')).toContain('185.220.101.1');
  const cdp = await context.newCDPSession(page);
  await hoverIp(page, '185.220.101.1');
  await expect.poll(async () => (await readCard(cdp))?.text ?? '').toContain('Copy as STIX');
  await clickCardButton(page, cdp, /^Copy as STIX$/);
  await expect.poll(async () => (await readCard(cdp))?.text ?? '').toContain('Copied STIX');
  const bundle = JSON.parse(await page.evaluate(() => navigator.clipboard.readText())) as { objects: { type: string; pattern?: string }[] };
  expect(stixViolations(bundle)).toEqual([]);
  expect(bundle.objects.filter((o) => o.type === 'indicator').map((o) => o.pattern)).toEqual(["[ipv4-addr:value = '185.220.101.1']"]);
  // The card's copy carries no page address.
  expect(JSON.stringify(bundle)).not.toContain('splunk-events');
});
