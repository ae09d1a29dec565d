/**
 * Performance marks the popup sets when its parts first show data. The popup benchmark
 * (test/bench/popup.ts) reads them: time from navigation start to `popup-ready`.
 */
export const PERF_MARKS = {
  quota: 'iplens:quota-rendered',
  page: 'iplens:page-rendered',
  ready: 'iplens:popup-ready',
  /** Steps inside the page list's load, for the benchmark's breakdown. */
  tabKnown: 'iplens:tab-known',
  pageAnswered: 'iplens:page-answered',
} as const;

/** A plain timestamp (first occurrence only), where marks are available. */
export function markTime(name: string): void {
  if (typeof performance === 'undefined' || !performance.mark || performance.getEntriesByName(name).length) return;
  performance.mark(name);
}

const done = new Set<string>();

/** Marks `name` once per document; sets `ready` when every part in `parts` is marked. */
export function markRendered(name: string, parts: readonly string[] = [PERF_MARKS.quota, PERF_MARKS.page]): void {
  if (done.has(name) || typeof performance === 'undefined' || !performance.mark) return;
  done.add(name);
  performance.mark(name);
  if (!done.has(PERF_MARKS.ready) && parts.every((p) => done.has(p))) {
    done.add(PERF_MARKS.ready);
    performance.mark(PERF_MARKS.ready);
  }
}
