/**
 * `npm run bench page-phases`: the initial scan of the 10,000-row table by phase.
 * The harness (page-phases/harness.ts) rebuilds the scan as one synchronous loop over the
 * content script's own modules, stopping after a given phase; each stage runs on a fresh copy
 * of the page (first-pass costs included, as for the content script), and its thread time is
 * read from a trace between two `console.timeStamp` marks, as `bench page` reads the floor.
 * A phase's cost is its stage's time minus the stage before it. Medians of BENCH_PHASES_RUNS
 * (default 3) rounds, stages interleaved within a round.
 *
 * BENCH_PHASES_LIB=<dir> bundles the harness against `<dir>/lib` instead of this tree's (for
 * example `git archive main lib | tar -x -C <dir>`), to compare two versions in one sitting;
 * both are printed when it is set.
 *
 * BENCH_PHASES_PROFILE=<stage> profiles one stage instead (page-phases/profile.ts).
 *
 * BENCH_PHASES_WORLD=isolated runs every stage, the floor included, in an isolated world (CDP
 * Page.createIsolatedWorld), as the content script runs: there each node touched needs a
 * wrapper of that world, which a main-world reader finds made already for the elements the
 * page's own script created (the bare floor: 31-38 ms main, 53-62 ms isolated, load 7).
 */
import { chromium, type Browser, type CDPSession, type Page } from '@playwright/test';
import { build } from 'esbuild';
import { cpSync, mkdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { BASE_CHROMIUM_ARGS, chromiumExecutable } from '../e2e/chromium';
import { startSimulator, type Simulator } from '../sim/server';
import { runProfile } from './page-phases/profile';
import { markedThreadMs, median, NAME_SHIM, NAV_TIMEOUT_MS, startTrace, VIEWPORT } from './page';

const IPV4 = String.raw`\b(?:25[0-5]|2[0-4]\d|1?\d?\d)(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){3}\b`;
const STAGES = ['floor', 'walk', 'prefilter', 'findIps', 'match cache', 'store', 'tracker', 'ranges'] as const;

/**
 * BENCH_PHASES_PROFILE: the harness's stage (its STAGES have no floor: 0 = walk ... 6 = ranges),
 * by number or by name. Anything else stops the bench: `=tracker` once ran as stage NaN, silently.
 */
function profileStageOf(value: string): number {
  const byName = STAGES.indexOf(value as (typeof STAGES)[number]) - 1;
  const stage = byName >= 0 ? byName : /^\d+$/.test(value) ? Number(value) : -1;
  if (stage < 0 || stage > STAGES.length - 2) {
    throw new Error(`BENCH_PHASES_PROFILE=${value}: give one of ${STAGES.slice(1).map((name, i) => `${i} (${name})`).join(', ')}`);
  }
  return stage;
}
const HARNESS = 'test/bench/page-phases/harness.ts';

async function bundle(root: string): Promise<string> {
  const out = await build({ entryPoints: [path.join(root, HARNESS)], bundle: true, write: false, format: 'iife', target: 'chrome120', minify: true });
  return out.outputFiles[0]!.text;
}

const ISOLATED = process.env.BENCH_PHASES_WORLD === 'isolated';

/** An isolated world on the page's main frame with the harness in it; its context id. */
async function isolatedWorld(cdp: CDPSession, code: string): Promise<number> {
  const { frameTree } = (await cdp.send('Page.getFrameTree')) as { frameTree: { frame: { id: string } } };
  const { executionContextId } = (await cdp.send('Page.createIsolatedWorld', { frameId: frameTree.frame.id, worldName: 'bench-phases' })) as { executionContextId: number };
  await cdp.send('Runtime.evaluate', { expression: `${NAME_SHIM.content}\n${code}`, contextId: executionContextId });
  return executionContextId;
}

/** `fn(arg)` in the page's main world, or in the isolated world `contextId`. */
async function evaluateIn<A, R>(page: Page, cdp: CDPSession, contextId: number | undefined, fn: (arg: A) => R, arg: A): Promise<R> {
  if (contextId === undefined) return page.evaluate(fn as (arg: unknown) => R, arg);
  const { result, exceptionDetails } = (await cdp.send('Runtime.evaluate', { expression: `(${fn.toString()})(${JSON.stringify(arg)})`, contextId, returnByValue: true })) as {
    result: { value: R };
    exceptionDetails?: unknown;
  };
  if (exceptionDetails) throw new Error(`in the isolated world: ${JSON.stringify(exceptionDetails)}`);
  return result.value;
}

/** One stage on a fresh page: its thread time, ms, and what it counted. */
async function runStage(browser: Browser, sim: Simulator, code: string, stage: number): Promise<{ ms: number; warmMs: number; counts: string }> {
  const page = await browser.newPage({ viewport: VIEWPORT });
  try {
    await page.addInitScript(NAME_SHIM);
    await page.goto(`${sim.origin}/pages/siem/big-table.html`, { timeout: NAV_TIMEOUT_MS });
    const cdp = await page.context().newCDPSession(page);
    const contextId = ISOLATED ? await isolatedWorld(cdp, code) : undefined;
    if (!ISOLATED) await page.addScriptTag({ content: code });
    const stop = await startTrace(cdp);
    const pass = (marker: string) => evaluateIn(page, cdp, contextId,
      ({ stage, source, marker }: { stage: number; source: string; marker: string }) => {
        console.timeStamp(marker);
        const t = performance.now();
        let counts: unknown;
        if (stage === 0) {
          const re = new RegExp(source, 'g');
          let found = 0;
          const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
          for (let n = walker.nextNode(); n; n = walker.nextNode()) {
            const p = n.parentNode as Element | null;
            if (p && (p.tagName === 'SCRIPT' || p.tagName === 'STYLE')) continue;
            re.lastIndex = 0;
            for (let m = re.exec((n as Text).data); m; m = re.exec((n as Text).data)) found++;
          }
          counts = { matches: found };
        } else {
          counts = (window as unknown as { runStage: (s: number) => unknown }).runStage(stage - 1);
        }
        console.timeStamp(`${marker}-end`);
        return { ms: performance.now() - t, counts: JSON.stringify(counts) };
      },
      { stage, source: IPV4, marker },
    );
    // The first pass is the content script's case (the page's nodes have no JS wrappers yet);
    // the second, on the same page, leaves out what only a first reader pays.
    const cold = await pass('bench-phase');
    const warm = await pass('bench-warm');
    const events = await stop();
    return { ms: markedThreadMs(events, 'bench-phase', cold.ms), warmMs: markedThreadMs(events, 'bench-warm', warm.ms), counts: cold.counts };
  } finally {
    await page.close();
  }
}

export async function run(): Promise<void> {
  const runs = Number(process.env.BENCH_PHASES_RUNS ?? 3);
  const builds: [string, string][] = [['this tree', await bundle('.')]];
  const other = process.env.BENCH_PHASES_LIB;
  if (other) {
    // The harness itself is this tree's: only lib/ differs.
    mkdirSync(path.join(other, path.dirname(HARNESS)), { recursive: true });
    cpSync(HARNESS, path.join(other, HARNESS));
    builds.push([other, await bundle(other)]);
  }
  const sim = await startSimulator({ port: 0, staticDir: path.resolve('test/fixtures') });
  const browser = await chromium.launch({ executablePath: chromiumExecutable(), headless: true, args: BASE_CHROMIUM_ARGS });
  const profileStage = process.env.BENCH_PHASES_PROFILE;
  if (profileStage !== undefined) {
    try {
      await runProfile(browser, sim, [['this tree', '.'], ...(other ? [[other, other] as [string, string]] : [])], HARNESS, profileStageOf(profileStage), runs);
    } finally {
      await browser.close();
      await sim.close();
    }
    return;
  }
  const times = builds.map(() => STAGES.map((): number[] => []));
  const warmTimes = builds.map(() => STAGES.map((): number[] => []));
  try {
    if (ISOLATED) console.log('  every stage, the floor included, in an isolated world (as the content script)');
    console.log(`  load at start: ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
    for (let r = 0; r < runs; r++) {
      for (let s = 0; s < STAGES.length; s++) {
        for (let b = 0; b < builds.length; b++) {
          if (s === 0 && b > 0) continue;
          const { ms, warmMs, counts } = await runStage(browser, sim, builds[b]![1], s);
          times[b]![s]!.push(ms);
          warmTimes[b]![s]!.push(warmMs);
          if (r === 0) console.log(`    ${builds[b]![0]} ${STAGES[s]}: ${counts}`);
        }
      }
    }
  } finally {
    await browser.close();
    await sim.close();
  }
  console.log(`  load at end: ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  for (const [label, all] of [['first pass (cold page)', times], ['second pass (same page)', warmTimes]] as const) {
    const floor = median(all[0]![0]!);
    for (let b = 0; b < builds.length; b++) {
      console.log(`\n  ${builds[b]![0]}, ${label}: thread time by stage (median of ${runs}, ms; phase = stage - previous stage)`);
      console.log('  | stage | stage, ms (runs) | phase, ms | stage / floor |');
      console.log('  | --- | ---: | ---: | ---: |');
      let previous = 0;
      for (let s = 0; s < STAGES.length; s++) {
        const list = s === 0 ? all[0]![0]! : all[b]![s]!;
        const m = median(list);
        const phase = s <= 1 ? m : m - previous;
        console.log(`  | ${STAGES[s]} | ${m.toFixed(1)} (${list.map((x) => x.toFixed(0)).join(', ')}) | ${phase.toFixed(1)} | ${(m / floor).toFixed(2)}× |`);
        if (s > 0) previous = m;
      }
    }
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
