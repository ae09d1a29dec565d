/**
 * Addresses defanged the way threat reports write them are marked on pages: `1[.]2[.]3[.]4`
 * and the word forms `[dot]`, `(dot)`, `{DOT}`, which hold no '.' and no ':' and were skipped by
 * the scanner's cheap character test before any finding (lib/page/scanning/skip-rules.ts).
 */
import { expect, test } from './fixtures';
import { markedIps, pageUrl, usePageSimulator } from './page-support';

const env = usePageSimulator({ scanLoopback: true });

/** Every marked text on the page, whatever its severity. */
const allMarked = (page: import('@playwright/test').Page) =>
  page.evaluate(() => {
    const texts: string[] = [];
    for (const [name, h] of CSS.highlights) {
      if (!name.startsWith('ip-rep-')) continue;
      for (const r of h) texts.push((r.startContainer as Text).data.slice(r.startOffset, r.endOffset));
    }
    return texts.sort();
  });

test('defanged addresses ([.], [dot], (dot), {DOT}) are marked and looked up like plain ones', async ({ context }) => {
  const page = await context.newPage();
  await page.goto(pageUrl(env.sim, 'defanged-report.html'));
  await expect.poll(() => allMarked(page)).toEqual(
    ['185[dot]220[dot]101[dot]1', '23[.]129[.]64[.]130', '45(dot)155(dot)205(dot)233', '9{DOT}9{DOT}9{DOT}9'].sort(),
  );
  // Looked up under the address itself: the simulator knows 185.220.101.1 as critical.
  await expect.poll(() => markedIps(page, 'critical')).toEqual(['185[dot]220[dot]101[dot]1']);
});
