/**
 * Where a hostile page's blocking time comes from, the page alone and with the extension
 * (`bench page-hostile` gives only the totals). Each load is traced; per load: the
 * blocking time of the renderer's main-thread tasks (wall time past 50 ms) per second of the
 * load, split into tasks our script did not run in + tasks it ran in, and the same by thread
 * (CPU) time for the first second (the load) and the rest (steady), with the steady frame
 * tasks' mean CPU. A trace slows the page: compare the lines of one run, not with page-hostile.
 *
 *   BENCH_EXTENSION_DIR=<build> npx tsx test/bench/storm-blocking.ts
 *   STORM_ROUNDS (default 3, alternating which side goes first), STORM_PAGE (default
 *   mutation-storm.html), STORM_DETAIL=<ms>: list each task our script ran in during the first
 *   <ms> of the load (frame task or our own, wall, CPU, our calls by function and line, what the
 *   browser did in it); STORM_DETAIL=long: every task over 50 ms of CPU, both sides. Function
 *   names and lines are readable with a build made with WXT_NO_MINIFY=1. STORM_PROCESSES=1:
 *   per load, the CPU of the tasks of the other processes' busiest threads (the extension's
 *   service worker and page, the browser's main and IO threads, the GPU process's compositor,
 *   the page renderer's compositor): the load's work outside the page's main thread.
 */
import { withHostileSession } from './hostile-session';
import { contentScriptTaskSet, startTrace, type TraceEvent } from './page';

const WINDOW_MS = Number(process.env.BENCH_HOSTILE_WINDOW_MS ?? 8_000);
const ROUNDS = Number(process.env.STORM_ROUNDS ?? 3);
const PAGE = process.env.STORM_PAGE ?? 'mutation-storm.html';

/** STORM_PROCESSES: the threads reported, as `<process> <thread>` from the trace's metadata. */
const THREADS = ['Browser CrBrowserMain', 'Browser Chrome_IOThread', 'Extension Renderer ServiceWorker thread', 'Extension Renderer CrRendererMain', 'GPU Process VizCompositorThread', 'GPU Process CrGpuMain', 'Renderer Compositor'];

/** CPU (thread time) of each reported thread's top-level tasks; the page's renderer's compositor only (`pageTid` is its main thread). */
function threadTaskCpu(events: TraceEvent[], pageTid: number | undefined): Map<string, number> {
  type Meta = TraceEvent & { pid: number; args: { name?: string } };
  const processes = new Map<number, string>();
  const threads = new Map<string, string>();
  for (const e of events as Meta[]) {
    if (e.ph !== 'M') continue;
    if (e.name === 'process_name') processes.set(e.pid, e.args.name ?? '');
    if (e.name === 'thread_name') threads.set(`${e.pid}/${e.tid}`, e.args.name ?? '');
  }
  const pagePid = (events as Meta[]).find((e) => e.tid === pageTid)?.pid;
  const out = new Map<string, number>(THREADS.map((t) => [t, 0]));
  for (const e of events as Meta[]) {
    if (e.ph !== 'X' || e.name !== 'RunTask' || !e.tdur) continue;
    const process = processes.get(e.pid) ?? '';
    if (process === 'Renderer' && e.pid !== pagePid) continue;
    const name = `${process} ${threads.get(`${e.pid}/${e.tid}`) ?? ''}`;
    if (out.has(name)) out.set(name, out.get(name)! + e.tdur / 1000);
  }
  return out;
}

async function main() {
  await withHostileSession('iplens-storm-blocking-', async ({ context, extensionId, scanned, alone }) => {
    const scriptUrl = `chrome-extension://${extensionId}/content-scripts/content.js`;
    const sums: Record<string, number[]> = { alone: [], us: [] };
    const threadCpu: Record<string, Map<string, number[]>> = { alone: new Map(), us: new Map() };
    const cpuStats: Record<string, number[][]> = { alone: [], us: [] };
    for (let round = 0; round < ROUNDS; round++) {
      for (const side of round % 2 ? ['us', 'alone'] : ['alone', 'us']) {
        const url = side === 'us' ? scanned(PAGE) : alone(PAGE);
        const page = await context.newPage();
        await page.goto(new URL('hostile.js', url).href);
        const cdp = await context.newCDPSession(page);
        const stop = await startTrace(cdp);
        await page.goto(url, { timeout: 120_000 });
        await page.waitForTimeout(WINDOW_MS);
        const events = await stop();
        await page.close();
        const nav = events.find((e) => e.name === 'navigationStart' || e.name === 'NavigationBodyLoader::StartLoadingBody');
        const pageCalls = events.filter((e) => e.name === 'FunctionCall' && e.args?.data?.url?.includes('/pages/hostile/'));
        const tid = pageCalls[0]?.tid;
        const tasks = events.filter((e) => e.ph === 'X' && e.name === 'RunTask' && e.tid === tid).sort((a, b) => a.ts - b.ts);
        const t0 = nav?.ts ?? tasks[0]!.ts;
        const ours = contentScriptTaskSet(events, scriptUrl);
        const buckets = new Map<number, [number, number]>();
        let total = 0;
        const detail: string[] = [];
        for (const t of tasks) {
          const d = (t.dur ?? 0) / 1000;
          if (d <= 50) continue;
          const b = Math.floor((t.ts - t0) / 1e6);
          const cur = buckets.get(b) ?? [0, 0];
          const ourTask = ours.has(t);
          cur[ourTask ? 1 : 0] += d - 50;
          buckets.set(b, cur);
          total += d - 50;
          if (ourTask) {
            const inside = events.filter((e) => e.tid === tid && (e.name === 'FunctionCall' || e.name === 'EvaluateScript') && e.args?.data?.url === scriptUrl && e.ts >= t.ts && e.ts <= t.ts + (t.dur ?? 0));
            const ourMs = inside.reduce((s, e) => s + (e.dur ?? 0) / 1000, 0);
            detail.push(`${((t.ts - t0) / 1000).toFixed(0)}ms:${d.toFixed(0)}(ours ${ourMs.toFixed(1)})`);
          }
        }
        sums[side]!.push(total);
        {
          // CPU-time view (less sensitive to the machine's load): frame tasks (FireAnimationFrame inside), load (< 1 s) vs steady.
          const frameTasks = tasks.filter((t) => (t.tdur ?? 0) > 0);
          let cpuBlockLoad = 0, cpuBlockSteady = 0, n = 0, cpuSum = 0;
          for (const t of frameTasks) {
            const c = (t.tdur ?? 0) / 1000;
            const at = (t.ts - t0) / 1e6;
            if (c > 50) { if (at < 1) cpuBlockLoad += c - 50; else cpuBlockSteady += c - 50; }
            if (at >= 1 && c > 20) { n++; cpuSum += c; }
          }
          cpuStats[side]!.push([cpuBlockLoad, cpuBlockSteady, cpuSum / Math.max(1, n), n]);
          console.log(`       cpu blocking: load ${cpuBlockLoad.toFixed(0)} steady ${cpuBlockSteady.toFixed(0)}; steady tasks > 20 ms cpu: ${n}, mean ${(cpuSum / Math.max(1, n)).toFixed(1)}`);
        }
        if (process.env.STORM_DETAIL) {
          const ourCalls = events.filter((e) => e.tid === tid && (e.name === 'FunctionCall' || e.name === 'EvaluateScript' || e.name === 'v8.callFunction') && e.args?.data?.url === scriptUrl);
          for (const t of tasks) {
            if (process.env.STORM_DETAIL === 'long' ? (t.tdur ?? 0) <= 50_000 : !ours.has(t) || (t.ts - t0) / 1000 > Number(process.env.STORM_DETAIL)) continue;
            const end = t.ts + (t.dur ?? 0);
            const inside = events.filter((e) => e.tid === tid && e.ph === 'X' && e.ts >= t.ts && e.ts + (e.dur ?? 0) <= end && e !== t);
            const frame = inside.some((e) => e.name === 'FireAnimationFrame');
            const mine = ourCalls.filter((e) => e.ts >= t.ts && e.ts <= end);
            const ourCpu = mine.reduce((s, e) => s + (e.tdur ?? e.dur ?? 0) / 1000, 0);
            const byName = new Map<string, number>();
            for (const e of inside) if (['Layout', 'UpdateLayoutTree', 'Paint', 'PrePaint', 'MinorGC', 'MajorGC', 'V8.GC_SCAVENGER', 'HitTest', 'IntersectionObserverController::computeIntersections', 'FunctionCall', 'ParseAuthorStyleSheet', 'UpdateLayerTree', 'Commit', 'IntersectionObserverController::computeIntersections', 'UpdateIntersectionObservations', 'Layerize', 'V8.GCFinalizeMC', 'V8.GCScavenger', 'BlinkGC.AtomicPhase', 'ThreadState::performIdleLazySweep', 'BlinkGC.CompleteSweep', 'BlinkGC.IncrementalMarkingStep'].includes(e.name)) byName.set(e.name, (byName.get(e.name) ?? 0) + (e.tdur ?? e.dur ?? 0) / 1000);
            const names = [...byName].sort((a, b) => b[1] - a[1]).slice(0, 6).map(([n, d]) => `${n} ${d.toFixed(1)}`).join(', ');
            const fns = mine.map((e) => `${(e.args?.data as { functionName?: string })?.functionName || '?'}:${(e.args?.data as { lineNumber?: number })?.lineNumber}=${((e.tdur ?? e.dur ?? 0) / 1000).toFixed(1)}`).join(' ');
            console.log(`   ${((t.ts - t0) / 1000).toFixed(0).padStart(5)}ms ${frame ? 'FRAME' : 'own  '} [${fns}] wall ${((t.dur ?? 0) / 1000).toFixed(1)} cpu ${((t.tdur ?? 0) / 1000).toFixed(1)} ours ${ourCpu.toFixed(1)} (${mine.length} calls) | ${names}`);
          }
        }
        if (process.env.STORM_PROCESSES) {
          const byThread = threadTaskCpu(events, tid);
          for (const [name, ms] of byThread) threadCpu[side]!.set(name, [...(threadCpu[side]!.get(name) ?? []), ms]);
          console.log(`       other threads' task CPU (ms): ${[...byThread].map(([n, ms]) => `${n} ${ms.toFixed(1)}`).join(', ')}`);
        }
        const line = [...buckets].sort((a, b) => a[0] - b[0]).map(([b, [o, u]]) => `${b}s ${o.toFixed(0)}+${u.toFixed(0)}`).join('  ');
        console.log(`${side.padEnd(6)} blocking ${total.toFixed(0).padStart(5)} ms | per second (others+ours): ${line}`);
        if (detail.length) console.log(`       our long tasks: ${detail.join(' ')}`);
      }
    }
    const med = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!;
    for (const side of ['alone', 'us']) {
      const rows = cpuStats[side]!;
      console.log(`${side}: cpu blocking load median ${med(rows.map((r) => r[0]!)).toFixed(0)}, steady median ${med(rows.map((r) => r[1]!)).toFixed(0)}, frame cpu mean median ${med(rows.map((r) => r[2]!)).toFixed(1)}`);
    }
    console.log(`median blocking alone ${med(sums.alone!).toFixed(0)} us ${med(sums.us!).toFixed(0)}`);
    if (process.env.STORM_PROCESSES) {
      for (const name of THREADS) console.log(`${name}: task CPU per load, median alone ${med(threadCpu.alone!.get(name) ?? [0]).toFixed(1)}, with us ${med(threadCpu.us!.get(name) ?? [0]).toFixed(1)} ms`);
    }
  });
}
void main();
