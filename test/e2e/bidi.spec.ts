/**
 * Bidirectional controls (U+202E RIGHT-TO-LEFT OVERRIDE, U+2067/2069 isolates) from a page and
 * from API answers reach the hover card, the popup and the CSV export as visible markers, never
 * as live controls that reorder what the analyst reads ("exe.\u202Elive" shows as "evil.exe").
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FIXTURES } from '../sim/dataset';
import { startSimulator, type Simulator } from '../sim/server';
import { expect, test } from './fixtures';
import { configure, hoverIp, markedIps, readCard, setSiteScanning } from './page-support';
import { extensionUrl, tabIdOf } from './ui-helpers';

const BIDI_IP = FIXTURES.bidi.ip;
const LIVE_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

let sim: Simulator;
let dir: string;
let pageUrl: string;

test.beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'iplens-bidi-'));
  // The page's own text carries an override too: in its title (shown in the popup) and in a cell.
  writeFileSync(
    path.join(dir, 'bidi.html'),
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Alerts \u202Etxt.exe</title></head>
<body><main><table><tbody>
<tr><td>09:37:40</td><td>Download of invoice\u202Efdp.exe</td><td>${BIDI_IP}</td></tr>
</tbody></table></main></body></html>`,
  );
  sim = await startSimulator({ port: 0, staticDir: dir });
  pageUrl = `${sim.origin}/pages/bidi.html`;
});
test.afterAll(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

test('bidi controls from the page and the API show as visible markers in the card, the popup and the CSV', async ({ context, extensionId }) => {
  await configure(context, extensionId, sim);
  await setSiteScanning(context, extensionId, 'http://127.0.0.1/*', true);
  const page = await context.newPage();
  await page.goto(pageUrl);
  await expect.poll(() => markedIps(page, 'critical')).toEqual([BIDI_IP]);

  // Card: the reputation, with its override shown, after Details the network name too.
  const cdp = await context.newCDPSession(page);
  await hoverIp(page, BIDI_IP);
  await expect.poll(async () => (await readCard(cdp))?.text ?? '').toContain('exe.[U+202E]live');
  const card = (await readCard(cdp))!.text;
  expect(card).not.toMatch(LIVE_CONTROLS);

  // Popup: the page's title and the row's reputation, and the details of the IP.
  const popup = await context.newPage();
  await popup.goto(extensionUrl(extensionId, 'popup.html'));
  const tabId = await tabIdOf(popup, pageUrl);
  await popup.goto(extensionUrl(extensionId, 'popup.html', `?tab=${tabId}`));
  const section = popup.getByRole('region', { name: 'This page' });
  await expect(section).toContainText('Alerts [U+202E]txt.exe');
  await expect(section.locator('tbody tr.row')).toContainText('exe.[U+202E]live');
  await section.getByRole('button', { name: BIDI_IP, exact: true }).click();
  const details = section.getByRole('region', { name: `Reputation of ${BIDI_IP}` });
  await details.getByRole('button', { name: 'Load network details (uses 1 request)' }).click();
  await expect(details.getByLabel('Network details')).toContainText('Chang Way [U+202E]Technologies');
  await expect(details).toContainText('Dropper [U+2067]fdp.exe[U+2069] served from here');
  expect(await section.innerText()).not.toMatch(LIVE_CONTROLS);

  // CSV (the page's rows, from bulk answers): the markers, not the controls.
  const [download] = await Promise.all([popup.waitForEvent('download'), section.getByRole('button', { name: 'Download CSV' }).click()]);
  const csv = readFileSync((await download.path())!, 'utf8');
  expect(csv).toContain('exe.[U+202E]live');
  expect(csv).not.toMatch(LIVE_CONTROLS);
});
