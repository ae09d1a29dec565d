/**
 * The hover card never covers the console's own tooltip for the same cell. The
 * fixture (test/fixtures/siem/grid-tooltips.html) is an ag-grid-like grid whose cells show a
 * tooltip below-right of the pointer after 400 ms, three ways (role="tooltip" appended to body,
 * a Popover API element, an element named by the cell's aria-describedby). We hover IPs in the
 * middle, at the right edge, at the bottom edge and in the corner, wait for both the page's
 * tooltip and our card, and measure both boxes: they must not intersect.
 */
import type { CDPSession, Page } from '@playwright/test';
import { evaluator } from './chromium-driver';
import { expect, test } from './fixtures';
import { cardBox, hoverIp, markedIps, pageUrl, readCard, SEVERITY_NAMES, usePageSimulator } from './page-support';
import { intersection, pageTooltip as tooltipIn } from './scenarios/tooltip-scenario';

const env = usePageSimulator({ scanLoopback: true });

/** The simulator's named IPs, where the fixture puts them. */
const CELLS = [
  { where: 'middle', ip: '185.220.101.1' },
  { where: 'right edge', ip: '23.129.64.130' },
  { where: 'bottom edge', ip: '45.155.205.233' },
  { where: 'bottom-right corner', ip: '80.82.77.139' },
] as const;

/** The page's visible tooltip for the hovered cell (the shared scenario's reader, on a Playwright page). */
const pageTooltip = (page: Page) => tooltipIn(evaluator(page));

async function overlapFor(page: Page, cdp: CDPSession, ip: string): Promise<string> {
  // One after the other: each DOM.getDocument renumbers the nodes the other one holds.
  const tip = await pageTooltip(page);
  const snapshot = await readCard(cdp);
  const card = await cardBox(cdp);
  if (!tip || !tip.text.includes(ip)) return 'no page tooltip for this cell yet';
  if (!card || !snapshot?.text.includes(ip)) return 'no card for this IP yet';
  return `covered ${intersection(tip, card)} px²`;
}

async function hoverEachCell(page: Page, cdp: CDPSession): Promise<void> {
  const viewport = page.viewportSize()!;
  for (const { where, ip } of CELLS) {
    await test.step(where, async () => {
      await hoverIp(page, ip);
      // Both open, and the card off the tooltip (it may open first and move when the tooltip shows).
      await expect.poll(() => overlapFor(page, cdp, ip), { message: `${where}: ${ip}` }).toBe('covered 0 px²');
      // And it stays there: no placement flapping as the page's tooltip settles.
      await page.waitForTimeout(400);
      expect(await overlapFor(page, cdp, ip)).toBe('covered 0 px²');
      const card = (await cardBox(cdp))!;
      expect(card.x).toBeGreaterThanOrEqual(0);
      expect(card.y).toBeGreaterThanOrEqual(0);
      expect(card.x + card.width).toBeLessThanOrEqual(viewport.width);
      expect(card.y + card.height).toBeLessThanOrEqual(viewport.height);
    });
  }
}

async function openGrid(page: Page, query: string): Promise<void> {
  await page.goto(`${pageUrl(env.sim, 'grid-tooltips.html')}?${query}`);
  const marked = async () => (await Promise.all(SEVERITY_NAMES.map((s) => markedIps(page, s)))).flat();
  for (const { ip } of CELLS) await expect.poll(marked).toContain(ip);
}

for (const variant of ['role', 'popover', 'describedby'] as const) {
  test(`the card never covers the grid's cell tooltip (${variant}, shown after the card)`, async ({ context }) => {
    const page = await context.newPage();
    await openGrid(page, `variant=${variant}&delay=400`);
    const cdp = await context.newCDPSession(page);
    await hoverEachCell(page, cdp);
  });
}

test("the card never covers a cell tooltip that was there before it opened", async ({ context }) => {
  const page = await context.newPage();
  await openGrid(page, 'variant=role&delay=0');
  const cdp = await context.newCDPSession(page);
  await hoverEachCell(page, cdp);
});

test('the card stays put when the tooltip closes as the pointer moves into it, and Escape still closes it', async ({ context }) => {
  const page = await context.newPage();
  await openGrid(page, 'variant=role&delay=400');
  const cdp = await context.newCDPSession(page);
  const { ip } = CELLS[0];
  await hoverIp(page, ip);
  await expect.poll(() => overlapFor(page, cdp, ip)).toBe('covered 0 px²');
  const before = (await cardBox(cdp))!;
  // Into the card: the grid closes its tooltip (the pointer left the cell); the card must not jump.
  await page.mouse.move(before.x + before.width / 2, before.y + 20, { steps: 6 });
  await expect.poll(() => pageTooltip(page)).toBeNull();
  await page.waitForTimeout(300);
  expect(await cardBox(cdp)).toEqual(before);
  expect((await readCard(cdp))?.text).toContain(ip);
  await page.keyboard.press('Escape');
  await expect.poll(() => readCard(cdp)).toBeNull();
});
