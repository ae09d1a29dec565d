/**
 * The hover card never covers the console's own tooltip for the same cell (the analyst reads both), written
 * once for both browsers. The fixture (test/fixtures/siem/grid-tooltips.html) is an ag-grid-like
 * grid whose cells show a tooltip below-right of the pointer after a delay; the Chromium-only
 * page-tooltips.spec.ts goes through every variant and edge.
 */
import type { Simulator } from '../../sim/server';
import { waitUntil, type Box, type Evaluator, type ExtensionDriver, type Tab } from './driver';
import { CRITICAL_IP, hoverIp, markedIps, SEVERITY_NAMES } from './extension-scenarios';

/** The corner cell: the card has the least room there. */
const CORNER_IP = '80.82.77.139';

export function gridTooltipsUrl(sim: Simulator, query: string): string {
  return `${sim.origin}/pages/siem/grid-tooltips.html?${query}`;
}

/** The page's visible tooltip, read page-side, with its text. */
export function pageTooltip(page: Evaluator): Promise<(Box & { text: string }) | null> {
  return page.evaluate(() => {
    for (const el of document.querySelectorAll('.grid-tooltip')) {
      const r = el.getBoundingClientRect();
      if (r.width > 0 && r.height > 0) return { x: r.x, y: r.y, width: r.width, height: r.height, text: el.textContent ?? '' };
    }
    return null;
  }, null);
}

export function intersection(a: Box, b: Box): number {
  const w = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  return w > 0 && h > 0 ? Math.round(w * h) : 0;
}

/** How much of the page's tooltip for `ip` our card for `ip` covers, or what is not open yet. */
async function overlapFor(page: Tab, ip: string): Promise<string> {
  const tip = await pageTooltip(page);
  const text = (await page.readCard())?.text ?? '';
  const card = await page.cardBox();
  if (!tip || !tip.text.includes(ip)) return 'no page tooltip for this cell yet';
  if (!card || !text.includes(ip)) return 'no card for this IP yet';
  return `covered ${intersection(tip, card)} px²`;
}

/**
 * In a grid on a scanned site, hovering an IP in the middle and one in the corner opens both the
 * page's tooltip and our card, and the card sits off the tooltip and stays there.
 */
export async function cardKeepsOffPageTooltip(driver: ExtensionDriver, sim: Simulator, variant: 'role' | 'describedby'): Promise<void> {
  const page = await driver.openPage(gridTooltipsUrl(sim, `variant=${variant}&delay=400`));
  try {
    const marked = async () => (await Promise.all(SEVERITY_NAMES.map((s) => markedIps(page, s)))).flat();
    await waitUntil(marked, (ips) => ips.includes(CRITICAL_IP) && ips.includes(CORNER_IP), 'the named IPs marked');
    for (const ip of [CRITICAL_IP, CORNER_IP]) {
      await hoverIp(page, ip);
      await waitUntil(() => overlapFor(page, ip), (seen) => seen === 'covered 0 px²', `the card for ${ip} off the page's tooltip (${variant})`);
      // No placement flapping as the page's tooltip settles.
      await new Promise((resolve) => setTimeout(resolve, 400));
      const settled = await overlapFor(page, ip);
      if (settled !== 'covered 0 px²') throw new Error(`${ip} (${variant}): after 400 ms the card ${settled}`);
      await page.pressKey('Escape');
      await waitUntil(() => page.readCard(), (c) => c === null, 'the card to close');
    }
  } finally {
    await page.close();
  }
}
