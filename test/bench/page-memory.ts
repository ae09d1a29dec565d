/**
 * `npm run bench page-memory`: memory under mutation storms, each storm page loaded
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
 *   - mutation-storm-60k.html: the memory audit's page: ~60,000 nodes, 1,000–10,000 of
 *     them replaced every frame, for BENCH_STORM2_SECONDS (default 60, as in the audit).
 * BENCH_STORMS=mutation-storm-60k.html runs one of them.
 *
 * Readings: each is taken after two forced GCs, three times, and the median kept, so one
 * reading caught mid-frame (a frame's garbage not yet collectable) does not decide. "Flat" is
 * judged on the storm points only: the median of the last third is within 20% of the median
 * of the first third, heap and nodes; the page alone is judged the same way, side by side.
 * After the storm there are two readings: 1 s after it stops, and "settled",
 * BENCH_SETTLE_SECONDS (default 12) after it stops, past the match cache's two idle periods
 * (lib/page/scanning/match-cache.ts), when what is left is what the page still shows; the snapshot is
 * taken then. The machine is shared: read the ratios, not the absolute values.
 *
 * Which heap: Performance.getMetrics' JSHeapUsedSize (and Runtime.getHeapUsage) is the whole
 * renderer isolate's V8 heap, the page's main world and our content script's isolated world
 * together (checked: 200k objects made in an isolated world over CDP raise it as much as in
 * the main world). It is not Blink's own heap, which the snapshot adds.
 *
 * BENCH_FLOOR=1 adds a second browser whose build has an empty content script: the fixed
 * cost of being injected at all (an isolated world, its bindings), against which what our
 * code keeps is reported ("above the floor").
 *
 * BENCH_RETAINED=N lists the N largest holders of the heap with their dominators (read with a
 * WXT_NO_MINIFY=1 build: ./heap-retained.ts); BENCH_STRINGS=1 groups the strings held by shape
 * (digits as 9) in the extra-heap list (./heap-summary.ts).
 */
import type { BrowserContext, Page } from '@playwright/test';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { benchExtensionDir } from './extension-build';
import { withHostileSession, type HostileSession } from './hostile-session';
import { heapGroups, heapGrowth, type HeapGroup } from './heap-summary';

const STORMS: { page: string; seconds: number }[] = [
  { page: 'mutation-storm.html', seconds: Number(process.env.BENCH_STORM_SECONDS ?? 20) },
  { page: 'mutation-storm-60k.html', seconds: Number(process.env.BENCH_STORM2_SECONDS ?? 60) },
];
const ONLY = (process.env.BENCH_STORMS ?? '').split(',').filter(Boolean);
const STORM_POINTS = Math.max(3, Number(process.env.BENCH_STORM_POINTS ?? 6));
const SETTLE_SECONDS = Number(process.env.BENCH_SETTLE_SECONDS ?? 12);

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

interface StormMemory {
  during: Memory[];
  /** 1 s after the storm stops. */
  after: Memory;
  /** SETTLE_SECONDS after it stops. */
  settled: Memory;
  /** What is alive when settled, by constructor. */
  groups: HeapGroup[];
}

/** Memory at STORM_POINTS points of a storm of `seconds`, then after it stops, and what is alive then. */
async function stormMemory(context: BrowserContext, url: string, seconds: number): Promise<StormMemory> {
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
    const stopped = Date.now();
    await page.waitForTimeout(1_000);
    const after = await memoryOf(page);
    await page.waitForTimeout(Math.max(0, stopped + SETTLE_SECONDS * 1000 - Date.now()));
    const settled = await memoryOf(page);
    return { during, after, settled, groups: await heapGroups(page, (process.env.BENCH_RETAINERS ?? '').split(',').filter(Boolean)) };
  } finally {
    await page.close();
  }
}

const verdict = (met: boolean) => (met ? 'met' : 'NOT met');
const show = (m: Memory) => `${m.heapMb.toFixed(2)}/${m.nodes.toFixed(0)}`;

const snapshotMb = (g: HeapGroup[]) => g.reduce((sum, x) => sum + x.selfBytes, 0) / 1024 / 1024;

/** The bench's build with an empty content script: injected, running nothing. */
function emptyScriptBuild(): { dir: string; remove(): void } {
  const root = mkdtempSync(path.join(tmpdir(), 'iplens-floor-'));
  const dir = path.join(root, 'extension');
  cpSync(benchExtensionDir(), dir, { recursive: true });
  writeFileSync(path.join(dir, 'content-scripts/content.js'), '');
  return { dir, remove: () => rmSync(root, { recursive: true, force: true }) };
}

const storms = () => STORMS.filter((s) => ONLY.length === 0 || ONLY.includes(s.page));

async function measureStorms(session: HostileSession): Promise<Map<string, { alone: StormMemory; withUs: StormMemory }>> {
  const results = new Map<string, { alone: StormMemory; withUs: StormMemory }>();
  for (const storm of storms()) {
    const alone = await stormMemory(session.context, session.alone(storm.page), storm.seconds);
    const withUs = await stormMemory(session.context, session.scanned(storm.page), storm.seconds);
    results.set(storm.page, { alone, withUs });
  }
  return results;
}

function report(page: string, seconds: number, { alone: a, withUs: w }: { alone: StormMemory; withUs: StormMemory }): void {
  console.log(`\n${page}, ${seconds} s: JS heap MB / DOM nodes at ${STORM_POINTS} points (median of 3 readings after forced GC), then 1 s and ${SETTLE_SECONDS} s after it stops`);
  console.log(`alone    ${a.during.map(show).join('  ')}   after: ${show(a.after)}   settled: ${show(a.settled)}`);
  console.log(`with us  ${w.during.map(show).join('  ')}   after: ${show(w.after)}   settled: ${show(w.settled)}`);
  for (const [when, x, y] of [['1 s after the storm', a.after, w.after], [`${SETTLE_SECONDS} s after the storm (settled)`, a.settled, w.settled]] as const) {
    const heapRatio = y.heapMb / x.heapMb;
    const nodeRatio = y.nodes / Math.max(1, x.nodes);
    console.log(`${when}: heap ${heapRatio.toFixed(2)}× (+${(y.heapMb - x.heapMb).toFixed(2)} MB), nodes ${nodeRatio.toFixed(2)}× the page alone (≤ 1.2×: ${verdict(heapRatio <= 1.2 && nodeRatio <= 1.2)})`);
  }
  const [fa, fw] = [flatness(a.during), flatness(w.during)];
  console.log(`flat over time (last third / first third of the storm): with us heap ${fw.heap.toFixed(2)}×, nodes ${fw.nodes.toFixed(2)}× (${verdict(fw.flat)}); alone heap ${fa.heap.toFixed(2)}×, nodes ${fa.nodes.toFixed(2)}×`);
  // JSHeapUsedSize is V8's heap only; the snapshot also sees Blink's objects (computed styles,
  // observer data), which the extension can make the page keep too.
  const [ta, tw] = [snapshotMb(a.groups), snapshotMb(w.groups)];
  console.log(`heap snapshot, settled (JS and Blink objects): alone ${ta.toFixed(2)} MB, with us ${tw.toFixed(2)} MB: ${(tw / ta).toFixed(2)}×`);
  console.log('what the extra heap is (snapshot, settled, with us minus alone, by constructor):');
  for (const row of heapGrowth(a.groups, w.groups)) console.log(`  ${row}`);
}

export async function run(): Promise<void> {
  let ours = new Map<string, { alone: StormMemory; withUs: StormMemory }>();
  await withHostileSession('iplens-bench-memory-', async (session) => {
    ours = await measureStorms(session);
  });
  for (const storm of storms()) report(storm.page, storm.seconds, ours.get(storm.page)!);
  if (!process.env.BENCH_FLOOR) return;

  const empty = emptyScriptBuild();
  try {
    await withHostileSession('iplens-bench-memory-floor-', async (session) => {
      const floor = await measureStorms(session);
      console.log('\nThe floor: the same build with an empty content script, in a second browser (settled readings, JS heap MB)');
      for (const storm of storms()) {
        const { alone: fa, withUs: fw } = floor.get(storm.page)!;
        const { alone: oa, withUs: ow } = ours.get(storm.page)!;
        const floorRatio = fw.settled.heapMb / fa.settled.heapMb;
        const oursRatio = ow.settled.heapMb / oa.settled.heapMb;
        console.log(
          `${storm.page}: alone ${fa.settled.heapMb.toFixed(2)}, empty content script ${fw.settled.heapMb.toFixed(2)} (floor ${floorRatio.toFixed(2)}×, +${(fw.settled.heapMb - fa.settled.heapMb).toFixed(2)} MB); ` +
            `ours ${oursRatio.toFixed(2)}× its page alone, ${(oursRatio / floorRatio).toFixed(2)}× the floor (+${(ow.settled.heapMb - oa.settled.heapMb - (fw.settled.heapMb - fa.settled.heapMb)).toFixed(2)} MB above it)`,
        );
      }
    }, empty.dir);
  } finally {
    empty.remove();
  }
}
