/**
 * Live consoles (issue 16) in Chromium: marks never vanish when the analyst scrolls away and
 * back while the list re-renders (the shared scenario, which Firefox runs too).
 */
import { ChromiumDriver } from './chromium-driver';
import { test } from './fixtures';
import { usePageSimulator } from './page-support';
import { marksSurviveScrollingDuringRerenders } from './scenarios/live-list-scenarios';

const env = usePageSimulator({ scanLoopback: true });

test('a live list re-rendered while scrolled away and back: every address on screen keeps its mark', async ({ context, extensionId }) => {
  test.setTimeout(180_000);
  await marksSurviveScrollingDuringRerenders(new ChromiumDriver(context, extensionId), env.sim, 24);
});
