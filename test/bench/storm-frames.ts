/**
 * The mutation storm's frames by thread (CPU) time, the page alone and with the extension:
 * on a shared 2-core machine the wall time of a ~45 ms frame swings by several times with the
 * load, its CPU time much less. Per load of the page: frame tasks, their CPU median and mean,
 * how many passed 50 ms (CPU, and wall), the main thread's CPU and our script's calls' CPU over
 * the window. A trace roughly doubles the storm's wall time per frame,
 * so compare the lines of one run, never with bench page-hostile's numbers.
 *
 * Our cost per storm frame is judged by CPU resolved from traces, not by a blocking-time ratio
 * (the page alone's own spread from load to load is wider than a 1.2x goal): STORM_SELF gives
 * the paired difference per steady frame, by trace event.
 *
 *   npm run bench storm-frames   (or BENCH_EXTENSION_DIR=<build> npx tsx test/bench/storm-frames.ts)
 *   STORM_WHICH (default alone,scanned): the loads of a round, in order; a name starting with
 *   `alone` loads the page alone, with `scanned` the page scanned (alone,scanned,alone-b: the
 *   page alone twice, its own swing beside ours); STORM_ROUNDS (default 1), STORM_PAGE (default
 *   mutation-storm.html), STORM_SELF=N: the N trace event names whose self time per steady frame
 *   differs most between each variant and the first (printSelf), STORM_CATS the trace categories
 *   (add blink,benchmark for Blink's lifecycle and intersection events);
 *   STORM_STEADY_MS (default 1,500): STORM_SELF counts only frame tasks this long after the
 *   load's first task; STORM_SHIFT=0.1,0.3: blocking read from frame CPU per variant against the
 *   first, and the first variant's frames each lengthened by those ms (what a cost of that size
 *   in every frame does to this page's blocking); BENCH_HOSTILE_WINDOW_MS (default 6,000) the
 *   window measured.
 */
import type { BrowserContext } from '@playwright/test';
import { withHostileSession } from './hostile-session';
import type { TraceEvent } from './page';
import { blockingTime, shiftedRatio } from './blocking-time';
import { selfTimeByName } from './self-time';

const WINDOW_MS = Number(process.env.BENCH_HOSTILE_WINDOW_MS ?? 6_000);
const PAGE = process.env.STORM_PAGE ?? 'mutation-storm.html';
/** STORM_SELF counts only frame tasks this long after the load's first task: the steady storm, not the load. */
const STEADY_MS = Number(process.env.STORM_STEADY_MS ?? 1_500);
const CATS = process.env.STORM_CATS ?? 'devtools.timeline,disabled-by-default-devtools.timeline';

/** What the last trace's page held at its end (see trace). */
let counts = '';

async function trace(context: BrowserContext, url: string): Promise<TraceEvent[]> {
  const page = await context.newPage();
  try {
    await page.goto(new URL('hostile.js', url).href);
    const cdp = await context.newCDPSession(page);
    const events: TraceEvent[] = [];
    cdp.on('Tracing.dataCollected', (d) => {
      for (const e of d.value as unknown as TraceEvent[]) events.push(e);
    });
    await cdp.send('Tracing.start', { categories: CATS, transferMode: 'ReportEvents' } as never);
    await page.goto(url, { timeout: 120_000 });
    await page.waitForTimeout(WINDOW_MS);
    // Noise-free count: ranges in the page's highlights (ours are readable from its world).
    counts = await page.evaluate(() => {
      let ranges = 0;
      for (const [, h] of CSS.highlights) ranges += h.size;
      return `ranges registered ${ranges}`;
    });
    const done = new Promise((r) => cdp.once('Tracing.tracingComplete', r));
    await cdp.send('Tracing.end');
    await done;
    return events;
  } finally {
    await page.close();
  }
}

interface Summary {
  frames: number;
  medianCpu: number;
  meanCpu: number;
  over50Cpu: number;
  over50Wall: number;
  mainCpu: number;
  oursCpu: number;
  /** Our script's calls (callbacks entered), and those inside the page's frame tasks. */
  oursCalls: number;
  oursInFrames: number;
  windowMs: number;
  /** Every frame task's CPU (ms), sorted: STORM_SHIFT reads blocking from it. */
  frameCpu: number[];
  /** STORM_SELF: self thread time (ms) and count of each trace event name, summed over the frame tasks. */
  self: Map<string, [ms: number, count: number]>;
}

/** Thread (CPU) time of the page's frame tasks: what the load changes least. */
function summarise(events: TraceEvent[], pageUrl: string, scriptUrl: string): Summary {
  const pageCall = events.find((e) => e.name === 'FunctionCall' && e.args?.data?.url === pageUrl) ?? events.find((e) => e.name === 'FireAnimationFrame');
  const tid = pageCall!.tid;
  const pid = (pageCall as TraceEvent & { pid: number }).pid;
  const mine = events.filter((e) => e.tid === tid && (e as TraceEvent & { pid: number }).pid === pid && e.ph === 'X').sort((a, b) => a.ts - b.ts);
  const tasks = mine.filter((e) => e.name === 'RunTask');
  const frameStarts = mine.filter((e) => e.name === 'FireAnimationFrame').map((e) => e.ts);
  const frameTasks = tasks.filter((t) => {
    const end = t.ts + (t.dur ?? 0);
    return frameStarts.some((f) => f >= t.ts && f <= end);
  });
  const cpu = frameTasks.map((t) => (t.tdur ?? 0) / 1000).sort((a, b) => a - b);
  const ours = mine.filter((e) => e.name === 'FunctionCall' && e.args?.data?.url === scriptUrl);
  const first = tasks[0]?.ts ?? 0;
  const last = tasks.at(-1);
  return {
    frames: frameTasks.length,
    medianCpu: cpu[cpu.length >> 1] ?? 0,
    meanCpu: cpu.reduce((a, b) => a + b, 0) / Math.max(1, cpu.length),
    over50Cpu: cpu.filter((d) => d > 50).length,
    frameCpu: cpu,
    over50Wall: frameTasks.filter((t) => (t.dur ?? 0) > 50_000).length,
    mainCpu: tasks.reduce((s, t) => s + (t.tdur ?? 0) / 1000, 0),
    oursCpu: ours.reduce((s, t) => s + (t.tdur ?? 0) / 1000, 0),
    oursCalls: ours.length,
    oursInFrames: ours.filter((c) => frameTasks.some((t) => c.ts >= t.ts && c.ts <= t.ts + (t.dur ?? 0))).length,
    windowMs: last ? (last.ts + (last.dur ?? 0) - first) / 1000 : 0,
    self: process.env.STORM_SELF ? selfTimeByName(mine, frameTasks.filter((t) => t.ts - first >= STEADY_MS * 1000)) : new Map(),
  };
}

function print(label: string, s: Summary): void {
  console.log(
    `${label.padEnd(13)} frames ${String(s.frames).padStart(4)} in ${s.windowMs.toFixed(0)} ms; frame task CPU median ${s.medianCpu.toFixed(1)} mean ${s.meanCpu.toFixed(1)} ms, >50 ms CPU ${s.over50Cpu}, >50 ms wall ${s.over50Wall}; main thread CPU ${s.mainCpu.toFixed(0)} ms, our calls CPU ${s.oursCpu.toFixed(0)} ms, ${s.oursCalls} calls (${s.oursInFrames} in frame tasks)`,
  );
  if (s.self.size) {
    const steady = s.self.get('RunTask')?.[1] ?? 0;
    const ms = [...s.self.values()].reduce((t, [m]) => t + m, 0);
    const io = s.self.get('IntersectionObserverController::computeIntersections')?.[0] ?? 0;
    console.log(`${''.padEnd(13)} steady frame tasks ${steady}: CPU mean ${(ms / Math.max(1, steady)).toFixed(2)} ms, of it intersections ${(io / Math.max(1, steady)).toFixed(3)} ms`);
  }
}

/** STORM_SELF: per variant, per load, self ms and events per steady frame task by event name. */
const selfLoads = new Map<string, Map<string, [ms: number, count: number]>[]>();

function addSelf(which: string, s: Summary): void {
  const frames = Math.max(1, s.self.get('RunTask')?.[1] ?? 0);
  const perFrame = new Map<string, [number, number]>();
  for (const [name, [ms, n]] of s.self) perFrame.set(name, [ms / frames, n / frames]);
  selfLoads.set(which, [...(selfLoads.get(which) ?? []), perFrame]);
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
/** Half-width of a ~90 % interval of the mean of `xs` (1.7 standard errors; loads pair by round). */
const spread = (xs: number[]) => (xs.length < 2 ? NaN : 1.7 * Math.sqrt(xs.reduce((a, x) => a + (x - mean(xs)) ** 2, 0) / (xs.length - 1) / xs.length));

/**
 * STORM_SELF=N: the N event names whose self time per steady frame task differs most between
 * each variant and the first (alone), as the mean over rounds of the paired difference (round
 * i of the variant less round i of the first), ± ~90 % of its mean's spread; then the events
 * per frame (counts do not depend on the machine's load).
 */
function printSelf(top: number): void {
  const [baseName, ...others] = [...selfLoads.keys()];
  const base = selfLoads.get(baseName!)!;
  const at = (load: Map<string, [number, number]>, name: string) => load.get(name) ?? [0, 0];
  const total = (load: Map<string, [number, number]>) => [...load.values()].reduce((t, [ms]) => t + ms, 0);
  for (const which of others) {
    const loads = selfLoads.get(which)!;
    const rounds = Math.min(base.length, loads.length);
    const diffs = (f: (load: Map<string, [number, number]>) => number) => Array.from({ length: rounds }, (_, i) => f(loads[i]!) - f(base[i]!));
    const totals = diffs(total);
    console.log(
      `\nself time per steady frame task, ${baseName} -> ${which}, ${rounds} rounds: frame CPU ${mean(base.map(total)).toFixed(2)} -> ${mean(loads.map(total)).toFixed(2)} ms, paired difference ${mean(totals).toFixed(2)} ± ${spread(totals).toFixed(2)} ms`,
    );
    const names = new Set([...base.flatMap((l) => [...l.keys()]), ...loads.flatMap((l) => [...l.keys()])]);
    const rows = [...names].map((name) => {
      const d = diffs((load) => at(load, name)[0]);
      return { name, d: mean(d), pm: spread(d), a: mean(base.map((l) => at(l, name)[0])), an: mean(base.map((l) => at(l, name)[1])), bn: mean(loads.map((l) => at(l, name)[1])) };
    });
    rows.sort((x, y) => Math.abs(y.d) - Math.abs(x.d));
    for (const r of rows.slice(0, top)) {
      console.log(`  ${(r.d >= 0 ? '+' : '') + r.d.toFixed(3)} ± ${r.pm.toFixed(3)} ms of ${r.a.toFixed(3)}  (events/frame ${r.an.toFixed(1)} -> ${r.bn.toFixed(1)})  ${r.name}`);
    }
  }
}

/** STORM_SHIFT: per variant, each load's frame tasks' CPU. */
const frameLoads = new Map<string, number[][]>();

/**
 * STORM_SHIFT=0.1,0.3,...: blocking read from frame CPU (each frame task's CPU beyond 50 ms)
 * per variant, pooled over its loads, against the first variant's; then the first variant's own
 * frames lengthened by each of those ms: what a cost of that size in every frame does to this
 * page's blocking, free of the load-to-load swing of a with/alone ratio.
 */
function printShift(shifts: number[]): void {
  const [baseName, ...others] = [...frameLoads.keys()];
  const base = frameLoads.get(baseName!)!;
  const pooled = (loads: number[][]) => loads.reduce((t, cpu) => t + blockingTime(cpu), 0) / Math.max(1, loads.length);
  const perLoad = (loads: number[][]) => loads.map((cpu) => blockingTime(cpu).toFixed(0)).join(', ');
  console.log(`
blocking by frame CPU (ms a load, pooled mean; per load): ${baseName} ${pooled(base).toFixed(1)} (${perLoad(base)})`);
  for (const which of others) {
    const loads = frameLoads.get(which)!;
    console.log(`  ${which} ${pooled(loads).toFixed(1)} (${perLoad(loads)}): ${(pooled(loads) / Math.max(1e-9, pooled(base))).toFixed(2)}× ${baseName}`);
  }
  console.log(`${baseName}'s own frames, every one lengthened by: ${shifts.map((d) => `+${d} ms → ${shiftedRatio(base, d).toFixed(2)}×`).join(', ')}`);
}

/** The loads of a round (STORM_WHICH): each name starts with `alone` or `scanned`. */
export function stormLoads(which = 'alone,scanned'): string[] {
  const names = which.split(',').filter(Boolean);
  const wrong = names.filter((n) => !n.startsWith('alone') && !n.startsWith('scanned'));
  if (wrong.length || !names.length) throw new Error(`STORM_WHICH: each name starts with "alone" or "scanned", got "${which}"`);
  return names;
}

export async function run(): Promise<void> {
  const loads = stormLoads(process.env.STORM_WHICH);
  await withHostileSession('storm-frames-', async ({ context, scanned, alone, extensionId }) => {
    const scriptUrl = `chrome-extension://${extensionId}/content-scripts/content.js`;
    for (let round = 0; round < Number(process.env.STORM_ROUNDS ?? 1); round++) {
      for (const which of loads) {
        const url = which.startsWith('scanned') ? scanned(PAGE) : alone(PAGE);
        const s = summarise(await trace(context, url), url, scriptUrl);
        print(which, s);
        console.log(`${''.padEnd(13)} ${counts}`);
        addSelf(which, s);
        frameLoads.set(which, [...(frameLoads.get(which) ?? []), s.frameCpu]);
      }
    }
    if (process.env.STORM_SELF) printSelf(Number(process.env.STORM_SELF) || 25);
    if (process.env.STORM_SHIFT) printShift(process.env.STORM_SHIFT.split(',').map(Number));
  });
}

if (process.argv[1]?.endsWith('storm-frames.ts')) await run();
