/**
 * Live consoles in Chromium: marks never vanish when the analyst scrolls away and
 * back while the list re-renders (the shared scenario, which Firefox runs too).
 */
import { ChromiumDriver } from './chromium-driver';
import { test } from './fixtures';
import { usePageSimulator } from './page-support';
import { marksSurviveScrollingDuringRerenders } from './scenarios/live-list-scenarios';

const env = usePageSimulator({ scanLoopback: true });

// Marks that vanish for good on returns: two causes (a chunk whose ends stayed unreported, and
// rows the list recycles to the top leaving their chunk's middle) are unit-tested in
// near-tracker.test.ts; this spec checks the whole path in Chromium, with the suite's one CI
// retry like every other spec.

test('a live list re-rendered while scrolled away and back: every address on screen keeps its mark', async ({ context, extensionId }) => {
  test.setTimeout(180_000);
  await marksSurviveScrollingDuringRerenders(new ChromiumDriver(context, extensionId), env.sim, 24);
});
