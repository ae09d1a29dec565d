/**
 * The mutation storm's frames by thread (CPU) time, the page alone and with the extension:
 * on a shared 2-core machine the wall time of a ~45 ms frame swings by several times with the
 * load, its CPU time much less. Per load of the page: frame tasks, their CPU median and mean,
 * how many passed 50 ms (CPU, and wall), the main thread's CPU and our script's calls' CPU over
 * the window. A trace roughly doubles the storm's wall time per frame,
 * so compare the lines of one run, never with bench page-hostile's numbers.
 *
 *   BENCH_EXTENSION_DIR=<build> npx tsx test/bench/storm-frames.ts
 *   STORM_WHICH=alone,mo,scanned (mo: the page alone with a subtree MutationObserver that only
 *   keeps its records a frame: the observer's own cost; mo-child, mo-complement, mo-around: see
 *   observeAround; sheet, sheet-html, sheet-marks: see adoptMarks, markRows), STORM_ROUNDS=2,
 *   STORM_PAGE=<fixture>, STORM_PROBE=1 (PROBE_SCRIPT: the frames in which the page's
 *   highlights changed, and their CPU); io-N, highlights-N: see observeStill, markStill;
 *   STORM_SELF=N: see printSelf (with STORM_CATS=devtools.timeline,disabled-by-default-devtools.timeline,blink,benchmark
 *   for Blink's lifecycle and intersection events); STORM_NAMES=<regex>: each load's trace
 *   events of matching names, by name, category, phase and arguments (which events exist).
 *   STORM_STEADY_MS (default 1,500): STORM_SELF counts only frame tasks this long after the
 *   load's first task; STORM_SHIFT=0.1,0.3: blocking read from frame CPU per variant against the
 *   first, and the first variant's frames each lengthened by those ms (what a cost of that size
 *   in every frame does to this page's blocking); BENCH_HOSTILE_WINDOW_MS (default 6,000) the
 *   window measured.
 */
import type { BrowserContext } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { withHostileSession } from './hostile-session';
import type { TraceEvent } from './page';
import { blockingTime, shiftedRatio } from './blocking-time';
import { selfTimeByName } from './self-time';

const WINDOW_MS = Number(process.env.BENCH_HOSTILE_WINDOW_MS ?? 6_000);
const PAGE = process.env.STORM_PAGE ?? 'mutation-storm.html';
/** STORM_SELF counts only frame tasks this long after the load's first task: the steady storm, not the load. */
const STEADY_MS = Number(process.env.STORM_STEADY_MS ?? 1_500);
const CATS = process.env.STORM_CATS ?? 'devtools.timeline,disabled-by-default-devtools.timeline';

/** STORM_INIT=mo: the page alone with a subtree MutationObserver that only keeps its records a frame. */
function observeOnly(): void {
  let kept: MutationRecord[] = [];
  new MutationObserver((records) => {
    kept = records;
    requestAnimationFrame(() => (kept = []));
  }).observe(document, { childList: true, subtree: true, characterData: true });
  (window as unknown as { kept: () => number }).kept = () => kept.length;
}

/**
 * STORM_INIT=mo-child: only a `childList` observer (no subtree) on the storming container
 * (#storm): what watching the storm go on costs. mo-complement: that, plus the rest of the page
 * observed around the container (its ancestors `childList` only, their other children with the
 * full subtree options, their text children `characterData`): what mutation-queue.ts observes
 * while a container storms. mo-around: the complement without the container (nothing tells
 * the storm goes on; storm-watch.ts looks at its first child instead).
 */
function observeAround(which: string): void {
  let kept: MutationRecord[] = [];
  const observer = new MutationObserver((records) => {
    kept = records;
    requestAnimationFrame(() => (kept = []));
  });
  document.addEventListener('DOMContentLoaded', () => {
    const storm = document.getElementById('storm')!;
    if (which !== 'mo-around') observer.observe(storm, { childList: true });
    if (which === 'mo-child') return;
    for (let child: Node = storm, parent = storm.parentNode; parent; child = parent, parent = parent.parentNode) {
      observer.observe(parent, { childList: true });
      for (let n = parent.firstChild; n; n = n.nextSibling) {
        if (n === child) continue;
        observer.observe(n, n.nodeType === Node.TEXT_NODE ? { characterData: true } : { childList: true, subtree: true, characterData: true });
      }
    }
  });
  (window as unknown as { kept: () => number }).kept = () => kept.length;
}

/**
 * STORM_WHICH=sheet: the page alone with the marks' rules (entrypoints/content/marks.css)
 * adopted from its first script, as the registered content script's CSS is there from the
 * start: what our stylesheet alone costs the page's frames. sheet-html: the same rules on
 * `html` instead of `:root`.
 */
function adoptMarks(css: string): void {
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(css);
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
}

/**
 * STORM_WHICH=sheet-marks: `sheet`, plus one highlight holding a range over each text of the
 * page's still rows (#rows), as our marks there are (8 ranges): what registered highlights
 * cost a page that changes its DOM every frame (Chromium rebuilds every highlight's markers
 * when the DOM changed, HighlightRegistry::ValidateHighlightMarkers).
 */
function markRows(): void {
  document.addEventListener('DOMContentLoaded', () => {
    const ranges: StaticRange[] = [];
    const walker = document.createTreeWalker(document.getElementById('rows')!, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) ranges.push(new StaticRange({ startContainer: n, startOffset: 0, endContainer: n, endOffset: (n as Text).length }));
    CSS.highlights.set('ip-rep-high', new Highlight(...ranges));
  });
}

/**
 * The page's elements (io-N) or texts (highlights-N) outside the storming container (#storm),
 * N of them spread evenly in document order: what stays on the page for us to observe or mark.
 */
function stillNodes(what: number, n: number): Node[] {
  const storm = document.getElementById('storm');
  const all: Node[] = [];
  // No filter function: tsx would wrap an arrow property in a name helper the page lacks.
  const walker = document.createTreeWalker(document.body, what);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) if (!storm?.contains(node)) all.push(node);
  const step = Math.max(1, all.length / n);
  const out: Node[] = [];
  for (let i = 0; i < all.length && out.length < n; i += step) out.push(all[Math.floor(i)]!);
  return out;
}

/**
 * STORM_WHICH=io-N: the page alone with an IntersectionObserver on N of its elements outside
 * the storm (spread evenly), with the near tracker's options (one viewport of root and scroll
 * margin above and below): what Blink's intersection updates cost per target, in every frame
 * whose layout changed. Our tracker observes 2 ends of each chunk of 32 rows (coarse), and each
 * near IP's cell twice (fine, on screen).
 */
function observeStill([n, source]: [number, string]): void {
  document.addEventListener('DOMContentLoaded', () => {
    const pick = new Function(`return (${source})`)() as typeof stillNodes;
    const margin = '100% 0px 100% 0px';
    const observer = new IntersectionObserver(() => {}, { rootMargin: margin, scrollMargin: margin } as IntersectionObserverInit);
    const targets = pick(NodeFilter.SHOW_ELEMENT, n);
    for (const el of targets) observer.observe(el as Element);
    (window as unknown as { stillTargets: number }).stillTargets = targets.length;
  });
}

/**
 * STORM_WHICH=highlights-N: the marks' rules adopted (as `sheet`) and one highlight of N
 * StaticRanges, one over each of N texts outside the storm (spread evenly): what registered
 * ranges cost a page whose DOM changes every frame (Blink rebuilds every highlight's markers
 * then, HighlightRegistry::ValidateHighlightMarkers).
 */
function markStill([n, source]: [number, string]): void {
  document.addEventListener('DOMContentLoaded', () => {
    const pick = new Function(`return (${source})`)() as typeof stillNodes;
    const ranges = pick(NodeFilter.SHOW_TEXT, n).map((t) => new StaticRange({ startContainer: t, startOffset: 0, endContainer: t, endOffset: (t as Text).length }));
    CSS.highlights.set('ip-rep-high', new Highlight(...ranges));
  });
}

/**
 * STORM_PROBE=1: in each animation frame the page reads `CSS.highlights` (names and sizes: ours
 * are readable from the page's world) and stamps the trace (`console.timeStamp('hl-change')`)
 * when they differ from the last frame's: that frame renders a change of marks. A change that
 * keeps every highlight's size is not seen (ours add or move ranges between severities).
 */
const PROBE_SCRIPT = `(() => {
  let last = '';
  const probe = { tick() {
    let sig = '';
    for (const [name, h] of CSS.highlights) sig += name + ':' + h.size + ';';
    if (sig !== last) { last = sig; console.timeStamp('hl-change'); }
    requestAnimationFrame(probe.tick);
  } };
  requestAnimationFrame(probe.tick);
})();`;
const PROBE = process.env.STORM_PROBE === '1';

/** What the last trace's page held at its end (see trace). */
let counts = '';

async function trace(context: BrowserContext, url: string, init?: string): Promise<TraceEvent[]> {
  const page = await context.newPage();
  try {
    // A string: tsx's name helpers do not exist in the page.
    if (PROBE) await page.addInitScript({ content: PROBE_SCRIPT });
    if (init?.startsWith('sheet')) {
      let css = readFileSync('entrypoints/content/marks.css', 'utf8');
      if (init === 'sheet-html') css = css.replaceAll(':root::highlight', 'html::highlight');
      await page.addInitScript(adoptMarks, css);
      if (init === 'sheet-marks') await page.addInitScript(markRows);
    }
    if (init === 'mo') await page.addInitScript(observeOnly);
    // A function's source, not the function: tsx's name helpers do not exist in the page.
    const count = Number(init?.split('-')[1]);
    if (init?.startsWith('io-')) await page.addInitScript(observeStill, [count, stillNodes.toString()] as [number, string]);
    if (init?.startsWith('highlights-')) {
      await page.addInitScript(adoptMarks, readFileSync('entrypoints/content/marks.css', 'utf8'));
      await page.addInitScript(markStill, [count, stillNodes.toString()] as [number, string]);
    }
    if (init?.startsWith('mo-')) await page.addInitScript(observeAround, init);
    await page.goto(new URL('hostile.js', url).href);
    const cdp = await context.newCDPSession(page);
    const events: TraceEvent[] = [];
    cdp.on('Tracing.dataCollected', (d) => {
      for (const e of d.value as unknown as TraceEvent[]) events.push(e);
    });
    await cdp.send('Tracing.start', { categories: CATS, transferMode: 'ReportEvents' } as never);
    await page.goto(url, { timeout: 120_000 });
    await page.waitForTimeout(WINDOW_MS);
    // Noise-free counts: ranges in the page's highlights (ours are readable from its world), targets of io-N.
    counts = await page.evaluate(() => {
      let ranges = 0;
      for (const [, h] of CSS.highlights) ranges += h.size;
      return `ranges registered ${ranges}, io-N targets ${(window as unknown as { stillTargets?: number }).stillTargets ?? 0}`;
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
  /** STORM_PROBE: CPU of the frame tasks that rendered a change of highlights, and their time from the first task. */
  changeFrames: [cpu: number, at: number][];
  /** Every frame task's CPU (ms), sorted: STORM_SHIFT reads blocking from it. */
  frameCpu: number[];
  /** Frame tasks over 50 ms of CPU: CPU, ms from the first task. */
  longFrames: [cpu: number, at: number][];
  /** CPU of the frame task at `at` and the two after it. */
  nextCpu: (at: number) => number[];
  /** STORM_SELF: self thread time (ms) and count of each trace event name, summed over the frame tasks. */
  self: Map<string, [ms: number, count: number]>;
}

/** STORM_NAMES: which trace events of these names the load recorded, and how many. */
function listNames(events: readonly TraceEvent[], re: RegExp): void {
  const seen = new Map<string, number>();
  for (const e of events) {
    if (!re.test(e.name)) continue;
    const key = `${e.name} [${(e as TraceEvent & { cat?: string }).cat}] ${e.ph} ${JSON.stringify(e.args).slice(0, 200)}`;
    seen.set(key, (seen.get(key) ?? 0) + 1);
  }
  for (const [key, n] of seen) console.log(`  ${n}x ${key}`);
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
  if (process.env.STORM_NAMES) listNames(events, new RegExp(process.env.STORM_NAMES));
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
    // Instant events (ph 'I'), not in `mine`.
    changeFrames: events
      .filter((e) => e.tid === tid && e.name === 'TimeStamp' && (e.args?.data as { message?: string } | undefined)?.message === 'hl-change')
      .map((stamp) => frameTasks.find((t) => stamp.ts >= t.ts && stamp.ts <= t.ts + (t.dur ?? 0)))
      .filter((t): t is TraceEvent => !!t)
      .map((t) => [(t.tdur ?? 0) / 1000, (t.ts - first) / 1000]),
    longFrames: frameTasks.filter((t) => (t.tdur ?? 0) > 50_000).map((t) => [(t.tdur ?? 0) / 1000, (t.ts - first) / 1000]),
    self: process.env.STORM_SELF ? selfTimeByName(mine, frameTasks.filter((t) => t.ts - first >= STEADY_MS * 1000)) : new Map(),
    nextCpu: (at) => {
      const i = frameTasks.findIndex((t) => (t.ts - first) / 1000 >= at);
      return frameTasks.slice(i, i + 3).map((t) => (t.tdur ?? 0) / 1000);
    },
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
  if (PROBE) console.log(`${''.padEnd(13)} highlight changes rendered: ${s.changeFrames.length} (frame CPU ms @ ms from the first task: ${s.changeFrames.map(([c, at]) => `${c.toFixed(1)}@${at.toFixed(0)}`).join(', ')}; with the next two: ${s.changeFrames.map(([, at]) => s.nextCpu(at).map((c) => c.toFixed(1)).join('/')).join(', ')}); frames over 50 ms CPU: ${s.longFrames.map(([c, at]) => `${c.toFixed(0)}@${at.toFixed(0)}`).join(' ')}`);
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

await withHostileSession('storm-frames-', async ({ context, scanned, alone, extensionId }) => {
  const scriptUrl = `chrome-extension://${extensionId}/content-scripts/content.js`;
  for (let round = 0; round < Number(process.env.STORM_ROUNDS ?? 1); round++) {
    for (const which of (process.env.STORM_WHICH ?? 'alone,scanned').split(',')) {
      const url = which === 'scanned' ? scanned(PAGE) : alone(PAGE);
      const s = summarise(await trace(context, url, which === 'alone' || which === 'scanned' ? undefined : which), url, scriptUrl);
      print(which, s);
      console.log(`${''.padEnd(13)} ${counts}`);
      addSelf(which, s);
      frameLoads.set(which, [...(frameLoads.get(which) ?? []), s.frameCpu]);
    }
  }
  if (process.env.STORM_SELF) printSelf(Number(process.env.STORM_SELF) || 25);
  if (process.env.STORM_SHIFT) printShift(process.env.STORM_SHIFT.split(',').map(Number));
});
