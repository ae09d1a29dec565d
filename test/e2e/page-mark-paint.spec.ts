/**
 * The marks are painted, not only registered: in every kind of box a console puts text in, the
 * pixels under a critical IP carry the critical colour. Guards a memory cut under mutation storms: the
 * mark rules sit on :root (one style for the page instead of a copy per element), which only
 * works through Chromium's highlight inheritance; a box that inheritance missed would show an
 * IP registered in CSS.highlights but drawn unmarked.
 */
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { markedTexts, pageUrl, usePageSimulator } from './page-support';

const env = usePageSimulator({ scanLoopback: true });

/** The critical underline colour (lib/page/marks/highlight-styles.ts). */
const CRITICAL = [229, 57, 53];

/** Pixels of the critical colour in the box under and around the IP in case `id`. */
async function criticalPixels(page: Page, id: string): Promise<number> {
  const rect = await page.evaluate((caseId) => {
    const box = document.getElementById(caseId)!;
    const root = box.shadowRoot ?? box;
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    while (walker.nextNode()) {
      const node = walker.currentNode as Text;
      const at = node.data.indexOf('185.220.101.1');
      if (at < 0) continue;
      const range = document.createRange();
      range.setStart(node, at);
      range.setEnd(node, at + '185.220.101.1'.length);
      const r = range.getBoundingClientRect();
      return { x: r.left, y: r.top, width: r.width, height: r.height };
    }
    return null;
  }, id);
  if (!rect) throw new Error(`no IP text in #${id}`);
  const shot = await page.screenshot({ clip: { x: rect.x, y: rect.y, width: rect.width, height: rect.height + 8 } });
  return page.evaluate(
    async ([b64, colour]) => {
      const img = new Image();
      img.src = `data:image/png;base64,${b64}`;
      await img.decode();
      const canvas = document.createElement('canvas');
      canvas.width = img.width;
      canvas.height = img.height;
      const ctx = canvas.getContext('2d')!;
      ctx.drawImage(img, 0, 0);
      const data = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
      let n = 0;
      for (let i = 0; i < data.length; i += 4) {
        if (Math.abs(data[i]! - colour[0]!) + Math.abs(data[i + 1]! - colour[1]!) + Math.abs(data[i + 2]! - colour[2]!) < 60) n++;
      }
      return n;
    },
    [shot.toString('base64'), CRITICAL] as const,
  );
}

test('a critical IP is drawn underlined in nested, cell, inline-block, positioned, flex and shadow boxes', async ({ context }) => {
  const page = await context.newPage();
  await page.goto(pageUrl(env.sim, 'mark-paint.html'));
  await expect.poll(async () => (await markedTexts(page, 'critical')).length).toBe(6);
  for (const id of ['nested', 'cell', 'inline-block', 'positioned', 'flex', 'shadow']) {
    // A 3 px underline under ~13 characters: well over 100 pixels when painted, 0 when not.
    await expect.poll(() => criticalPixels(page, id), { message: `#${id} is painted` }).toBeGreaterThan(100);
  }
});
