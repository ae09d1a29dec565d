/**
 * `npm run bench page-profile`: where the content script's time goes on the 10,000-row page
 * (registered site, one fresh browser). A readable build (WXT_NO_MINIFY=1, into
 * .output-profile) keeps each module's `// lib/...` region, so a V8 CPU profile's samples map
 * back to the module they ran in; the trace adds what the browser did inside our tasks
 * (style recalculation, layout, IntersectionObserver computation) and the garbage collector.
 * The result is a table by concern: text extraction, IP finding, range creation, highlight
 * registration, IntersectionObserver work, messaging, style recalculation. Shares, not
 * absolute times, are what to compare: the machine is shared.
 *
 * BENCH_PROFILE_PAGE=hostile/cells.html (any page under test/fixtures/pages/, registered mode
 * only) profiles that page instead, for a fixed window of BENCH_PROFILE_WINDOW_MS (default
 * 8,000) from navigation, as `bench page-hostile` measures it: the hostile pages
 * have no "everything on screen is marked" moment to wait for. BENCH_HOSTILE_SCROLL=1 scrolls
 * the page to its end halfway through that window (as bench page-hostile does).
 *
 * Other flags: BENCH_PROFILE_MODE=one-off profiles the toolbar's scan of the loaded page;
 * BENCH_PROFILE_SCROLL_PX=12 scrolls the page that many px every 50 ms through the window (as
 * bench page's scrolled scenarios do); BENCH_PROFILE_CAP_US=400 counts each sample for at most
 * that long (on a busy machine a sample's wall-time weight puts a wait for a core on the
 * function it resumed in); BENCH_PROFILE_TOP=N lists N functions (default 15);
 * BENCH_PROFILE_FOCUS=<function> the self time of everything called under that function;
 * BENCH_PROFILE_REUSE=1 reuses .output-profile instead of building it again. It also lists every
 * main-thread task over 50 ms of the window, the page's own included, with what started it and
 * our sampled JS in it, and what ran inside our five longest tasks.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { startSimulator } from '../sim/server';
import { watchWindow } from './page-hostile';
import { armChecker, contentScriptTaskSet, NAME_SHIM, NAV_TIMEOUT_MS, startTrace, waitBenchDone, waitScanned, withExtension, type ExtApi, type TraceEvent } from './page';

const OUT = '.output-profile';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  startTime: number;
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** The concern each module belongs to (first match wins). */
const CONCERNS: [RegExp, string][] = [
  [/lib\/ip\/classify|lib\/ip\/special-ranges/, 'IP classification (private/public)'],
  [/lib\/ip\//, 'IP finding (regex, validation, canonical form)'],
  [/subtree-walk|scanner|skip-rules|mutation-queue|time-slicer|text-finder/, 'text extraction (walk, mutation queue)'],
  [/occurrence-store/, 'occurrence store + range creation'],
  [/highlighter|highlight-styles|static-styles/, 'highlight registration'],
  [/near-tracker/, 'IntersectionObserver work (JS side)'],
  [/message-client|extension-bridge|tab-listener|tab-messages|lookup-queue|webextension-polyfill|wxt\/dist/, 'messaging'],
  [/page-lens|mark-dispatch|mutation-router|page-summary|severity|hit-test|navigation-watch/, 'page wiring, summary, recolouring'],
];

function buildReadable(): string {
  const dir = path.resolve(OUT, 'chrome-mv3-e2e');
  if (!process.env.BENCH_PROFILE_REUSE || !existsSync(path.join(dir, 'manifest.json'))) {
    console.log(`Building a readable e2e build into ${OUT} …`);
    execFileSync('npx', ['wxt', 'build', '--mode', 'e2e'], { stdio: 'ignore', env: { ...process.env, WXT_OUT_DIR: OUT, WXT_NO_MINIFY: '1' } });
  }
  return dir;
}

/** The module of each line of the readable content script, from its region comments. */
function regionsOf(file: string): (line: number) => string {
  const starts: { line: number; module: string }[] = [];
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((text, i) => {
      const m = /^\t\/\/ ((?:lib|components|entrypoints|node_modules)\/\S+)$/.exec(text);
      if (m) starts.push({ line: i, module: m[1]! });
    });
  return (line) => {
    let found = '(bundle prelude)';
    for (const s of starts) {
      if (s.line > line) break;
      found = s.module;
    }
    return found;
  };
}

function concernOf(module: string): string {
  return CONCERNS.find(([re]) => re.test(module))?.[1] ?? `other: ${module}`;
}

/**
 * BENCH_PROFILE_CAP_US=<µs>: each sample counts for at most that long. A sample's weight is the
 * wall time since the previous one, so on a busy machine a thread that waited for a core puts
 * the whole wait on the function it resumed in (one task: 67.7 ms `listItemOf` sampled, 7.6 ms
 * on the CPU, load 9). Capped near the sampling interval (200 µs), self times read as CPU time.
 */
const SAMPLE_CAP_US = Number(process.env.BENCH_PROFILE_CAP_US ?? Infinity);

/** Self time per node id, in ms. */
function selfTimes(profile: Profile): Map<number, number> {
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + Math.min(profile.timeDeltas[i] ?? 0, SAMPLE_CAP_US) / 1000));
  return self;
}

export async function run(): Promise<void> {
  // BENCH_PROFILE_MODE=one-off: the toolbar's scan of the loaded page instead of a registered site.
  const oneOff = process.env.BENCH_PROFILE_MODE === 'one-off';
  const pagePath = process.env.BENCH_PROFILE_PAGE ?? 'siem/big-table.html';
  const bigTable = pagePath === 'siem/big-table.html';
  if (oneOff && !bigTable) throw new Error('BENCH_PROFILE_MODE=one-off profiles big-table.html only');
  const dir = buildReadable();
  const scriptFile = path.join(dir, 'content-scripts/content.js');
  const moduleAt = regionsOf(scriptFile);
  const sim = await startSimulator({ port: 0, staticDir: path.resolve('test/fixtures') });
  try {
    await withExtension(sim, dir, async (context, ext, id) => {
      const url = `${sim.origin}/pages/${pagePath}`;
      const page = await context.newPage();
      await page.addInitScript(NAME_SHIM);
      if (oneOff) {
        await page.goto(url, { timeout: NAV_TIMEOUT_MS });
        await page.waitForLoadState('load');
        await page.evaluate(armChecker);
      } else {
        const reply = await ext.evaluate(() =>
          (globalThis as unknown as { chrome: ExtApi }).chrome.runtime.sendMessage({ type: 'ui:set-site-scanning', payload: { pattern: 'http://127.0.0.1/*', enabled: true } }),
        );
        if (!reply.ok) throw new Error(`Could not register the site: ${JSON.stringify(reply.error)}`);
        if (bigTable) await page.addInitScript(armChecker);
        // Same origin first, so the renderer (and the profiler in it) stays for the real load.
        await page.goto(bigTable ? `${url}?rows=0` : `${sim.origin}/pages/hostile/hostile.js`, { timeout: NAV_TIMEOUT_MS });
      }
      const cdp = await context.newCDPSession(page);
      await cdp.send('Profiler.enable');
      await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
      await cdp.send('Profiler.start');
      const stopTrace = await startTrace(cdp);
      if (oneOff) {
        await ext.evaluate(async (u) => {
          const c = (globalThis as unknown as { chrome: ExtApi }).chrome;
          const [tab] = await c.tabs.query({ url: u });
          await c.runtime.sendMessage({ type: 'ui:scan-tab', payload: { tabId: tab!.id } });
        }, url);
      } else {
        await page.goto(url, { timeout: NAV_TIMEOUT_MS });
      }
      if (bigTable) {
        // Not waitForFunction: its utility script would add 25-30 ms to the profiled first frame.
        await waitBenchDone(page, 180_000);
        await waitScanned(ext, url);
        await page.waitForTimeout(500);
      } else {
        // BENCH_PROFILE_SCROLL_PX=12: scrolled by that many px every 50 ms through the window, as
        // bench page's scrolled scenarios do (the live tail's re-renders while the analyst scrolls).
        const scrollPx = Number(process.env.BENCH_PROFILE_SCROLL_PX ?? 0);
        if (scrollPx) await page.evaluate((px) => setInterval(() => window.scrollBy(0, px), 50), scrollPx);
        await watchWindow(page, Number(process.env.BENCH_PROFILE_WINDOW_MS ?? 8_000));
      }
      const { profile } = (await cdp.send('Profiler.stop')) as unknown as { profile: Profile };
      const events = await stopTrace();
      const scriptUrl = `chrome-extension://${id}/content-scripts/content.js`;

      // JS self time by concern (samples in our file), plus the collector while we ran.
      const byConcern = new Map<string, number>();
      const byModule = new Map<string, number>();
      const add = (m: Map<string, number>, k: string, v: number) => m.set(k, (m.get(k) ?? 0) + v);
      const nodes = new Map(profile.nodes.map((nd) => [nd.id, nd]));
      const parent = new Map<number, number>();
      for (const nd of profile.nodes) for (const c of nd.children ?? []) parent.set(c, nd.id);
      /** Nearest caller in our script: native DOM calls count for the module that made them. */
      const ourFrame = (nodeId: number): ProfileNode | undefined => {
        for (let cur: number | undefined = nodeId; cur !== undefined; cur = parent.get(cur)) {
          const nd = nodes.get(cur)!;
          if (nd.callFrame.url === scriptUrl) return nd;
          if (nd.callFrame.url) return undefined; // the page's own code
        }
        return undefined;
      };
      const byFunction = new Map<string, number>();
      for (const [nodeId, msSelf] of selfTimes(profile)) {
        const frame = ourFrame(nodeId);
        if (!frame) continue;
        const module = moduleAt(frame.callFrame.lineNumber);
        add(byModule, module, msSelf);
        add(byConcern, concernOf(module), msSelf);
        // Native DOM calls count for the function of ours that made them, as for modules.
        add(byFunction, `${frame.callFrame.functionName || '(anonymous)'} [${module}]`, msSelf);
      }

      // Browser work inside our tasks (nested trace events).
      const tasks = [...contentScriptTaskSet(events, scriptUrl)];
      const inOurTasks = (e: TraceEvent) => tasks.some((t) => t.tid === e.tid && e.ts >= t.ts && e.ts + (e.dur ?? 0) <= t.ts + (t.dur ?? 0));
      const traceSum = (names: string[], inside: boolean) =>
        events.filter((e) => e.ph === 'X' && names.includes(e.name) && (!inside || inOurTasks(e))).reduce((s, e) => s + (e.dur ?? 0) / 1000, 0);
      const taskMs = tasks.reduce((s, t) => s + (t.dur ?? 0) / 1000, 0);
      const style = traceSum(['UpdateLayoutTree', 'RecalculateStyles'], true);
      const layout = traceSum(['Layout'], true);
      const io = traceSum(['IntersectionObserverController::computeIntersections', 'ComputeIntersections'], false);
      const gc = traceSum(['MinorGC', 'MajorGC', 'V8.GC_SCAVENGER', 'V8.GCScavenger'], true);
      const jsTotal = [...byConcern.values()].reduce((s, v) => s + v, 0);

      console.log(`page-profile: ${pagePath}, ${oneOff ? 'one-off scan' : 'registered site'}, one run. Content script tasks: ${tasks.length}, ${taskMs.toFixed(0)} ms in all.`);
      console.log('  where the time goes (JS self time by module, sampled; browser work from the trace):');
      const rows: [string, number][] = [
        ...[...byConcern].sort((a, b) => b[1] - a[1]),
        ['style recalculation inside our tasks', style],
        ['layout inside our tasks (forced)', layout],
        ['garbage collection inside our tasks', gc],
        ['IntersectionObserver computation (browser, whole run)', io],
      ];
      for (const [k, v] of rows) console.log(`    ${k.padEnd(56)} ${v.toFixed(1).padStart(8)} ms  ${((100 * v) / taskMs).toFixed(1).padStart(5)} %`);
      console.log(`    ${'(JS sampled in our script, total)'.padEnd(56)} ${jsTotal.toFixed(1).padStart(8)} ms`);
      console.log('  top modules:');
      for (const [k, v] of [...byModule].sort((a, b) => b[1] - a[1]).slice(0, 12)) console.log(`    ${k.padEnd(56)} ${v.toFixed(1).padStart(8)} ms`);
      // Which functions to attack within a module (findIps, setMatches, the near tracker).
      console.log('  top functions (self time, native calls counted for their caller of ours):');
      for (const [k, v] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.BENCH_PROFILE_TOP ?? 15))) console.log(`    ${k.padEnd(72)} ${v.toFixed(1).padStart(8)} ms`);

      // BENCH_PROFILE_FOCUS=<function>: the self time of everything called under that function
      // (native and library frames included), e.g. what sendToBackground spends its time in.
      const focus = process.env.BENCH_PROFILE_FOCUS;
      if (focus) {
        const under = new Map<string, number>();
        for (const [nodeId, msSelf] of selfTimes(profile)) {
          const chain: string[] = [];
          let hit = false;
          for (let cur: number | undefined = nodeId; cur !== undefined; cur = parent.get(cur)) {
            const nd = nodes.get(cur)!;
            if (nd.callFrame.functionName === focus) {
              hit = true;
              break;
            }
            chain.push(nd.callFrame.functionName || '(anonymous)');
          }
          if (hit) add(under, chain.reverse().join(' > ') || '(self)', msSelf);
        }
        console.log(`  under ${focus} (self time by call path, sampled):`);
        for (const [k, v] of [...under].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log(`    ${v.toFixed(1).padStart(7)} ms  ${k}`);
      }

      // The goal "no task over 50 ms": what ran inside the longest tasks. Samples and trace
      // events share Chrome's monotonic clock (µs), so a sample belongs to the task around it.
      const sampleAt: number[] = [];
      let at = profile.startTime;
      for (const d of profile.timeDeltas) sampleAt.push((at += d));
      // A reduce, not Math.min(...): a hostile page's trace has millions of events, more than a
      // call's arguments may (RangeError: Maximum call stack size exceeded).
      const traceStart = events.reduce((min, e) => (e.ts > 0 && e.ts < min ? e.ts : min), Infinity);
      console.log('  longest tasks (JS self time by function, sampled; the trace events nested in each):');
      for (const task of [...tasks].sort((a, b) => (b.dur ?? 0) - (a.dur ?? 0)).slice(0, 5)) {
        const end = task.ts + (task.dur ?? 0);
        const byFn = new Map<string, number>();
        profile.samples.forEach((nodeId, i) => {
          if (sampleAt[i]! < task.ts || sampleAt[i]! > end) return;
          const nd = nodes.get(nodeId)!;
          const frame = ourFrame(nodeId);
          const name = (n: ProfileNode) => n.callFrame.functionName || '(anonymous)';
          const key = frame
            ? `${name(frame)} [${moduleAt(frame.callFrame.lineNumber)}]${nd !== frame ? ` > ${name(nd)}` : ''}`
            : `(not ours) ${name(nd)}`;
          add(byFn, key, Math.min(profile.timeDeltas[i] ?? 0, SAMPLE_CAP_US) / 1000);
        });
        const browser = new Map<string, number>();
        for (const e of events) {
          // Every event nested in the task (names overlap: a FunctionCall holds its GC).
          if (e !== task && e.ph === 'X' && e.tid === task.tid && e.ts >= task.ts && e.ts <= end) add(browser, e.name, (e.dur ?? 0) / 1000);
        }
        const top = [...byFn].sort((a, b) => b[1] - a[1]).slice(0, 6);
        // On a busy machine a task can be long in wall time while its thread waited for a core.
        const cpu = task.tdur !== undefined ? `, ${(task.tdur / 1000).toFixed(1)} ms on the CPU` : '';
        console.log(`    ${((task.dur ?? 0) / 1000).toFixed(1)} ms${cpu}, at +${((task.ts - traceStart) / 1000).toFixed(0)} ms of the trace`);
        for (const [k, v] of top) console.log(`      ${v.toFixed(1).padStart(7)} ms  ${k}`);
        const nested = [...browser].sort((a, b) => b[1] - a[1]).slice(0, 8);
        if (nested.length) console.log(`      trace events inside: ${nested.map(([k, v]) => `${k} ${v.toFixed(1)} ms`).join(', ')}`);
      }
      reportRenderingTasks(events, new Set(tasks), traceStart);
      reportLongTaskShares(events, new Set(tasks), traceStart, (task) => {
        const byFn = new Map<string, number>();
        const end = task.ts + (task.dur ?? 0);
        profile.samples.forEach((nodeId, i) => {
          if (sampleAt[i]! < task.ts || sampleAt[i]! > end) return;
          const frame = ourFrame(nodeId);
          if (frame) add(byFn, `${frame.callFrame.functionName || '(anonymous)'} [${moduleAt(frame.callFrame.lineNumber)}]`, Math.min(profile.timeDeltas[i] ?? 0, SAMPLE_CAP_US) / 1000);
        });
        return byFn;
      });
    });
  } finally {
    await sim.close();
  }
}

/**
 * The goal "no frame > 50 ms caused by us": the main thread's long tasks in which none of our
 * script ran (rendering: style, layout, paint), with what the trace nests in each, the element
 * count of each style recalculation and the highlight-related events. The frame that a new
 * marks sheet or the first highlights cost shows here, not among our tasks.
 */
function reportRenderingTasks(events: TraceEvent[], ours: Set<TraceEvent>, traceStart: number): void {
  const ourThreads = new Set([...ours].map((t) => t.tid));
  const long = events
    .filter((e) => e.ph === 'X' && e.name === 'RunTask' && ourThreads.has(e.tid) && !ours.has(e) && (e.dur ?? 0) > 50_000)
    .sort((a, b) => (b.dur ?? 0) - (a.dur ?? 0))
    .slice(0, 5);
  console.log(`  long main-thread tasks without our script (rendering), ${long.length ? 'longest first' : 'none over 50 ms'}:`);
  for (const task of long) {
    const end = task.ts + (task.dur ?? 0);
    const nested = new Map<string, number>();
    const recalcs: string[] = [];
    for (const e of events) {
      if (e === task || e.ph !== 'X' || e.tid !== task.tid || e.ts < task.ts || e.ts > end) continue;
      nested.set(e.name, (nested.get(e.name) ?? 0) + (e.dur ?? 0) / 1000);
      const count = e.args?.elementCount ?? e.args?.data?.elementCount;
      if ((e.name === 'UpdateLayoutTree' || e.name === 'RecalculateStyles') && (e.dur ?? 0) > 5_000) {
        recalcs.push(`${((e.dur ?? 0) / 1000).toFixed(1)} ms${count !== undefined ? ` for ${count} elements` : ''}`);
      }
    }
    const cpu = task.tdur !== undefined ? `, ${(task.tdur / 1000).toFixed(1)} ms on the CPU` : '';
    console.log(`    ${((task.dur ?? 0) / 1000).toFixed(1)} ms${cpu}, at +${((task.ts - traceStart) / 1000).toFixed(0)} ms of the trace`);
    const top = [...nested].sort((a, b) => b[1] - a[1]).slice(0, 10);
    console.log(`      trace events inside: ${top.map(([k, v]) => `${k} ${v.toFixed(1)} ms`).join(', ')}`);
    if (recalcs.length) console.log(`      style recalculations: ${recalcs.join('; ')}`);
  }
}

/**
 * The goal "long-task time with / without": every main-thread task over 50 ms of the window
 * (the page's own included), by what started it (the first nested timer, animation frame or
 * callback event), with our sampled JS inside them by function: which of our work lands in a
 * long task, or makes one. `ourJs` gives our JS self time by function within one task.
 */
function reportLongTaskShares(events: TraceEvent[], ours: Set<TraceEvent>, traceStart: number, ourJs: (task: TraceEvent) => Map<string, number>): void {
  const ourThreads = new Set([...ours].map((t) => t.tid));
  const long = events
    .filter((e) => e.ph === 'X' && e.name === 'RunTask' && ourThreads.has(e.tid) && (e.dur ?? 0) > 50_000)
    .sort((a, b) => a.ts - b.ts);
  const kinds = ['FireAnimationFrame', 'TimerFire', 'FunctionCall', 'EventDispatch', 'ParseHTML', 'EvaluateScript', 'v8.callFunction'];
  const total = long.reduce((s, t) => s + (t.dur ?? 0) / 1000, 0);
  console.log(`  every task over 50 ms of the window: ${long.length}, ${total.toFixed(0)} ms (with our script in ${long.filter((t) => ours.has(t)).length})`);
  const allOurs = new Map<string, number>();
  for (const task of long) {
    const end = task.ts + (task.dur ?? 0);
    const inside = events.filter((e) => e !== task && e.ph === 'X' && e.tid === task.tid && e.ts >= task.ts && e.ts <= end);
    const starter = inside.find((e) => kinds.includes(e.name));
    const nested = new Map<string, number>();
    for (const e of inside) if (['UpdateLayoutTree', 'Layout', 'Paint', 'PrePaint', 'MinorGC', 'MajorGC', 'V8.GC_SCAVENGER', 'FireAnimationFrame', 'TimerFire', 'FunctionCall', 'IntersectionObserverController::computeIntersections', 'Commit'].includes(e.name)) nested.set(e.name, (nested.get(e.name) ?? 0) + (e.dur ?? 0) / 1000);
    const js = ourJs(task);
    const jsMs = [...js.values()].reduce((s, v) => s + v, 0);
    for (const [k, v] of js) allOurs.set(k, (allOurs.get(k) ?? 0) + v);
    const cpu = task.tdur !== undefined ? ` (${(task.tdur / 1000).toFixed(0)} CPU)` : '';
    const topJs = [...js].sort((a, b) => b[1] - a[1]).slice(0, 3).map(([k, v]) => `${k} ${v.toFixed(1)}`).join(', ');
    console.log(`    +${((task.ts - traceStart) / 1000).toFixed(0)} ms: ${((task.dur ?? 0) / 1000).toFixed(0)} ms${cpu}, ${starter?.name ?? '?'}${starter?.args?.data?.url ? ` ${String(starter.args.data.url).split('/').pop()}` : ''}; ours ${jsMs.toFixed(1)} ms${topJs ? ` (${topJs})` : ''}; ${[...nested].map(([k, v]) => `${k} ${v.toFixed(0)}`).join(', ')}`);
  }
  const ourTotal = [...allOurs.values()].reduce((s, v) => s + v, 0);
  const withOurs = long.filter((t) => ours.has(t));
  const withOursMs = withOurs.reduce((s, t) => s + (t.dur ?? 0) / 1000, 0);
  console.log(`  our JS inside tasks over 50 ms: ${ourTotal.toFixed(0)} ms; tasks over 50 ms with our script: ${withOurs.length}, ${withOursMs.toFixed(0)} ms; without: ${long.length - withOurs.length}, ${(total - withOursMs).toFixed(0)} ms`);
  console.log('  our JS inside those tasks, by function (sampled):');
  for (const [k, v] of [...allOurs].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log(`    ${v.toFixed(1).padStart(8)} ms  ${k}`);
}
