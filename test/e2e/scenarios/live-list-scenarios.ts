/**
 * Live consoles, written once for both browsers: marks on screen never disappear
 * while their text is still there, however the page re-renders while the analyst scrolls away
 * and back. The fixture is test/fixtures/siem/live-rerender.html.
 */
import type { Simulator } from '../../sim/server';
import { waitUntil, type Evaluator, type ExtensionDriver } from './driver';

export function liveRerenderUrl(sim: Simulator, query = ''): string {
  return `${sim.origin}/pages/siem/live-rerender.html${query}`;
}

export interface ScreenMarks {
  /** Addresses in text on screen now. */
  onScreen: number;
  /** Those with no `ip-rep-*` mark (any severity: pending and skipped are marks too). */
  unmarked: string[];
}

/**
 * Every IPv4 address in text on screen, and which of them no highlight covers, read page-side
 * in one go (CSS.highlights is shared with page scripts).
 */
export function screenMarks(page: Evaluator): Promise<ScreenMarks> {
  return page.evaluate(() => {
    const marked = new Map<Node, Set<number>>();
    for (const [name, h] of CSS.highlights) {
      if (!name.startsWith('ip-rep-')) continue;
      for (const r of h) {
        let starts = marked.get(r.startContainer);
        if (!starts) marked.set(r.startContainer, (starts = new Set()));
        starts.add(r.startOffset);
      }
    }
    const height = window.innerHeight;
    const width = window.innerWidth;
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    const out = { onScreen: 0, unmarked: [] as string[] };
    for (let node = walker.nextNode() as Text | null; node; node = walker.nextNode() as Text | null) {
      const parent = node.parentElement;
      if (!parent || parent.closest('script, style')) continue;
      const box = parent.getBoundingClientRect();
      if (box.bottom <= 0 || box.top >= height || box.right <= 0 || box.left >= width || box.height === 0) continue;
      for (const m of node.data.matchAll(/\b(?:\d{1,3}\.){3}\d{1,3}\b/g)) {
        // Only the part of the text actually drawn inside the viewport (a row cut by the edge).
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const r = range.getBoundingClientRect();
        if (r.bottom <= 0 || r.top >= height || r.right <= 0 || r.left >= width || r.width === 0) continue;
        out.onScreen++;
        if (!marked.get(node)?.has(m.index)) out.unmarked.push(m[0]);
      }
    }
    return out;
  }, null);
}

/** Scrolls the window to a fraction (0 top, 1 bottom) of the page. */
function scrollToFraction(page: Evaluator, fraction: number): Promise<void> {
  return page.evaluate((f) => {
    window.scrollTo(0, f * (document.documentElement.scrollHeight - window.innerHeight));
  }, fraction);
}

/**
 * The analyst scrolls away and back to the top `rounds` times while the list re-renders every
 * 200–1000 ms; after every return, every address on screen gets its mark back (and the page
 * must show some addresses, so the check cannot pass on an empty screen). A mark may be
 * missing for a frame or two after a render replaces its text node, so each return waits for
 * one moment when none is missing; marks that vanish for good never give one.
 */
export async function marksSurviveScrollingDuringRerenders(driver: ExtensionDriver, sim: Simulator, rounds = 12): Promise<void> {
  const page = await driver.openPage(liveRerenderUrl(sim));
  await waitUntil(() => screenMarks(page), (s) => s.onScreen > 20 && s.unmarked.length === 0, 'every address on screen marked');
  // Deterministic spread of places and dwell times: near, middle and far from the top. Then,
  // past the first dozen, the returns where marks vanished for good in CI (scrolled
  // away half-way or to the bottom for 0.9-1.5 s, rows the list had recycled and replaced
  // meanwhile): a row that became the end of its chunk was never reported again.
  const away = [0.02, 0.5, 1, 0.15, 0.8, 0.35, 1, 0.05, 0.6, 0.95, 0.25, 0.7];
  const dwell = [300, 900, 1500, 150, 700, 1200, 400, 1000, 250, 1600, 600, 1100];
  const vanishingAway = [0.5, 1, 0.5, 1];
  const vanishingDwell = [900, 1500, 1200, 1000];
  for (let i = 0; i < rounds; i++) {
    const late = i >= away.length && i % 2 === 1;
    const k = Math.floor(i / 2) % vanishingAway.length;
    await scrollToFraction(page, late ? vanishingAway[k]! : away[i % away.length]!);
    await new Promise((resolve) => setTimeout(resolve, late ? vanishingDwell[k]! : dwell[i % dwell.length]!));
    await scrollToFraction(page, 0);
    await waitUntil(
      () => screenMarks(page),
      (s) => s.onScreen > 20 && s.unmarked.length === 0,
      `every address on screen marked after return ${i + 1} of ${rounds}`,
      10_000,
    );
  }
  // The page really kept re-rendering meanwhile.
  const renders = await page.evaluate(() => (window as unknown as { liveList: { renders: number } }).liveList.renders, null);
  if (renders < rounds) throw new Error(`the list re-rendered only ${renders} times`);
  await page.evaluate(() => (window as unknown as { liveList: { stop(): void } }).liveList.stop(), null);
  await page.close();
}

/** Texts of the nodes any `ip-rep-*` highlight starts in, and the highlight's name for each. */
export function markedTexts(page: Evaluator): Promise<[string, string][]> {
  return page.evaluate(() => {
    const out: [string, string][] = [];
    for (const [name, h] of CSS.highlights) {
      if (!name.startsWith('ip-rep-')) continue;
      for (const r of h) out.push([(r.startContainer as Text).data, name]);
    }
    return out;
  }, null);
}

/**
 * A new event on a live tail is marked and looked up, in either browser: a 5,000-event live tail (test/fixtures/hostile/
 * live-tail.html) starts inserting events at the top, re-rendering the whole list each second,
 * once the first marks are on screen (the whole-page scan is then still running). The newest
 * event's address gets a mark and is looked up: its mark leaves "pending". How fast is the
 * bench's business (`npm run bench page`, "mark ready"), never a timed assertion here.
 */
export async function newTopEventMarkedAndLookedUp(driver: ExtensionDriver, sim: Simulator): Promise<void> {
  const page = await driver.openPage(`${sim.origin}/pages/hostile/live-tail.html?manual=1`);
  await waitUntil(() => markedTexts(page), (marks) => marks.length > 0, 'the first marks of the initial scan', 30_000);
  await page.evaluate(() => (window as unknown as { startTail(): void }).startTail(), null);
  // The fixture's first inserted event carries this address (its text node holds it alone).
  const newest = ' 23.129.0.0';
  const markOf = async () => (await markedTexts(page)).find(([text]) => text === newest)?.[1] ?? null;
  await waitUntil(markOf, (name) => name !== null, `a mark on the new top event's${newest}`, 30_000);
  await waitUntil(markOf, (name) => name !== null && !name.includes('pending'), `the new top event's${newest} looked up (mark leaves pending)`, 30_000);
  await page.close();
}
