/**
 * Total blocking time: the sum of each task's time beyond 50 ms. `bench page-hostile` reads it
 * from the Long Tasks API's wall times; storm-frames' STORM_SHIFT from frame tasks' CPU. On the
 * mutation storm the page's own frames sit at 45-50 ms of CPU, so blocking there is a tail: a
 * fraction of a ms more in every frame moves it by tens of percent. Shifting the page alone's own
 * frames by a measured per-frame cost tells what that cost alone does to blocking, with none of
 * the load-to-load swing that makes with/alone ratios undecidable on a shared machine.
 */
export const LONG_TASK_MS = 50;

/** Sum over tasks of their time (ms) beyond 50 ms, each task first lengthened by `shiftMs`. */
export function blockingTime(durationsMs: readonly number[], shiftMs = 0): number {
  let sum = 0;
  for (const ms of durationsMs) sum += Math.max(0, ms + shiftMs - LONG_TASK_MS);
  return sum;
}

/**
 * Blocking of the page alone's loads with every frame lengthened by `shiftMs`, over the same
 * loads unshifted (pooled sums, so a load that barely blocks weighs what it blocks).
 */
export function shiftedRatio(loads: readonly (readonly number[])[], shiftMs: number): number {
  const base = loads.reduce((s, cpu) => s + blockingTime(cpu), 0);
  const shifted = loads.reduce((s, cpu) => s + blockingTime(cpu, shiftMs), 0);
  return base > 0 ? shifted / base : shifted > 0 ? Infinity : 1;
}
