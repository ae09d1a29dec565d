/**
 * Which rendering-only long frames are ours (bench page): a run with the
 * extension against the page alone over the same window, rank by rank, so the page's own frames
 * (its first layout of 10,000 rows) are not counted as ours and every frame beyond them is.
 */
/** Per rank (longest first), the median over runs of each run's k-th longest frame (0 where a run has fewer). */
export function rankedMedian(runs: number[][]): number[] {
  const sorted = runs.map((r) => [...r].sort((a, b) => b - a));
  const most = Math.max(0, ...sorted.map((r) => r.length));
  return Array.from({ length: most }, (_, k) => median(sorted.map((r) => r[k] ?? 0)));
}

/** The largest excess of a run's k-th longest frame over the reference's k-th longest (0 past its end). */
export function framesBeyond(frames: number[], reference: number[]): number {
  const sorted = [...frames].sort((a, b) => b - a);
  return Math.max(0, ...sorted.map((f, k) => f - (reference[k] ?? 0)));
}

export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** A long animation frame: its start (performance.now() ms) and duration (wall ms). */
export interface LongFrame {
  start: number;
  frame: number;
}

interface TaskEvent {
  name: string;
  ph: string;
  ts: number;
  dur?: number;
  tdur?: number;
  tid: number;
}

/** A trace event and the performance.now() of the same moment, on the page's main thread. */
export interface TraceAlignment {
  ts: number;
  now: number;
  tid: number;
}

/**
 * The thread (CPU) time of each long frame: the main thread's top-level tasks that start in
 * it. On the shared 2-core machine a frame's wall time swings several times with the load
 * (the same frames measured 100 ms quiet, 200-500 ms at load 12), its CPU time much less.
 * `only`: count these tasks only (the content script's: a Long Animation Frame lists no
 * extension script, so a frame in which only our script ran still looks rendering-only).
 */
export function frameThreadMs(events: TaskEvent[], frames: LongFrame[], align: TraceAlignment, only?: Set<TaskEvent>): number[] {
  const tasks = events.filter((e) => e.ph === 'X' && e.name === 'RunTask' && e.tid === align.tid && (!only || only.has(e)));
  return frames.map((f) => {
    const from = align.ts + (f.start - align.now) * 1000;
    const to = from + f.frame * 1000;
    return tasks.filter((t) => t.ts >= from && t.ts < to).reduce((sum, t) => sum + (t.tdur ?? t.dur ?? 0), 0) / 1000;
  });
}

/** The alignment from a `console.timeStamp(marker)` in the trace and the performance.now() taken with it. */
export function alignmentOf(events: TaskEvent[], marker: string, now: number): TraceAlignment | undefined {
  const stamp = events.find((e) => e.name === 'TimeStamp' && (e as { args?: { data?: { message?: string } } }).args?.data?.message === marker);
  return stamp && { ts: stamp.ts, now, tid: stamp.tid };
}
