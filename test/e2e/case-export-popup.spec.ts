/**
 * STIX 2.1 and MISP exports from the popup in real Chromium against the API simulator: the
 * downloaded and copied files are parsed and checked against the STIX rules (the unit tests'
 * independent checker) and MISP's event shape.
 */
import { readFileSync } from 'node:fs';
import type { BrowserContext, Page } from '@playwright/test';
import { DEMO_KEY } from '../sim/keys';
import { stixViolations } from '../unit/export/stix-rules';
import { expect, test } from './fixtures';
import { configureApi, extensionUrl, IPS, tabIdOf, useUiSimulator } from './ui-helpers';

const env = useUiSimulator();
// Two exports and their lookups each: more than the default minute on a shared 2-core machine.
test.describe.configure({ timeout: 150_000 });

type StixObject = { type: string; id: string; value?: string; pattern?: string; content?: string };

async function openPopup(context: BrowserContext, extensionId: string, query = ''): Promise<Page> {
  const popup = await context.newPage();
  await popup.goto(extensionUrl(extensionId, 'popup.html', query));
  return popup;
}

async function download(popup: Page, click: () => Promise<void>): Promise<{ name: string; text: string }> {
  const [file] = await Promise.all([popup.waitForEvent('download'), click()]);
  return { name: file.suggestedFilename(), text: readFileSync((await file.path())!, 'utf8') };
}

test('This page: a STIX 2.1 bundle with indicators for high and critical, the page address only when ticked', async ({ context, extensionId }) => {
  await configureApi(context, extensionId, env.ui.sim.baseUrl, DEMO_KEY);
  const site = await context.newPage();
  await site.goto(env.ui.pageUrl);
  const popup = await openPopup(context, extensionId);
  const tabId = await tabIdOf(popup, env.ui.pageUrl);
  await popup.goto(extensionUrl(extensionId, 'popup.html', `?tab=${tabId}`));
  const section = popup.getByRole('region', { name: 'This page' });
  await section.getByRole('button', { name: 'Scan this page' }).click();
  await expect(section.locator('tbody .ip-button')).toHaveCount(7);
  await expect(section.locator('tbody tr.row').first()).toContainText('Critical');

  await section.getByRole('button', { name: 'STIX 2.1…' }).click();
  const plain = await download(popup, () => section.getByRole('button', { name: 'Download STIX 2.1' }).click());
  expect(plain.name).toMatch(/^ip-reputation-127-0-0-1-\d{8}-\d{6}\.stix\.json$/);
  const bundle = JSON.parse(plain.text) as { objects: StixObject[] };
  expect(stixViolations(bundle)).toEqual([]);
  const values = bundle.objects.filter((o) => o.type === 'ipv4-addr').map((o) => o.value);
  // Every answered IP, never the private one.
  expect(values.sort()).toEqual([IPS.critical, IPS.high, IPS.xss, IPS.medium, IPS.clean, IPS.whitelisted].sort());
  const patterns = bundle.objects.filter((o) => o.type === 'indicator').map((o) => o.pattern);
  expect(patterns).toContain(`[ipv4-addr:value = '${IPS.critical}']`);
  expect(patterns).toContain(`[ipv4-addr:value = '${IPS.high}']`);
  expect(patterns).not.toContain(`[ipv4-addr:value = '${IPS.whitelisted}']`);
  expect(patterns).not.toContain(`[ipv4-addr:value = '${IPS.clean}']`);
  expect(plain.text).not.toContain(env.ui.pageUrl);
  await expect(section.getByRole('status').filter({ hasText: 'Saved 6 IPs as STIX 2.1' })).toContainText('1 left out');

  await section.getByRole('button', { name: 'STIX 2.1…' }).click();
  await section.getByLabel('Include the page address (title and URL)').check();
  const withPage = await download(popup, () => section.getByRole('button', { name: 'Download STIX 2.1' }).click());
  const note = (JSON.parse(withPage.text) as { objects: StixObject[] }).objects.find((o) => o.type === 'note')!;
  expect(note.content).toContain(env.ui.pageUrl);
});

test('pasted lookup: a MISP event with the chosen attribute type, and a single lookup copied as STIX', async ({ context, extensionId }) => {
  await configureApi(context, extensionId, env.ui.sim.baseUrl, DEMO_KEY);
  const popup = await openPopup(context, extensionId);
  await popup.getByLabel('IP address or text').fill(`from ${IPS.critical} and ${IPS.clean} to ${IPS.private}`);
  await popup.getByRole('button', { name: 'Look up' }).click();
  const list = popup.getByRole('region', { name: 'Look up' });
  await expect(list.locator('tbody .ip-button')).toHaveCount(3);

  await list.getByRole('button', { name: 'MISP…' }).click();
  await list.getByRole('radio', { name: /ip-src/ }).check();
  const misp = await download(popup, () => list.getByRole('button', { name: 'Download MISP event' }).click());
  expect(misp.name).toMatch(/\.misp\.json$/);
  const event = JSON.parse(misp.text).Event as { info: string; Attribute: { type: string; value: string; to_ids: boolean; comment: string }[] };
  expect(event.Attribute.map((a) => [a.type, a.value, a.to_ids])).toEqual([
    ['ip-src', IPS.critical, true],
    ['ip-src', IPS.clean, false],
  ]);
  expect(event.Attribute[0]!.comment).toContain('known attacker');

  await popup.getByLabel('IP address or text').fill(IPS.critical);
  await popup.getByRole('button', { name: 'Look up' }).click();
  await expect(popup.getByRole('region', { name: `Reputation of ${IPS.critical}` })).toContainText('95 / 100');
  // Chromium grants no clipboard-read to an extension origin under test: what the popup hands
  // to the clipboard is recorded on its way there (and still written).
  await popup.evaluate(() => {
    const write = navigator.clipboard.writeText.bind(navigator.clipboard);
    navigator.clipboard.writeText = (text: string) => {
      (globalThis as unknown as { copiedText: string }).copiedText = text;
      return write(text).catch(() => undefined);
    };
  });
  await list.getByRole('button', { name: 'STIX 2.1…' }).click();
  await list.getByRole('button', { name: 'Copy STIX 2.1' }).click();
  await expect(list.getByRole('status').filter({ hasText: 'Copied 1 IP as STIX 2.1' })).toBeVisible();
  const copied = JSON.parse(await popup.evaluate(() => (globalThis as unknown as { copiedText: string }).copiedText)) as { objects: StixObject[] };
  expect(stixViolations(copied)).toEqual([]);
  expect(copied.objects.map((o) => o.type).sort()).toEqual(
    ['autonomous-system', 'identity', 'indicator', 'ipv4-addr', 'location', 'note', 'relationship', 'relationship'].sort(),
  );
});
