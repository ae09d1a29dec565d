/**
 * The benchmarks `npm run bench` knows (docs/benchmarks.md has one row each). Each is
 * `./<part>.ts` exporting `run()`, with no work done at import, so the smoke test
 * (test/unit/bench/benches.test.ts) can load every one.
 */
export const PARTS = ['extract', 'lookup', 'page', 'popup', 'page-profile', 'page-phases', 'page-hostile', 'page-memory', 'storm-frames', 'highlight-cost', 'gateway'] as const;
export type Part = (typeof PARTS)[number];

/** Diagnostics that build their own copy or trace every frame: run only when named. */
const ON_REQUEST: readonly Part[] = ['page-profile', 'page-phases', 'storm-frames', 'highlight-cost'];

/** The parts `npm run bench [part...]` runs: those named, else every part but the diagnostics. */
export function partsToRun(args: readonly string[]): Part[] {
  const unknown = args.filter((a) => !(PARTS as readonly string[]).includes(a));
  if (unknown.length) throw new Error(`Unknown bench part ${unknown.map((a) => `"${a}"`).join(', ')}: the parts are ${PARTS.join(', ')}`);
  return args.length ? (args as Part[]) : PARTS.filter((p) => !ON_REQUEST.includes(p));
}
