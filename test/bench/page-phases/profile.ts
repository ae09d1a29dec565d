/**
 * `BENCH_PHASES_PROFILE=<stage>` for `npm run bench page-phases`: instead of timing the stages,
 * profiles one stage of the harness (index into harness.ts' STAGES: 5 = to "tracker") on cold
 * pages in an isolated world, as the content script runs, this tree and BENCH_PHASES_LIB
 * alternating, BENCH_PHASES_RUNS pages each. Prints sampled self time by function (a DOM call
 * counts for the function that made it), each sample weighed by at most 200 µs: a sample's
 * weight is the wall time since the last one, so on a busy machine a wait for a core would count
 * for the function it resumed in. `BENCH_PHASES_ALLOC=1`: bytes allocated by caller > function
 * instead (V8's sampling heap profiler, objects the collector freed included).
 */
import type { Browser, CDPSession } from '@playwright/test';
import { build } from 'esbuild';
import { loadavg } from 'node:os';
import path from 'node:path';
import type { Simulator } from '../../sim/server';
import { NAME_SHIM, VIEWPORT } from '../page';

const CAP_US = 200;

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

/** A node of the sampling heap profile: its children are nodes, not ids. */
interface HeapNode {
  callFrame: { functionName: string; url: string };
  children?: HeapNode[];
  selfSize: number;
}

/** Readable (names kept) bundle of the harness against `<root>/lib`. */
async function readableBundle(root: string, harness: string): Promise<string> {
  const out = await build({ entryPoints: [path.join(root, harness)], bundle: true, write: false, format: 'iife', target: 'chrome120', minify: false, keepNames: true });
  return out.outputFiles[0]!.text;
}

const name = (n: ProfileNode | HeapNode) => n.callFrame.functionName || '(anonymous)';

/** One cold page: the stage run once in an isolated world; ms (or KB) by function. */
async function profileOnce(browser: Browser, sim: Simulator, code: string, stage: number, alloc: boolean): Promise<Map<string, number>> {
  const page = await browser.newPage({ viewport: VIEWPORT });
  const by = new Map<string, number>();
  const add = (k: string, v: number) => by.set(k, (by.get(k) ?? 0) + v);
  try {
    await page.goto(`${sim.origin}/pages/siem/big-table.html`);
    const cdp: CDPSession = await page.context().newCDPSession(page);
    const { frameTree } = (await cdp.send('Page.getFrameTree')) as { frameTree: { frame: { id: string } } };
    const { executionContextId: contextId } = (await cdp.send('Page.createIsolatedWorld', { frameId: frameTree.frame.id, worldName: 'bench-phases' })) as { executionContextId: number };
    await cdp.send('Runtime.evaluate', { expression: `${NAME_SHIM.content}\n${code}`, contextId });
    const runStage = () => cdp.send('Runtime.evaluate', { expression: `runStage(${stage})`, contextId, returnByValue: true });
    if (alloc) {
      await cdp.send('HeapProfiler.enable');
      await cdp.send('HeapProfiler.startSampling', { samplingInterval: 2048, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true } as never);
      await runStage();
      const { profile } = (await cdp.send('HeapProfiler.stopSampling')) as unknown as { profile: { head: HeapNode } };
      const walk = (n: HeapNode, caller: string) => {
        if (n.selfSize) add(`${caller} > ${name(n)}`, n.selfSize / 1024);
        for (const c of n.children ?? []) walk(c, name(n));
      };
      walk(profile.head, '');
      return by;
    }
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
    await cdp.send('Profiler.start');
    await runStage();
    const { profile } = (await cdp.send('Profiler.stop')) as unknown as { profile: { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] } };
    const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
    const parent = new Map<number, number>();
    for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
    const VM = new Set(['(garbage collector)', '(program)', '(idle)', '(root)']);
    profile.samples.forEach((id, i) => {
      let key = name(nodes.get(id)!);
      if (key === '(idle)' || key === '(root)') return;
      // A native frame (a DOM call, a builtin) counts for the nearest function of the harness.
      if (!VM.has(key) && !nodes.get(id)!.callFrame.url) {
        let cur = parent.get(id);
        while (cur !== undefined && !nodes.get(cur)!.callFrame.url) cur = parent.get(cur);
        if (cur !== undefined) key = name(nodes.get(cur)!);
      }
      add(key, Math.min(profile.timeDeltas[i] ?? 0, CAP_US) / 1000);
    });
    return by;
  } finally {
    await page.close();
  }
}

export async function runProfile(browser: Browser, sim: Simulator, roots: [string, string][], harness: string, stage: number, runs: number): Promise<void> {
  const alloc = !!process.env.BENCH_PHASES_ALLOC;
  const codes = await Promise.all(roots.map(([, root]) => readableBundle(root, harness)));
  const totals = roots.map(() => new Map<string, number>());
  const perPage = roots.map((): number[] => []);
  console.log(`  ${alloc ? 'allocation (KB)' : 'sampled self time (ms)'} of stage ${stage}, isolated world, cold pages; load at start: ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  for (let r = 0; r < runs; r++) {
    for (let b = 0; b < roots.length; b++) {
      const by = await profileOnce(browser, sim, codes[b]!, stage, alloc);
      let sum = 0;
      for (const [k, v] of by) {
        totals[b]!.set(k, (totals[b]!.get(k) ?? 0) + v);
        sum += v;
      }
      perPage[b]!.push(sum);
    }
  }
  console.log(`  load at end: ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  for (let b = 0; b < roots.length; b++) {
    console.log(`\n  ${roots[b]![0]}: per page ${perPage[b]!.map((x) => x.toFixed(0)).join(', ')}; mean by function:`);
    for (const [k, v] of [...totals[b]!].sort((x, y) => y[1] - x[1]).slice(0, 25)) console.log(`    ${(v / runs).toFixed(1).padStart(8)}  ${k}`);
  }
}
