/**
 * `npx tsx test/bench/live-tail-floor.ts`: the floor of the scrolled live tail's long-task ratio.
 * The page alone and the page with only a subtree MutationObserver (the
 * options the content script observes with, records held for a frame, nothing else), scrolled
 * 12 px every 50 ms for 10 s from navigation, alternating, `FLOOR_ROUNDS` (default 2) rounds.
 * Printed per run: the main thread's tasks over 50 ms (count, ms) from a trace, and what is
 * nested in them. Blink builds a record (and node lists) for each of the render's 20,000 text
 * replacements once anything observes the subtree, inside the page's own render task.
 *
 * `FLOOR_WHICH` (comma list, default all) picks the variants (live12): `alone`, `subtree` (as
 * above), `list` (the list `childList` only: no subtree, so no transient registrations; in this
 * fixture it sees nothing, as rows are kept and their spans' text nodes replaced), `window` (the
 * list `childList` only, plus a second observer on the rows within a screen above and below the
 * one on screen, with the full options, moved as the page scrolls: what a live tail observed
 * by its visible window would cost), `extension:<build dir>` (that build's content script, the
 * site registered: compare builds alternating by the render task's CPU, which the load disturbs
 * less than the long tasks).
 */
import path from 'node:path';
import { chromium, type Page } from '@playwright/test';
import { BASE_CHROMIUM_ARGS, chromiumExecutable } from '../e2e/chromium';
import { startSimulator } from '../sim/server';
import { startTrace, VIEWPORT, withExtension, type ExtApi, type TraceEvent } from './page';

const NESTED = ['TimerFire', 'Layout', 'PrePaint', 'UpdateLayoutTree', 'MinorGC', 'MajorGC'];

/**
 * The page-side observer of the `subtree`, `list` and `window` variants. Serialised into the
 * page as an init script, so one self-contained function: `subtree` observes the whole
 * document; `list` the list `childList` only; `window` that plus the rows around the screen.
 */
function observeTail(which: string): void {
  let held: MutationRecord[] = [];
  const hold = (records: MutationRecord[]): void => {
    for (const r of records) held.push(r);
    (window as unknown as { floorRecords: number }).floorRecords = ((window as unknown as { floorRecords?: number }).floorRecords ?? 0) + records.length;
    requestAnimationFrame(() => (held = []));
  };
  if (which === 'subtree') {
    new MutationObserver(hold).observe(document, { childList: true, subtree: true, characterData: true });
    return;
  }
  const list = document.getElementById('tail')!;
  new MutationObserver(hold).observe(list, { childList: true });
  if (which !== 'window') return;
  const rows = new MutationObserver(hold);
  let first: Element | null = null;
  // As an extension would find it: a hit test at the screen's top, in a task (layout is clean
  // after the paint), the rows a screen above and below observed, again when it moved.
  setInterval(() => {
    let row = document.elementFromPoint(20, 2);
    while (row && row.parentElement !== list) row = row.parentElement;
    if (!row || row === first) return;
    first = row;
    for (const r of rows.takeRecords()) held.push(r);
    rows.disconnect();
    let start: Element = row;
    for (let k = 0; k < 40 && start.previousElementSibling; k++) start = start.previousElementSibling;
    let el: Element | null = start;
    for (let k = 0; el && k < 120; k++, el = el.nextElementSibling) rows.observe(el, { childList: true, subtree: true, characterData: true });
  }, 200);
}

/** `observe`: what observeTail is run with in the page (none: the page alone or an extension). */
const VARIANTS: Record<string, { label: string; observe?: string; extension?: string }> = {
  alone: { label: 'page alone' },
  subtree: { label: 'subtree observer only', observe: 'subtree' },
  list: { label: 'list childList only', observe: 'list' },
  window: { label: 'list childList + window rows', observe: 'window' },
};

function longTasks(events: TraceEvent[]): string {
  const tasks = events.filter((e) => e.ph === 'X' && e.name === 'RunTask' && (e.dur ?? 0) > 50_000);
  const perThread = new Map<number, number>();
  for (const t of tasks) perThread.set(t.tid, (perThread.get(t.tid) ?? 0) + 1);
  const main = [...perThread].sort((a, b) => b[1] - a[1])[0]?.[0];
  const long = tasks.filter((t) => t.tid === main);
  const nested = new Map<string, number>();
  for (const t of long) {
    const end = t.ts + (t.dur ?? 0);
    for (const e of events) {
      if (e !== t && e.ph === 'X' && e.tid === main && e.ts >= t.ts && e.ts <= end && NESTED.includes(e.name)) nested.set(e.name, (nested.get(e.name) ?? 0) + (e.dur ?? 0) / 1000);
    }
  }
  const total = long.reduce((s, t) => s + (t.dur ?? 0) / 1000, 0);
  // The render's timer task by CPU (tdur), which the machine's load inflates less than wall
  // time: the records Blink builds are made inside it.
  // The fixture's 1 s interval: the timer with the most firings over 10 ms (ours are many timers).
  const byTimer = new Map<unknown, TraceEvent[]>();
  for (const e of events) {
    if (e.ph !== 'X' || e.tid !== main || e.name !== 'TimerFire' || (e.dur ?? 0) <= 10_000) continue;
    const id = (e.args?.data as { timerId?: unknown } | undefined)?.timerId;
    byTimer.set(id, [...(byTimer.get(id) ?? []), e]);
  }
  const renders = [...byTimer.values()].sort((a, b) => b.length - a.length)[0] ?? [];
  const cpu = renders.map((e) => (e.tdur ?? e.dur ?? 0) / 1000).sort((a, b) => a - b);
  const median = cpu[Math.floor(cpu.length / 2)] ?? 0;
  return `${long.length} tasks over 50 ms, ${total.toFixed(0)} ms; render timer ${cpu.length}x, CPU median ${median.toFixed(1)} ms; inside: ${[...nested].map(([k, v]) => `${k} ${v.toFixed(0)}`).join(', ')}`;
}

async function main(): Promise<void> {
  const sim = await startSimulator({ port: 0, staticDir: path.resolve('test/fixtures') });
  try {
    for (let round = 1; round <= Number(process.env.FLOOR_ROUNDS ?? 2); round++) {
      for (const which of (process.env.FLOOR_WHICH ?? Object.keys(VARIANTS).join(',')).split(',')) {
        const dir = which.startsWith('extension:') ? path.resolve(which.slice('extension:'.length)) : undefined;
        const variant = dir ? { label: `extension ${dir}`, extension: dir } : VARIANTS[which];
        if (!variant) throw new Error(`FLOOR_WHICH: no variant ${which}`);
        const run = async (page: Page): Promise<void> => {
          page.on('pageerror', (e) => console.log(`page error (${which}): ${e.message}`));
          // On the fixture only (the list exists once its body is parsed).
          // (`__name`: what tsx's keepNames puts into the functions' text.)
          if (variant.observe) await page.addInitScript(`var __name = (f) => f; addEventListener('DOMContentLoaded', () => { if (document.getElementById('tail')) (${observeTail.toString()})(${JSON.stringify(variant.observe)}); });`);
          // Same origin first, so the renderer (and the trace in it) stays for the real load.
          await page.goto(`${sim.origin}/pages/hostile/hostile.js`);
          const stop = await startTrace(await page.context().newCDPSession(page));
          await page.goto(`${sim.origin}/pages/consoles/live-tail.html`);
          await page.evaluate(() => setInterval(() => window.scrollBy(0, 12), 50));
          await page.waitForTimeout(10_000);
          const records = await page.evaluate(() => (window as unknown as { floorRecords?: number }).floorRecords ?? 0);
          console.log(`round ${round}, ${variant.label} (${records} records): ${longTasks(await stop())}`);
        };
        if (variant.extension) {
          await withExtension(sim, variant.extension, async (context, ext) => {
            const reply = await ext.evaluate(() =>
              (globalThis as unknown as { chrome: ExtApi }).chrome.runtime.sendMessage({ type: 'ui:set-site-scanning', payload: { pattern: 'http://127.0.0.1/*', enabled: true } }),
            );
            if (!reply.ok) throw new Error(`Could not register the site: ${JSON.stringify(reply.error)}`);
            await run(await context.newPage());
          });
          continue;
        }
        const browser = await chromium.launch({ executablePath: chromiumExecutable(), headless: true, args: BASE_CHROMIUM_ARGS });
        try {
          await run(await browser.newPage({ viewport: VIEWPORT }));
        } finally {
          await browser.close();
        }
      }
    }
  } finally {
    await sim.close();
  }
}

void main();
