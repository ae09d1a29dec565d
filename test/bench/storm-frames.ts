/**
 * The mutation storm's frames by thread (CPU) time, the page alone and with the extension
 * (issue 10, storm10f): on a shared 2-core machine the wall time of a ~45 ms frame swings by
 * several times with the load, its CPU time much less. Per load of the page: frame tasks, their
 * CPU median and mean, how many passed 50 ms (CPU, and wall), the main thread's CPU and our
 * script's calls' CPU over the window. A trace roughly doubles the storm's wall time per frame,
 * so compare the lines of one run, never with bench page-hostile's numbers.
 *
 *   BENCH_EXTENSION_DIR=<build> npx tsx test/bench/storm-frames.ts
 *   STORM_WHICH=alone,mo,scanned (mo: the page alone with a subtree MutationObserver that only
 *   keeps its records a frame: the observer's own cost; mo-child, mo-complement, mo-around: see
 *   observeAround; sheet, sheet-html, sheet-marks: see adoptMarks, markRows), STORM_ROUNDS=2,
 *   STORM_PAGE=<fixture>, STORM_PROBE=1 (PROBE_SCRIPT: the frames in which the page's
 *   highlights changed, and their CPU).
 */
import type { BrowserContext } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { withHostileSession } from './hostile-session';
import type { TraceEvent } from './page';

const WINDOW_MS = Number(process.env.BENCH_HOSTILE_WINDOW_MS ?? 6_000);
const PAGE = process.env.STORM_PAGE ?? 'mutation-storm.html';
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
  /** Frame tasks over 50 ms of CPU: CPU, ms from the first task. */
  longFrames: [cpu: number, at: number][];
  /** CPU of the frame task at `at` and the two after it. */
  nextCpu: (at: number) => number[];
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
  if (PROBE) console.log(`${''.padEnd(13)} highlight changes rendered: ${s.changeFrames.length} (frame CPU ms @ ms from the first task: ${s.changeFrames.map(([c, at]) => `${c.toFixed(1)}@${at.toFixed(0)}`).join(', ')}; with the next two: ${s.changeFrames.map(([, at]) => s.nextCpu(at).map((c) => c.toFixed(1)).join('/')).join(', ')}); frames over 50 ms CPU: ${s.longFrames.map(([c, at]) => `${c.toFixed(0)}@${at.toFixed(0)}`).join(' ')}`);
}

await withHostileSession('storm-frames-', async ({ context, scanned, alone, extensionId }) => {
  const scriptUrl = `chrome-extension://${extensionId}/content-scripts/content.js`;
  for (let round = 0; round < Number(process.env.STORM_ROUNDS ?? 1); round++) {
    for (const which of (process.env.STORM_WHICH ?? 'alone,scanned').split(',')) {
      const url = which === 'scanned' ? scanned(PAGE) : alone(PAGE);
      print(which, summarise(await trace(context, url, which.startsWith('mo') || which.startsWith('sheet') ? which : undefined), url, scriptUrl));
    }
  }
});
