/**
 * `npm run bench page-hostile`: the hostile fixture pages (test/fixtures/hostile/),
 * each loaded in one browser with the extension, alternately on a host the extension scans
 * (127.0.0.1, registered) and on one it does not (localhost: the page alone), RUNS times a side.
 * Reported per page: the longest task and the total blocking time (sum of each long task's time
 * past 50 ms, from the Long Tasks API) over the same window, medians of the loads, and the
 * ratio. Goals: longest task < 50 ms, blocking ≤ 1.2× the page alone (on the mutation storm the
 * ratio is printed only: its cost is judged by CPU per frame, `npm run bench storm-frames`).
 *
 * Several fixture pages have long tasks of their own (building 200,000 cells in one script is
 * a 1.4 s task), so the longest task of the load says nothing about ours. A third load, traced,
 * reports the content script's own longest task (the top-level tasks in which content.js ran,
 * as `bench page` counts them) and how many of its tasks passed 50 ms: that is the < 50 ms goal.
 * A page that mutates inside its own long task (the storm's 300–500 ms animation frames) puts
 * our observer callback and our frame-aligned flush into that task, so the same load also
 * reports our own work per task (ownWorkMs): the ≤ 16 ms slice and < 50 ms goals for our part.
 *
 * Flags (environment variables):
 *   BENCH_HOSTILE_RUNS (default 5) loads a side, alternating; blocking is read on the medians,
 *     every load printed;
 *   BENCH_HOSTILE_PAGES=cells.html,mutation-storm.html runs only the pages named;
 *   BENCH_HOSTILE_WINDOW_MS (default 8,000) the window measured from navigation;
 *   BENCH_HOSTILE_NO_LOOKUPS=1 turns automatic lookups off (pages scanned, their IPs marked
 *     "skipped", nothing asked: what the lookups at load cost);
 *   BENCH_HOSTILE_CPU=1 reads each load's CPU time by process kind from /proc (the page's
 *     renderer, the extension's process, browser, GPU, utility, the bench with its simulator:
 *     ./process-cpu.ts) and counts the page's frames;
 *   BENCH_HOSTILE_SCROLL=1 scrolls each page to its end halfway through the window (past the
 *     page limit the far addresses are dropped).
 *
 * Memory under the mutation storm is `npm run bench page-memory` (./page-memory.ts).
 * The machine is shared: read the ratios, not the absolute times.
 */
import type { BrowserContext, Page } from '@playwright/test';
import { blockingTime } from './blocking-time';
import { withHostileSession } from './hostile-session';
import { contentScriptTaskSet, median, startTrace, type TraceEvent } from './page';
import { cpuSnapshot, cpuSpent, PROCESS_KINDS, type ProcessKind } from './process-cpu';
import { firstAtOrAfter } from './task-kinds';

const WINDOW_MS = Number(process.env.BENCH_HOSTILE_WINDOW_MS ?? 8_000);
/**
 * Loads a side per page, alternating which side goes first. One load's blocking time is a
 * coin toss on a page whose own frames sit just under 50 ms (the storm's: ~45 ms of CPU): the
 * page alone measured 15-180 ms from one load to the next on a quiet machine. The goal is read
 * on the medians, every load printed.
 */
const RUNS = Number(process.env.BENCH_HOSTILE_RUNS ?? 5);
/** Pages whose blocking ratio is printed, not judged (see the goals line). */
const STORMS = /^mutation-storm/;
const ALL_PAGES = ['one-element.html', 'cells.html', 'text-nodes.html', 'mutation-storm.html', 'deep-shadow.html'];
/** BENCH_HOSTILE_PAGES=cells.html,mutation-storm.html: only those (a quicker look at one page). */
const PAGES = process.env.BENCH_HOSTILE_PAGES ? process.env.BENCH_HOSTILE_PAGES.split(',') : ALL_PAGES;
/**
 * BENCH_HOSTILE_SCROLL=1: halfway through each load's window the page is scrolled to its end,
 * as an analyst jumping to the bottom. Past the page limit that reads rows not held yet, and
 * the far addresses are dropped (page-lens evictFar), which a load without scrolling never
 * does.
 */
const SCROLL = process.env.BENCH_HOSTILE_SCROLL === '1';
/**
 * BENCH_HOSTILE_CPU=1: each load also reads the CPU time of the browser's processes by kind
 * (process-cpu.ts: the page's renderer, the extension's process, browser, GPU, utility, and
 * the bench with its simulator) and counts the page's frames: where a load's work went besides
 * the page's main thread, the two sides side by side (medians per load).
 */
const CPU = process.env.BENCH_HOSTILE_CPU === '1';

/**
 * Waits out one load's window, scrolling to the end halfway with BENCH_HOSTILE_SCROLL=1 (also
 * used by bench page-profile's fixed window).
 */
export async function watchWindow(page: Page, windowMs: number): Promise<void> {
  if (!SCROLL) return page.waitForTimeout(windowMs);
  await page.waitForTimeout(windowMs / 2);
  await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
  await page.waitForTimeout(windowMs / 2);
}

const watch = (page: Page) => watchWindow(page, WINDOW_MS);

/** In the page from its first script: every long task (> 50 ms) the browser reports. */
function recordLongTasks(): void {
  const w = window as unknown as { benchTasks: number[] };
  w.benchTasks = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) w.benchTasks.push(e.duration);
  }).observe({ type: 'longtask', buffered: true });
}

/** BENCH_HOSTILE_CPU: the page's animation frames, counted (a string: tsx's name helpers do not exist in the page). */
const COUNT_FRAMES = `window.benchFrames = 0;
const benchCounter = { tick() { window.benchFrames++; requestAnimationFrame(benchCounter.tick); } };
requestAnimationFrame(benchCounter.tick);`;

interface Blocking {
  longest: number;
  blocking: number;
  /** BENCH_HOSTILE_CPU: CPU ms by process kind over the load, and the page's frames. */
  cpu?: Record<ProcessKind, number>;
  frames?: number;
}

async function blockingOf(context: BrowserContext, url: string): Promise<Blocking> {
  const page = await context.newPage();
  try {
    await page.addInitScript(recordLongTasks);
    if (CPU) await page.addInitScript({ content: COUNT_FRAMES });
    const before = CPU ? cpuSnapshot() : undefined;
    await page.goto(url, { timeout: 120_000 });
    await watch(page);
    const cpu = before && cpuSpent(before, cpuSnapshot());
    const { tasks, frames } = await page.evaluate(() => {
      const w = window as unknown as { benchTasks: number[]; benchFrames: number };
      return { tasks: w.benchTasks, frames: w.benchFrames };
    });
    return { longest: Math.max(0, ...tasks), blocking: blockingTime(tasks), ...(cpu && { cpu, frames }) };
  } finally {
    await page.close();
  }
}

interface OwnTasks {
  longest: number;
  over50: number;
  count: number;
  /** Our own work in one task (see ownWorkMs): the longest, and how many passed 16 / 50 ms. */
  work: number;
  workOver16: number;
  workOver50: number;
}

/** The content script's own tasks during one load, from a trace. */
async function ownTasksOf(context: BrowserContext, url: string, scriptUrl: string): Promise<OwnTasks> {
  const page = await context.newPage();
  try {
    // Same origin first, so the renderer (and the trace in it) stays for the real load.
    await page.goto(new URL('hostile.js', url).href);
    const cdp = await context.newCDPSession(page);
    const stopTrace = await startTrace(cdp);
    await page.goto(url, { timeout: 120_000 });
    await watch(page);
    const events = await stopTrace();
    const taskSet = [...contentScriptTaskSet(events, scriptUrl)];
    const tasks = taskSet.map((t) => (t.dur ?? 0) / 1000);
    const sorted = events.filter((e) => e.ph === 'X').sort((a, b) => a.ts - b.ts || (b.dur ?? 0) - (a.dur ?? 0));
    const work = taskSet.map((t) => ownWorkMs(t, sorted, scriptUrl));
    return {
      longest: Math.max(0, ...tasks),
      over50: tasks.filter((d) => d > 50).length,
      count: tasks.length,
      work: Math.max(0, ...work),
      workOver16: work.filter((d) => d > 16).length,
      workOver50: work.filter((d) => d > 50).length,
    };
  } finally {
    await page.close();
  }
}

/**
 * Our own work in one task. The page's frame task holds the page's animation-frame callback
 * and its rendering (a storm's frame is 300–500 ms of layout with or without us) next to our
 * mutation flush: the whole task is not ours. Each direct child of the task that ran our
 * script counts whole when no other script ran in it (our callback, its microtasks, the
 * garbage collection and forced layout inside it), else only our calls inside it (our
 * observer callback, a microtask of the page's callback).
 */
export function ownWorkMs(task: TraceEvent, sorted: TraceEvent[], scriptUrl: string): number {
  const end = task.ts + (task.dur ?? 0);
  let i = firstAtOrAfter(sorted, task.ts);
  let own = 0;
  while (i < sorted.length && sorted[i]!.ts <= end) {
    const child = sorted[i]!;
    i++;
    if (child === task || child.tid !== task.tid || child.ph !== 'X') continue;
    const childEnd = child.ts + (child.dur ?? 0);
    let ours = 0;
    let others = false;
    let j = i;
    const calls = [child];
    for (; j < sorted.length && sorted[j]!.ts <= childEnd; j++) if (sorted[j]!.tid === task.tid) calls.push(sorted[j]!);
    for (const e of calls) {
      if (e.name !== 'FunctionCall' && e.name !== 'EvaluateScript') continue;
      if (e.args?.data?.url === scriptUrl) ours += (e.dur ?? 0) / 1000;
      else if (e.args?.data?.url) others = true;
    }
    if (ours > 0) own += others ? ours : (child.dur ?? 0) / 1000;
    // On to the next direct child: past everything nested in this one.
    i = j;
  }
  return own;
}

const fmt = (n: number) => n.toFixed(0);

/** BENCH_HOSTILE_CPU: medians per load, alone → with us, of each process kind's CPU and of the renderer's per frame. */
function cpuLine(alones: Blocking[], withs: Blocking[]): string {
  const med = (runs: Blocking[], of: (b: Blocking) => number) => median(runs.map(of));
  const parts = PROCESS_KINDS.map((k) => `${k} ${fmt(med(alones, (b) => b.cpu![k]))} → ${fmt(med(withs, (b) => b.cpu![k]))}`);
  const perFrame = (b: Blocking) => b.cpu!.renderer / Math.max(1, b.frames!);
  parts.push(`frames ${fmt(med(alones, (b) => b.frames!))} → ${fmt(med(withs, (b) => b.frames!))}`);
  parts.push(`renderer per frame ${med(alones, perFrame).toFixed(1)} → ${med(withs, perFrame).toFixed(1)}`);
  const each = (runs: Blocking[]) => runs.map((b) => PROCESS_KINDS.filter((k) => k !== 'renderer').map((k) => fmt(b.cpu![k])).join('/')).join(', ');
  return `CPU ms per load (medians, alone → with us): ${parts.join('; ')}\n    per load (${PROCESS_KINDS.filter((k) => k !== 'renderer').join('/')}): alone ${each(alones)}; with us ${each(withs)}`;
}
const verdict = (met: boolean) => (met ? 'met' : 'NOT met');

export async function run(): Promise<void> {
  await withHostileSession('iplens-bench-hostile-', async ({ context, extensionId: id, scanned, alone }) => {
    const scriptUrl = `chrome-extension://${id}/content-scripts/content.js`;
    console.log(`window ${WINDOW_MS} ms per load; longest task and blocking time in ms (Long Tasks API, the page's own tasks included), median of ${RUNS} loads a side;`);
    console.log('ours: the longest task our script ran in, such tasks over 50 ms / all (a third, traced load);');
    console.log('own: our own work in one task (the page\'s callbacks and rendering in a shared frame task left out), longest, tasks over 16 / over 50 ms');
    console.log('page                  alone: longest / blocking   with us: longest / blocking   ratio   ours: longest  >50/all     own: longest >16/>50   goals');
    const details: string[] = [];
    for (const name of PAGES) {
      const alones: Blocking[] = [];
      const withs: Blocking[] = [];
      for (let run = 0; run < RUNS; run++) {
        if (run % 2 === 0) alones.push(await blockingOf(context, alone(name)));
        withs.push(await blockingOf(context, scanned(name)));
        if (run % 2 === 1) alones.push(await blockingOf(context, alone(name)));
      }
      const a = { longest: median(alones.map((b) => b.longest)), blocking: median(alones.map((b) => b.blocking)) };
      const w = { longest: median(withs.map((b) => b.longest)), blocking: median(withs.map((b) => b.blocking)) };
      const own = await ownTasksOf(context, scanned(name), scriptUrl);
      const ratio = a.blocking > 0 ? w.blocking / a.blocking : w.blocking > 0 ? Infinity : 1;
      // A storm's frames sit just under 50 ms, so its blocking is a tail whose spread from one load
      // of the page alone to the next is wider than 1.2x: judged by our CPU per frame instead
      // (`npm run bench storm-frames`), the ratio printed only.
      const blockingGoal = STORMS.test(name) ? 'blocking: see storm-frames' : `blocking ≤ 1.2×: ${verdict(ratio <= 1.2)}`;
      const goals = `our longest < 50: ${verdict(own.longest < 50)}; own work < 50: ${verdict(own.work < 50)}; ${blockingGoal}`;
      console.log(
        `${name.padEnd(22)}${fmt(a.longest).padStart(10)} / ${fmt(a.blocking).padEnd(12)}${fmt(w.longest).padStart(12)} / ${fmt(w.blocking).padEnd(12)}${ratio.toFixed(2).padStart(6)}` +
          `${fmt(own.longest).padStart(14)}  ${`${own.over50}/${own.count}`.padEnd(9)}${fmt(own.work).padStart(13)} ${`${own.workOver16}/${own.workOver50}`.padEnd(8)} ${goals}`,
      );
      const list = (runs: Blocking[]) => runs.map((b) => fmt(b.blocking)).join(', ');
      details.push(`${name}: blocking per load, alone ${list(alones)}; with us ${list(withs)} ms`);
      if (CPU) details.push(`${name}: ${cpuLine(alones, withs)}`);
    }
    console.log(`longest and blocking: medians of ${RUNS} loads a side (BENCH_HOSTILE_RUNS), alternating:`);
    for (const line of details) console.log(`  ${line}`);
  });
}
