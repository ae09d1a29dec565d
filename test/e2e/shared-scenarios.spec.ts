/**
 * The shared scenarios (./scenarios), which the Firefox suite also runs, driven in Chromium:
 * one description of what a user does, proven in both browsers. The Chromium-only specs next
 * to this one go into more detail.
 */
import { DEMO_KEY, UNLIMITED_KEY } from '../sim/keys';
import { ChromiumDriver } from './chromium-driver';
import { expect, test } from './fixtures';
import { configure, usePageSimulator } from './page-support';
import {
  badgeOf,
  framesShadowUrl,
  hoverCardWithDetails,
  marksEverywhere,
  popupPastedLookup,
  popupSingleLookup,
  registerSite,
  saveAndVerifyKey,
  suspendAndWake,
} from './scenarios/extension-scenarios';
import { keyMovesOutOfContentScriptsReach } from './scenarios/key-store-scenario';
import { cardKeepsOffPageTooltip } from './scenarios/tooltip-scenario';
import { pastTheCapHasItsOwnState } from './scenarios/cap-scenario';

const env = usePageSimulator({ scanLoopback: false });

// Two tests, not one per scenario: each test starts its own Chromium, which costs more than
// the scenarios themselves.
test('options: key saved and verified; popup: a detailed lookup and a pasted-text bulk lookup', async ({ context, extensionId }) => {
  const driver = new ChromiumDriver(context, extensionId);
  await saveAndVerifyKey(driver, env.sim, { baseUrl: env.sim.baseUrl, apiKey: DEMO_KEY });
  await popupSingleLookup(driver, env.sim);
  await popupPastedLookup(driver, env.sim);
});

test('site registration, marks everywhere, the badge, the hover card; the worker stopped and woken', async ({ context, extensionId }) => {
  const driver = new ChromiumDriver(context, extensionId);
  await configure(context, extensionId, env.sim, DEMO_KEY);
  await registerSite(driver, framesShadowUrl(env.sim));
  const page = await marksEverywhere(driver, env.sim);
  await expect.poll(() => badgeOf(driver, page.url)).toBe('4');
  await hoverCardWithDetails(page, env.sim);
  await page.close();
  await cardKeepsOffPageTooltip(driver, env.sim, 'describedby');
  await pastTheCapHasItsOwnState(driver, env.sim);
  await suspendAndWake(driver, env.sim);
  await keyMovesOutOfContentScriptsReach(driver, env.sim, UNLIMITED_KEY);
});
