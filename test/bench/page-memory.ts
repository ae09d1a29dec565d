/**
 * `npm run bench page-memory`: memory under mutation storms (issue 15), each storm page loaded
 * twice in one browser with the extension: on a host it scans (127.0.0.1, registered) and on
 * one it does not (localhost: the page alone). Reported, with and without the extension: JS heap
 * and DOM nodes at BENCH_STORM_POINTS points during the storm and once after it stops; after it
 * stops, a heap snapshot of each page says what the extra heap is, by constructor
 * (./heap-summary.ts), and BENCH_RETAINERS=Name,… prints who holds those.
 * Goals: heap and nodes ≤ 1.2× the page alone after the storm; flat over time (below).
 *
 * Two storms:
 *   - mutation-storm.html: 10,000 nodes replaced every frame in a 20-line box, ~10,000 nodes
 *     on the page, for BENCH_STORM_SECONDS (default 20; 600 for the 10-minute run);
 *   - mutation-storm-60k.html: the audit's page (issue 15): ~60,000 nodes, 1,000–10,000 of
 *     them replaced every frame, for BENCH_STORM2_SECONDS (default 60, as in the audit).
 * BENCH_STORMS=mutation-storm-60k.html runs one of them.
 *
 * Readings: each is taken after two forced GCs, three times, and the median kept, so one
 * reading caught mid-frame (a frame's garbage not yet collectable) does not decide. "Flat" is
 * judged on the storm points only: the median of the last third is within 20% of the median
 * of the first third, heap and nodes; the page alone is judged the same way, side by side.
 * The machine is shared: read the ratios, not the absolute values.
 */
import type { BrowserContext, Page } from '@playwright/test';
import { withHostileSession } from './hostile-session';
import { heapGroups, heapGrowth, type HeapGroup } from './heap-summary';

const STORMS: { page: string; seconds: number }[] = [
  { page: 'mutation-storm.html', seconds: Number(process.env.BENCH_STORM_SECONDS ?? 20) },
  { page: 'mutation-storm-60k.html', seconds: Number(process.env.BENCH_STORM2_SECONDS ?? 60) },
];
const ONLY = (process.env.BENCH_STORMS ?? '').split(',').filter(Boolean);
const STORM_POINTS = Math.max(3, Number(process.env.BENCH_STORM_POINTS ?? 6));

export interface Memory {
  heapMb: number;
  nodes: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function memoryOf(page: Page): Promise<Memory> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  const readings: Memory[] = [];
  for (let i = 0; i < 3; i++) {
    // Twice: the first GC can leave what only becomes garbage once finalizers ran.
    await cdp.send('HeapProfiler.collectGarbage');
    await cdp.send('HeapProfiler.collectGarbage');
    const { metrics } = await cdp.send('Performance.getMetrics');
    const get = (name: string) => metrics.find((m) => m.name === name)?.value ?? 0;
    readings.push({ heapMb: get('JSHeapUsedSize') / 1024 / 1024, nodes: get('Nodes') });
  }
  await cdp.detach();
  return { heapMb: median(readings.map((r) => r.heapMb)), nodes: median(readings.map((r) => r.nodes)) };
}

/** Flat over time: the last third of the storm's points against its first third (medians). */
export function flatness(points: Memory[]): { heap: number; nodes: number; flat: boolean } {
  const third = Math.max(1, Math.floor(points.length / 3));
  const first = points.slice(0, third);
  const last = points.slice(-third);
  const heap = median(last.map((p) => p.heapMb)) / median(first.map((p) => p.heapMb));
  const nodes = median(last.map((p) => p.nodes)) / Math.max(1, median(first.map((p) => p.nodes)));
  return { heap, nodes, flat: heap <= 1.2 && nodes <= 1.2 };
}

/** Memory at STORM_POINTS points of a storm of `seconds`, then after it stops, and what is alive then. */
async function stormMemory(context: BrowserContext, url: string, seconds: number): Promise<{ during: Memory[]; after: Memory; groups: HeapGroup[] }> {
  const page = await context.newPage();
  try {
    await page.goto(url, { timeout: 120_000 });
    const during: Memory[] = [];
    const start = Date.now();
    for (let i = 1; i <= STORM_POINTS; i++) {
      // Readings take time of their own: each point is placed on the storm's clock.
      await page.waitForTimeout(Math.max(0, start + (seconds * 1000 * i) / STORM_POINTS - Date.now()));
      during.push(await memoryOf(page));
    }
    await page.evaluate(() => (window as unknown as { stopStorm(): void }).stopStorm());
    await page.waitForTimeout(1_000);
    const after = await memoryOf(page);
    return { during, after, groups: await heapGroups(page, (process.env.BENCH_RETAINERS ?? '').split(',').filter(Boolean)) };
  } finally {
    await page.close();
  }
}

const verdict = (met: boolean) => (met ? 'met' : 'NOT met');
const show = (m: Memory) => `${m.heapMb.toFixed(2)}/${m.nodes.toFixed(0)}`;

export async function run(): Promise<void> {
  await withHostileSession('iplens-bench-memory-', async ({ context, scanned, alone }) => {
    for (const storm of STORMS.filter((s) => ONLY.length === 0 || ONLY.includes(s.page))) {
      console.log(`\n${storm.page}, ${storm.seconds} s: JS heap MB / DOM nodes at ${STORM_POINTS} points (median of 3 readings after forced GC), then after stop`);
      const a = await stormMemory(context, alone(storm.page), storm.seconds);
      const w = await stormMemory(context, scanned(storm.page), storm.seconds);
      console.log(`alone    ${a.during.map(show).join('  ')}   after: ${show(a.after)}`);
      console.log(`with us  ${w.during.map(show).join('  ')}   after: ${show(w.after)}`);
      const heapRatio = w.after.heapMb / a.after.heapMb;
      const nodeRatio = w.after.nodes / Math.max(1, a.after.nodes);
      const [fa, fw] = [flatness(a.during), flatness(w.during)];
      console.log(`after the storm: heap ${heapRatio.toFixed(2)}× (+${(w.after.heapMb - a.after.heapMb).toFixed(2)} MB), nodes ${nodeRatio.toFixed(2)}× the page alone (≤ 1.2×: ${verdict(heapRatio <= 1.2 && nodeRatio <= 1.2)})`);
      console.log(`flat over time (last third / first third of the storm): with us heap ${fw.heap.toFixed(2)}×, nodes ${fw.nodes.toFixed(2)}× (${verdict(fw.flat)}); alone heap ${fa.heap.toFixed(2)}×, nodes ${fa.nodes.toFixed(2)}×`);
      // JSHeapUsedSize is V8's heap only; the snapshot also sees Blink's objects (computed styles,
      // observer data), which the extension can make the page keep too.
      const total = (g: HeapGroup[]) => g.reduce((sum, x) => sum + x.selfBytes, 0) / 1024 / 1024;
      const [ta, tw] = [total(a.groups), total(w.groups)];
      console.log(`heap snapshot after the storm (JS and Blink objects): alone ${ta.toFixed(2)} MB, with us ${tw.toFixed(2)} MB: ${(tw / ta).toFixed(2)}×`);
      console.log('what the extra heap is (snapshot after the storm, with us minus alone, by constructor):');
      for (const row of heapGrowth(a.groups, w.groups)) console.log(`  ${row}`);
    }
  });
}
