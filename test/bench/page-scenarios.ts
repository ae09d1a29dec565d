/**
 * The two console scenarios of `npm run bench page`, on fixtures in test/fixtures/consoles/:
 *   - virtual-grid.html: a virtualised grid (ag-grid / EUI style: a fixed pool of row elements
 *     whose text is replaced) scrolled for a few seconds;
 *   - live-tail.html: a 5,000-event list re-rendered every second (new events at the top,
 *     every row's text replaced), scrolled slowly meanwhile.
 * Each is run in a browser with the extension (site registered) and in one without, driven the
 * same way. Reported per scenario: the share of newly visible IPs marked within 500 ms (an IP
 * text node on screen counts once it stayed 500 ms or got its mark; "marked" is any highlight
 * but pending: skipped private addresses count as marked), the page's long-task time with /
 * without the extension, and bulk calls against two minima: the plain one (the IPs asked, 100
 * per call, as if all were known at the start) and the latency-feasible one (the fewest calls
 * that send each on-screen address within W of coming on screen: test/bench/feasible-calls.ts).
 *
 * react-tail.html is a live tail built from real libraries (React 18, @tanstack/react-table;
 * bundled at bench time, fixture-bundle.ts): 5,000 events, new ones at the top every second,
 * relative-age cells rewritten as they age, rows expanded to JSON, public and private
 * addresses mixed. It is watched for the session and scrolled for another. Its long-task time
 * is read from a trace of each side (`traced`): the thread (CPU) time of the page's main-thread
 * tasks over 50 ms of CPU, as the goals elsewhere are judged (page.ts); the Long Tasks API's
 * wall time is printed beside it. Its newly shown addresses are split by the page's own word
 * (`benchIsPrivate`): public ones marked (any mark but pending) within 500 ms, private ones
 * marked "Not looked up" (`ip-rep-skipped`) within 500 ms.
 *
 * A third run of live-tail.html, not scrolled, measures the live tail's goal page-side, with and
 * without the extension: whether a new top event's mark is ready before the layout of the
 * frame that first paints its text (test/bench/insertion-timing.ts). Never asserted in a
 * test: the machine is shared.
 */
import { chromium, type CDPSession, type Page } from '@playwright/test';
import { LONG_TASK_MS } from './blocking-time';
import { BASE_CHROMIUM_ARGS, chromiumExecutable } from '../e2e/chromium';
import type { Simulator } from '../sim/server';
import type { Sighting } from './feasible-calls';
import { watchInsertions, type InsertionSample } from './insertion-timing';
import { selfTimeByName } from './self-time';
import { contentScriptTaskSet, NAME_SHIM, NAV_TIMEOUT_MS, startTrace, threadMs, VIEWPORT, withExtension, type ExtApi, type TraceEvent } from './page';

export interface Scenario {
  name: string;
  file: string;
  /** Scrolled by this much every 50 ms (0: the analyst watches the top). */
  stepPx: number;
  /** Only the new top events' "mark ready" is reported (the live tail's 250 ms goal). */
  insertions?: boolean;
  /** Long-task time from a trace (thread time), newly shown addresses split public / private. */
  traced?: boolean;
  /** The fixture's app, bundled before the first run (test/fixtures/consoles/<bundle>/app.js). */
  bundle?: string;
  /**
   * Bulk calls are counted until DRAIN_MS after the session, not at its end: what the
   * extension still held for company then (addresses near the screen, waiting for a call to
   * ride in) goes in calls after it, and a longer wait would hide those calls from the count.
   * The scroll has stopped and a live tail is paused (`benchPaused`) meanwhile, so nothing new
   * comes near the screen: every call in the drain is one the session owes.
   */
  drain?: boolean;
}

export const SCENARIOS: readonly Scenario[] = [
  { name: 'virtualised grid, scrolled', file: 'virtual-grid.html', stepPx: 40, drain: true },
  { name: 'live tail re-rendered every 1 s, scrolled', file: 'live-tail.html', stepPx: 12, drain: true },
  // Scrolled, the new top row leaves the screen within a second: watched at the top instead.
  { name: 'live tail re-rendered every 1 s, watched at the top', file: 'live-tail.html', stepPx: 0, insertions: true },
  { name: 'React table live tail (1-3 new events a second, ages rewritten), watched', file: 'react-tail.html', stepPx: 0, traced: true, bundle: 'react-tail' },
  { name: 'React table live tail (1-3 new events a second, ages rewritten), scrolled', file: 'react-tail.html', stepPx: 12, traced: true, bundle: 'react-tail', drain: true },
];

const SESSION_MS = Number(process.env.BENCH_SCENARIO_MS ?? 8000);
/**
 * Longer than near addresses can be held (lib/lookup/lookup-service.ts: 2 s for company, and
 * at most one call of them alone per 10 s).
 */
const DRAIN_MS = Number(process.env.BENCH_DRAIN_MS ?? 15_000);
const STEP_EVERY_MS = 50;
export const MARK_WITHIN_MS = 500;

export interface ScenarioRun {
  /** Newly visible IP text nodes counted, and those marked within 500 ms. */
  eligible: number;
  markedInTime: number;
  longTaskMs: number;
  bulkCalls: number;
  ipsAsked: number;
  /** Per eligible IP text node: ms from first on screen to its mark (Infinity: never). */
  markLatencies: number[];
  /** Each bulk call: ms after navigation started, and IPs in it (BENCH_PAGE_DEBUG prints them). */
  callTimeline: { atMs: number; ips: number }[];
  /** Per new top event inserted during the session (insertion scenarios only). */
  insertions: InsertionSample[];
  /** Per IP on screen during the session (epoch ms): for the latency-feasible minimum of calls. */
  sightings: Map<string, Sighting>;
  /** Per IP sent in a bulk call: when the first call carrying it reached the simulator (epoch ms). */
  firstAsked: Map<string, number>;
  /** Each bulk call: when it reached the simulator (epoch ms) and its IPs. */
  calls: { atMs: number; ips: string[] }[];
  /** Traced scenarios: the page's long-task time by thread time, and our script's thread time. */
  trace?: TracedTime;
  /** Pages that say which addresses are private (benchIsPrivate): newly shown ones, by kind. */
  split?: MarkSplit;
  /** Frames in which our highlights held other ranges than in the frame before (a count of sizes). */
  highlightFrames: number;
}

export interface TracedTime {
  /** Thread time of the page's main-thread tasks whose thread time passed 50 ms, summed. */
  longTaskMs: number;
  /** How many tasks those were, and the longest's thread time. */
  longTasks: number;
  longestMs: number;
  /** All the main thread's task thread time over the session. */
  mainMs: number;
  /** The tasks in which content.js ran (0 without the extension). */
  oursMs: number;
  /** BENCH_PAGE_SELF: self thread ms by trace event name over all the main thread's tasks. */
  byName?: Map<string, [ms: number, count: number]>;
}

/** Address text nodes first shown after the session's first frame, by kind. */
export interface MarkSplit {
  publicEligible: number;
  /** Marked (any mark but pending) within 500 ms. */
  publicInTime: number;
  privateEligible: number;
  /** Marked "Not looked up" (ip-rep-skipped) within 500 ms. */
  privateInTime: number;
  /** Private ones that got another mark than "Not looked up" first. */
  privateOtherMark: number;
}

/** [ip, first seen, on screen in the first frame, first marked or -1, last seen], epoch ms. */
type RawSighting = [string, number, boolean, number, number];

type ScenarioWindow = Window & {
  benchVisibleIpNodes(): (Text | null)[];
  benchScrollBy(px: number): void;
  /** Whether the page shows this address as one the extension never sends. */
  benchIsPrivate?(text: string): boolean;
};

interface DriveResult {
  eligible: number;
  markedInTime: number;
  markLatencies: number[];
  longTaskMs: number;
  sightings: RawSighting[];
  split?: MarkSplit;
  /** Frames in which our highlights held other ranges than in the frame before. */
  highlightFrames: number;
}

/**
 * In the page: scrolls for the session while it watches marks appear and long tasks pass.
 *
 * What is on screen and what is marked are read when the frame is about to be painted: in a
 * ResizeObserver callback, which runs after every animation frame callback (the content
 * script's mutation flush among them) and after layout, just before the paint. Read in an
 * animation frame callback of ours, which ran before the content script's, a mark painted in
 * the same frame as its text was seen a frame late, and on the live tail the frame after a
 * re-render (the layout of 5,000 rows) takes 0.1-1.3 s here: 1,157 of 1,214 misses in one run
 * were such marks. The observer is armed again each frame (a target observed anew
 * always gets one report), and reading at that point forces no layout.
 *
 * `debug` (BENCH_PAGE_DEBUG): each miss is classified, printed to the console as JSON.
 */
function drive([sessionMs, stepPx, stepEveryMs, withinMs, debug]: [number, number, number, number, boolean]): Promise<DriveResult> {
  const w = window as unknown as ScenarioWindow;
  return new Promise((resolve) => {
    let longTaskMs = 0;
    const observer = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) longTaskMs += e.duration;
    });
    observer.observe({ type: 'longtask' });
    interface Seen {
      first: number;
      last: number;
      markedAt: number | null;
      /** The highlight it was first seen in, pending aside. */
      markedAs?: string;
      /** Per the page's benchIsPrivate, when it has one. */
      isPrivate?: boolean;
      ips: string[];
      /** Debug: pending seen within the wait, the row really on screen, the next frame's gap. */
      pendingAt?: number;
      onScreen?: boolean;
      nextFrameMs?: number;
    }
    const seen = new Map<Text, Seen>();
    const ipPattern = /\b\d{1,3}(?:\.\d{1,3}){3}\b/g;
    let firstFrameAt: number | null = null;
    let stopped = false;
    // Each such frame costs the browser work in proportion to the page (bench highlight-cost).
    let highlightFrames = 0;
    let heldBefore = '';
    const beforePaint = new ResizeObserver(() => {
      if (stopped) return;
      const now = performance.now();
      firstFrameAt ??= now;
      const marked = new Map<Node, string>();
      const pending = new Set<Node>();
      let held = '';
      for (const [name, h] of CSS.highlights) {
        if (!name.startsWith('ip-rep-')) continue;
        held += `${h.size},`;
        for (const r of h) {
          const node = (r as AbstractRange).startContainer;
          if (name === 'ip-rep-pending') pending.add(node);
          else marked.set(node, name);
        }
      }
      if (held !== heldBefore) highlightFrames++;
      heldBefore = held;
      for (const node of w.benchVisibleIpNodes()) {
        if (!node) continue;
        let s = seen.get(node);
        if (!s) seen.set(node, (s = { first: now, last: now, markedAt: null, ips: node.data.match(ipPattern) ?? [], isPrivate: w.benchIsPrivate?.(node.data) }));
        s.last = now;
        if (s.markedAt === null && marked.has(node)) {
          s.markedAt = now;
          s.markedAs = marked.get(node);
        }
        if (debug) noteForDebug(s, node, now, pending.has(node));
      }
    });
    const noteForDebug = (s: Seen, node: Text, now: number, isPending: boolean) => {
      if (now > s.first) s.nextFrameMs ??= now - s.first;
      if (isPending && now - s.first <= withinMs) s.pendingAt ??= now;
      if (!s.onScreen && now - s.first <= withinMs) {
        const b = (node.parentNode as Element).getBoundingClientRect();
        s.onScreen = b.bottom > 0 && b.top < innerHeight && b.height > 0;
      }
    };
    const missClass = (s: Seen): string => {
      if (!s.onScreen) return 'row not on screen';
      if (s.markedAt === null && s.pendingAt !== undefined) return 'pending only, never marked';
      if (s.pendingAt !== undefined) return 'pending in time, marked late';
      const late = s.markedAt === null ? 'never marked' : 'marked late';
      return `no mark in time, ${late}, next frame ${(s.nextFrameMs ?? Infinity) > withinMs ? '> 500 ms' : '<= 500 ms'}`;
    };
    const frame = () => {
      if (stopped) return;
      beforePaint.unobserve(document.documentElement);
      beforePaint.observe(document.documentElement);
      requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
    const scroller = setInterval(() => w.benchScrollBy(stepPx), stepEveryMs);
    setTimeout(() => {
      clearInterval(scroller);
      // Let the last ones have their 500 ms.
      setTimeout(() => {
        stopped = true;
        beforePaint.disconnect();
        observer.disconnect();
        let eligible = 0;
        let markedInTime = 0;
        const markLatencies: number[] = [];
        const misses: Record<string, number> = {};
        for (const s of seen.values()) {
          const inTime = s.markedAt !== null && s.markedAt - s.first <= withinMs;
          if (!inTime && s.last - s.first < withinMs) continue; // gone before it was due
          eligible++;
          if (inTime) markedInTime++;
          else if (debug) misses[missClass(s)] = (misses[missClass(s)] ?? 0) + 1;
          // Infinity does not survive the trip out of the page: -1 stands for "never".
          markLatencies.push(s.markedAt === null ? -1 : s.markedAt - s.first);
        }
        if (debug) console.log(`bench-misses ${JSON.stringify({ eligible, markedInTime, misses })}`);
        // Newly shown (after the first frame), by kind, where the page tells private ones apart.
        let split: MarkSplit | undefined;
        if (w.benchIsPrivate) {
          split = { publicEligible: 0, publicInTime: 0, privateEligible: 0, privateInTime: 0, privateOtherMark: 0 };
          for (const s of seen.values()) {
            const inTime = s.markedAt !== null && s.markedAt - s.first <= withinMs;
            if (s.first === firstFrameAt || (!inTime && s.last - s.first < withinMs)) continue;
            if (s.isPrivate) {
              split.privateEligible++;
              if (inTime && s.markedAs === 'ip-rep-skipped') split.privateInTime++;
              if (s.markedAs !== undefined && s.markedAs !== 'ip-rep-skipped') split.privateOtherMark++;
            } else {
              split.publicEligible++;
              if (inTime) split.publicInTime++;
            }
          }
        }
        // Per IP (a text node's addresses): first on screen, and first marked, in epoch ms.
        const byIp = new Map<string, RawSighting>();
        const epoch = (t: number) => performance.timeOrigin + t;
        for (const s of seen.values()) {
          for (const ip of s.ips) {
            const row = byIp.get(ip) ?? [ip, Infinity, false, -1, 0];
            row[1] = Math.min(row[1], epoch(s.first));
            row[4] = Math.max(row[4], epoch(s.last));
            row[2] ||= s.first === firstFrameAt;
            if (s.markedAt !== null && (row[3] < 0 || epoch(s.markedAt) < row[3])) row[3] = epoch(s.markedAt);
            byIp.set(ip, row);
          }
        }
        resolve({ eligible, markedInTime, markLatencies, longTaskMs, highlightFrames, sightings: [...byIp.values()], ...(split ? { split } : {}) });
      }, withinMs + 100);
    }, sessionMs);
  });
}

/**
 * The page's main thread in a trace: the thread its own script (the fixture's bundle) ran on;
 * its long-task time by thread time, and the part of it in tasks where content.js ran.
 */
export function tracedTime(events: TraceEvent[], pageScriptUrl: string, scriptUrl: string | null): TracedTime {
  const pageCall = events.find((e) => e.name === 'FunctionCall' && e.args?.data?.url === pageScriptUrl);
  if (!pageCall) throw new Error(`no task of ${pageScriptUrl} in the trace: the page's main thread is unknown`);
  const pid = (e: TraceEvent) => (e as TraceEvent & { pid?: number }).pid;
  const tasks = events.filter((e) => e.ph === 'X' && e.name === 'RunTask' && e.tid === pageCall.tid && pid(e) === pid(pageCall));
  const long = tasks.map(threadMs).filter((ms) => ms > LONG_TASK_MS);
  const ours = scriptUrl ? [...contentScriptTaskSet(events, scriptUrl)].filter((t) => t.tid === pageCall.tid && pid(t) === pid(pageCall)) : [];
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  const out: TracedTime = { longTaskMs: sum(long), longTasks: long.length, longestMs: Math.max(0, ...long), mainMs: sum(tasks.map(threadMs)), oursMs: sum(ours.map(threadMs)) };
  if (process.env.BENCH_PAGE_SELF) {
    const thread = events.filter((e) => e.tid === pageCall.tid && pid(e) === pid(pageCall)).sort((a, b) => a.ts - b.ts);
    out.byName = selfTimeByName(thread, tasks.sort((a, b) => a.ts - b.ts));
    for (const [kind, ms] of longTaskKinds(thread, tasks, pageScriptUrl, new Set(ours))) {
      const [sum, n] = out.byName.get(kind) ?? [0, 0];
      out.byName.set(kind, [sum + ms, n + 1]);
    }
  }
  return out;
}

/**
 * BENCH_PAGE_SELF: each long task by what ran in it (the page's script, content.js, a rendering
 * update), so the extra long-task time can be told apart: our own tasks, the page's tasks we
 * lengthened, or frames our highlight changes set off. `tasks` and `thread` sorted by start.
 */
function longTaskKinds(thread: TraceEvent[], tasks: TraceEvent[], pageScriptUrl: string, ours: Set<TraceEvent>): Array<[string, number]> {
  const out: Array<[string, number]> = [];
  let i = 0;
  for (const task of tasks) {
    const ms = threadMs(task);
    const end = task.ts + (task.dur ?? 0);
    while (i < thread.length && thread[i]!.ts < task.ts) i++;
    let page = false;
    let frame = false;
    for (let j = i; j < thread.length && thread[j]!.ts < end; j++) {
      const e = thread[j]!;
      if (e.name === 'FunctionCall' && e.args?.data?.url === pageScriptUrl) page = true;
      if (e.name === 'PrePaint' || e.name === 'Paint' || e.name === 'Layout') frame = true;
    }
    if (ms <= LONG_TASK_MS) continue;
    const kind = [page && 'page script', ours.has(task) && 'content.js', frame && 'rendering'].filter(Boolean).join(' + ') || 'other';
    out.push([`long task: ${kind}`, ms]);
  }
  return out;
}

/**
 * BENCH_PAGE_OURS_JS=1: our script's own JS time over each session with the extension, from a
 * V8 CPU profile (self time of content.js's functions, each sample counted for at most 400 us:
 * on the shared machine a sample's wall-time weight also holds the wait for a core). The
 * trace's "our tasks" include the page's work in the same task (its render, which our mutation
 * observer's callback follows), so they cannot tell two builds of ours apart; this can.
 */
async function startOursProfile(page: Page): Promise<() => Promise<string>> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
  await cdp.send('Profiler.start');
  return async () => {
    const { profile } = await cdp.send('Profiler.stop');
    await cdp.detach();
    const nodes = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
    const timeDeltas = profile.timeDeltas ?? [];
    let ours = 0;
    let busy = 0;
    const byFunction = new Map<string, number>();
    (profile.samples ?? []).forEach((id, i) => {
      const frame = nodes.get(id)!;
      if (frame.functionName === '(idle)' || frame.functionName === '(program)') return;
      const us = Math.min(timeDeltas[i + 1] ?? 0, 400);
      busy += us;
      if (!frame.url.includes('content.js')) return;
      ours += us;
      byFunction.set(frame.functionName || '(anonymous)', (byFunction.get(frame.functionName || '(anonymous)') ?? 0) + us);
    });
    const top = [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.BENCH_OURS_TOP ?? 6)).map(([f, us]) => `${f} ${(us / 1000).toFixed(0)}`);
    return `${(ours / 1000).toFixed(0)} ms self of ${(busy / 1000).toFixed(0)} ms JS and GC in the renderer (top: ${top.join(', ')})`;
  };
}

async function openAndDrive(page: Page, url: string, scenario: Scenario, settleMs: number, scriptUrl: string | null = null) {
  await page.addInitScript(NAME_SHIM);
  await page.goto(url, { timeout: NAV_TIMEOUT_MS });
  await page.waitForLoadState('load');
  // An app rendering its list after the load (react-tail.html: 3-6 s here) is running, its
  // tail ticking, before the settle time starts.
  if (scenario.bundle) await page.evaluate(() => new Promise<void>((resolve) => {
    const poll = () => ((window as { benchTicks?: number }).benchTicks ?? 0) >= 2 ? resolve() : setTimeout(poll, 100);
    poll();
  }));
  // The first screen is marked and the page is idle before the session starts.
  await page.waitForTimeout(settleMs);
  if (scenario.insertions) {
    // The last event gets a second (the next render would have come by then).
    const insertions = await page.evaluate(watchInsertions, [SESSION_MS, 1000] as [number, number]);
    return { eligible: 0, markedInTime: 0, markLatencies: [], longTaskMs: 0, highlightFrames: 0, insertions, sightings: new Map<string, Sighting>() };
  }
  const debug = !!process.env.BENCH_PAGE_DEBUG;
  // BENCH_PAGE_DEBUG: why newly visible IPs missed 500 ms, per class (drive's missClass).
  if (debug) page.on('console', (m) => m.text().startsWith('bench-misses ') && console.log(`    ${scenario.file}: ${m.text()}`));
  // BENCH_SCROLL_STEP_PX: a faster or slower scroll for the scrolled scenarios (px per 50 ms).
  const stepPx = scenario.stepPx && process.env.BENCH_SCROLL_STEP_PX ? Number(process.env.BENCH_SCROLL_STEP_PX) : scenario.stepPx;
  // Traced: only the session, both sides alike (the trace's own cost is in both).
  let cdp: CDPSession | undefined;
  let stopTrace: (() => Promise<TraceEvent[]>) | undefined;
  if (scenario.traced) {
    cdp = await page.context().newCDPSession(page);
    stopTrace = await startTrace(cdp);
  }
  const profiler = process.env.BENCH_PAGE_OURS_JS && scriptUrl ? await startOursProfile(page) : undefined;
  const result = await page.evaluate(drive, [SESSION_MS, stepPx, STEP_EVERY_MS, MARK_WITHIN_MS, debug] as [number, number, number, number, boolean]);
  if (profiler) console.log(`    ${scenario.file}: our JS ${await profiler()}`);
  const trace = stopTrace && tracedTime(await stopTrace(), new URL(`build/${scenario.bundle}.js`, url).href, scriptUrl);
  await cdp?.detach();
  const sightings = new Map(result.sightings.map(([ip, firstSeen, atStart, markedAt, lastSeen]): [string, Sighting] => [
      ip,
      { firstSeen, atStart, markedAt: markedAt < 0 ? null : markedAt, lastSeen },
    ]));
  return { ...result, markLatencies: result.markLatencies.map((v) => (v < 0 ? Infinity : v)), insertions: [], sightings, ...(trace ? { trace } : {}) };
}

export async function runScenarioWithExtension(sim: Simulator, dir: string, scenario: Scenario): Promise<ScenarioRun> {
  return withExtension(sim, dir, async (context, ext, id) => {
    const reply = await ext.evaluate(() =>
      (globalThis as unknown as { chrome: ExtApi }).chrome.runtime.sendMessage({ type: 'ui:set-site-scanning', payload: { pattern: 'http://127.0.0.1/*', enabled: true } }),
    );
    if (!reply.ok) throw new Error(`Could not register the site: ${JSON.stringify(reply.error)}`);
    if (process.env.BENCH_MARK_STYLE) {
      const style = process.env.BENCH_MARK_STYLE;
      const saved = await ext.evaluate((markStyle) =>
        (globalThis as unknown as { chrome: ExtApi }).chrome.runtime.sendMessage({ type: 'ui:save-settings', payload: { patch: { markStyle } } }), style);
      if (!saved.ok) throw new Error(`Could not set the mark style: ${JSON.stringify(saved.error)}`);
    }
    const from = Date.now();
    const page = await context.newPage();
    const result = await openAndDrive(page, `${sim.origin}/pages/consoles/${scenario.file}`, scenario, 2000, `chrome-extension://${id}/content-scripts/content.js`);
    if (process.env.BENCH_PAGE_DEBUG) {
      // Ranges the highlights hold as the session ends: the browser rebuilds them all in every frame the page changes.
      const held = await page.evaluate(() => [...CSS.highlights].map(([name, h]) => `${name.replace('ip-rep-', '')} ${h.size}`).join(', '));
      console.log(`    highlights held after the session: ${held}`);
    }
    if (scenario.drain) {
      const pausedAt = Date.now();
      await page.evaluate(() => ((window as { benchPaused?: boolean }).benchPaused = true));
      await page.waitForTimeout(DRAIN_MS);
      if (process.env.BENCH_PAGE_DEBUG) {
        // Where the addresses first asked in the drain are: px from the screen's top to the first row showing each.
        const late = [...new Set(sim.ipLog.all().filter((a) => a.path === '/checkIP/bulk' && a.arrivedAtMs >= pausedAt).map((a) => a.ip))];
        const asked = new Set(sim.ipLog.all().filter((a) => a.path === '/checkIP/bulk' && a.arrivedAtMs < pausedAt).map((a) => a.ip));
        const fresh = late.filter((ip) => !asked.has(ip));
        const where = await page.evaluate((ips) => ips.map((ip) => {
          const el = [...document.querySelectorAll('td, span, li')].find((e) => e.childElementCount === 0 && e.textContent === ip);
          return `${ip}@${el ? Math.round(el.getBoundingClientRect().top) : 'gone'}`;
        }), fresh);
        console.log(`    drain: ${fresh.length} addresses first asked after the session (px from the screen's top, innerHeight ${await page.evaluate(() => innerHeight)}): ${where.join(' ')}`);
      }
    }
    const bulk = sim.requestLog.filter((r) => r.time >= from && r.path === '/checkIP/bulk');
    const callTimeline = bulk.map((r) => ({ atMs: r.time - from, ips: r.ips }));
    const firstAsked = new Map<string, number>();
    // One request's IPs share its arrival order (askedAt).
    const byRequest = new Map<number, { atMs: number; ips: string[] }>();
    for (const ask of sim.ipLog.all()) {
      if (ask.path !== '/checkIP/bulk' || ask.arrivedAtMs < from) continue;
      if (!firstAsked.has(ask.ip)) firstAsked.set(ask.ip, ask.arrivedAtMs);
      const call = byRequest.get(ask.askedAt) ?? { atMs: ask.arrivedAtMs, ips: [] };
      call.ips.push(ask.ip);
      byRequest.set(ask.askedAt, call);
    }
    const calls = [...byRequest.values()];
    return { ...result, bulkCalls: bulk.length, ipsAsked: bulk.reduce((s, r) => s + r.ips, 0), callTimeline, firstAsked, calls };
  });
}

export async function runScenarioWithout(sim: Simulator, scenario: Scenario): Promise<ScenarioRun> {
  const browser = await chromium.launch({ executablePath: chromiumExecutable(), headless: true, args: BASE_CHROMIUM_ARGS });
  try {
    const page = await browser.newPage({ viewport: VIEWPORT });
    const result = await openAndDrive(page, `${sim.origin}/pages/consoles/${scenario.file}`, scenario, 2000);
    return { ...result, bulkCalls: 0, ipsAsked: 0, callTimeline: [], firstAsked: new Map(), calls: [] };
  } finally {
    await browser.close();
  }
}
