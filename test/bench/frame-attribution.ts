/**
 * Which rendering-only long frames are ours (bench page, issue 11, restyle11g): a run with the
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
