/**
 * The extension in real Firefox (Debian's firefox-esr, headless, WebDriver BiDi), against the
 * API simulator and the fixture consoles: the shared scenarios (../e2e/scenarios) plus what only
 * Firefox has, its permission prompt, its event-page background and its extension-page CSP.
 * One browser for the whole file (starting Firefox costs 20–30 s here), so the tests run in
 * order and build on each other, as a user's session would.
 */
import path from 'node:path';
import { DEMO_KEY, UNLIMITED_KEY } from '../sim/keys';
import { startSimulator, type Simulator } from '../sim/server';
import {
  badgeOf,
  framesShadowUrl,
  hoverCardWithDetails,
  marksEverywhere,
  popupPastedLookup,
  popupSingleLookup,
  registerSite,
  saveAndVerifyKey,
  saveApiSettings,
  suspendAndWake,
} from '../e2e/scenarios/extension-scenarios';
import { keyMovesOutOfContentScriptsReach } from '../e2e/scenarios/key-store-scenario';
import { cardKeepsOffPageTooltip } from '../e2e/scenarios/tooltip-scenario';
import { pastTheCapHasItsOwnState } from '../e2e/scenarios/cap-scenario';
import { marksSurviveScrollingDuringRerenders, newTopEventMarkedAndLookedUp } from '../e2e/scenarios/live-list-scenarios';
import { newApiAddressGivesOldHostBack, stopScanningGivesSiteBack } from '../e2e/scenarios/permission-removal-scenario';
import { stormLeavesThePageAroundItMarked } from '../e2e/scenarios/storm-scenario';
import { FirefoxDriver } from './firefox-driver';
import { expect, test } from './firefox-fixtures';
import { LAN_HOST } from './firefox';

test.describe.configure({ mode: 'serial' });

let sim: Simulator;
test.beforeAll(async () => {
  sim = await startSimulator({ port: 0, staticDir: path.resolve('test/fixtures') });
});
test.afterAll(async () => {
  await sim?.close();
});

/** The simulator's API under a host name that is not loopback (network.dns.localDomains). */
const lanBaseUrl = () => sim.baseUrl.replace('127.0.0.1', LAN_HOST);

test('options: Save stores the key and the free verification shows the account', async ({ firefox }) => {
  await saveAndVerifyKey(new FirefoxDriver(firefox), sim, { baseUrl: sim.baseUrl, apiKey: DEMO_KEY });
});

test('options: an http:// API on a non-loopback host asks for access at run time; declining saves nothing', async ({ firefox }) => {
  const driver = new FirefoxDriver(firefox);
  const pattern = `http://${LAN_HOST}/*`;
  expect(await firefox.grantedOrigins()).not.toContain(pattern);
  let prompt = '';
  const options = await saveApiSettings(driver, { baseUrl: lanBaseUrl(), apiKey: DEMO_KEY }, async () => {
    prompt = await firefox.answerPermissionPrompt('deny');
  });
  // Firefox's own prompt, naming the add-on and the host it asks for.
  expect(prompt).toContain('IP Reputation Lens requests additional settings');
  expect(prompt).toContain(LAN_HOST);
  await options.waitForText('Nothing was saved');
  expect(await firefox.grantedOrigins()).not.toContain(pattern);
  await options.close();
});

test('options: allowing the prompt grants the host, and the key verifies over plain http://', async ({ firefox }) => {
  const driver = new FirefoxDriver(firefox);
  const before = sim.requestLog.length;
  await saveAndVerifyKey(driver, sim, { baseUrl: lanBaseUrl(), apiKey: DEMO_KEY }, () => firefox.answerPermissionPrompt('allow'));
  expect(await firefox.grantedOrigins()).toContain(`http://${LAN_HOST}/*`);
  // Reached over http (Firefox's default extension CSP would have upgraded it to https).
  expect(sim.requestLog.slice(before).map((e) => e.path)).toContain('/account');
});

test('popup: one IP gets a detailed lookup', async ({ firefox }) => {
  await popupSingleLookup(new FirefoxDriver(firefox), sim);
});

test('popup: pasted text is looked up in one bulk call', async ({ firefox }) => {
  await popupPastedLookup(new FirefoxDriver(firefox), sim);
});

test('options: a site added to "Sites to scan" is granted and registered', async ({ firefox }) => {
  await registerSite(new FirefoxDriver(firefox), framesShadowUrl(sim));
});

test('page: marks in the document, shadow roots, a frame and later rows; the badge; the hover card with Details', async ({ firefox }) => {
  const driver = new FirefoxDriver(firefox);
  const page = await marksEverywhere(driver, sim);
  // Distinct high and critical IPs of the tab, frames included: 185.220.101.1, 23.129.64.130,
  // and the row added later.
  await expect.poll(() => badgeOf(driver, page.url)).toBe('4');
  await hoverCardWithDetails(page, sim);
  await page.close();
});

test("page: the hover card keeps off the grid's own cell tooltip (role=tooltip and aria-describedby)", async ({ firefox }) => {
  const driver = new FirefoxDriver(firefox);
  await cardKeepsOffPageTooltip(driver, sim, 'role');
  await cardKeepsOffPageTooltip(driver, sim, 'describedby');
});

test('page: past the per-page cap, public IPs are "capped" (not "skipped" like private ones) and the card says why', async ({ firefox }) => {
  await pastTheCapHasItsOwnState(new FirefoxDriver(firefox), sim);
});

test('background: suspended when idle, woken by a page, answered from the cache with no API call', async ({ firefox }) => {
  await suspendAndWake(new FirefoxDriver(firefox), sim);
});

test('key: an older version\'s key in storage.local moves to IndexedDB; a content script reading storage.local finds none, and lookups go on', async ({ firefox }) => {
  await keyMovesOutOfContentScriptsReach(new FirefoxDriver(firefox), sim, UNLIMITED_KEY);
});

test('page: marks on screen survive scrolling away and back while the list re-renders', async ({ firefox }) => {
  await marksSurviveScrollingDuringRerenders(new FirefoxDriver(firefox), sim);
});

test('page: a new event at the top of a 5,000-event live tail is marked and looked up while the list keeps re-rendering', async ({ firefox }) => {
  await newTopEventMarkedAndLookedUp(new FirefoxDriver(firefox), sim);
});

test('page: a mutation storm (5,000 rows replaced every frame) leaves the page around it marked; its rows are marked once it rests', async ({ firefox }) => {
  await stormLeavesThePageAroundItMarked(new FirefoxDriver(firefox), sim);
});

// Last: they move the API back to loopback, which the tests above do not expect.
test('permissions: a new API base URL gives the old server\'s host back', async ({ firefox }) => {
  const grants = { grantedOrigins: () => firefox.grantedOrigins() };
  await newApiAddressGivesOldHostBack(new FirefoxDriver(firefox), sim, grants, {
    oldPattern: `http://${LAN_HOST}/*`,
    newBaseUrl: sim.baseUrl,
    apiKey: DEMO_KEY,
  });
});

test('permissions: "Stop scanning this site" in the popup gives the site\'s host back', async ({ firefox }) => {
  const grants = { grantedOrigins: () => firefox.grantedOrigins(), answerPrompt: () => firefox.answerPermissionPrompt('allow') };
  await stopScanningGivesSiteBack(new FirefoxDriver(firefox), grants, {
    pageUrl: `${sim.origin.replace('127.0.0.1', LAN_HOST)}/pages/siem/kibana-discover.html`,
    // What the e2e build's manifest grants.
    keep: ['http://127.0.0.1/*', 'https://ipswamp.com/*'],
  });
});
