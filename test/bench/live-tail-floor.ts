/**
 * `npx tsx test/bench/live-tail-floor.ts`: the floor of the scrolled live tail's long-task ratio
 * (issue 11, live11h). The page alone and the page with only a subtree MutationObserver (the
 * options the content script observes with, records held for a frame, nothing else), scrolled
 * 12 px every 50 ms for 10 s from navigation, alternating, `FLOOR_ROUNDS` (default 2) rounds.
 * Printed per run: the main thread's tasks over 50 ms (count, ms) from a trace, and what is
 * nested in them. Blink builds a record (and node lists) for each of the render's 20,000 text
 * replacements once anything observes the subtree, inside the page's own render task.
 */
import path from 'node:path';
import { chromium } from '@playwright/test';
import { BASE_CHROMIUM_ARGS, chromiumExecutable } from '../e2e/chromium';
import { startSimulator } from '../sim/server';
import { startTrace, VIEWPORT, type TraceEvent } from './page';

const NESTED = ['TimerFire', 'Layout', 'PrePaint', 'UpdateLayoutTree', 'MinorGC', 'MajorGC'];

function observeOnly(): void {
  let held: MutationRecord[] = [];
  new MutationObserver((records) => {
    for (const r of records) held.push(r);
    requestAnimationFrame(() => (held = []));
  }).observe(document, { childList: true, subtree: true, characterData: true });
}

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
  return `${long.length} tasks over 50 ms, ${total.toFixed(0)} ms; inside: ${[...nested].map(([k, v]) => `${k} ${v.toFixed(0)}`).join(', ')}`;
}

async function main(): Promise<void> {
  const sim = await startSimulator({ port: 0, staticDir: path.resolve('test/fixtures') });
  try {
    for (let round = 1; round <= Number(process.env.FLOOR_ROUNDS ?? 2); round++) {
      for (const observed of [false, true]) {
        const browser = await chromium.launch({ executablePath: chromiumExecutable(), headless: true, args: BASE_CHROMIUM_ARGS });
        try {
          const page = await browser.newPage({ viewport: VIEWPORT });
          if (observed) await page.addInitScript(observeOnly);
          // Same origin first, so the renderer (and the trace in it) stays for the real load.
          await page.goto(`${sim.origin}/pages/hostile/hostile.js`);
          const stop = await startTrace(await page.context().newCDPSession(page));
          await page.goto(`${sim.origin}/pages/consoles/live-tail.html`);
          await page.evaluate(() => setInterval(() => window.scrollBy(0, 12), 50));
          await page.waitForTimeout(10_000);
          console.log(`round ${round}, ${observed ? 'subtree observer only' : 'page alone'}: ${longTasks(await stop())}`);
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
