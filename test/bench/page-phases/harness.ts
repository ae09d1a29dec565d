/**
 * In-page harness of `bench page-phases` (bundled by esbuild into the fixture page): the
 * content script's initial scan rebuilt as a plain synchronous loop over the same modules, one
 * phase more per stage, so the thread time of stage k minus stage k-1 is what phase k costs.
 * No time slicing, no messaging: those are measured by `bench page-profile`.
 */
import { findIps } from '../../../lib/ip/find-ips';
import { cachedFinder } from '../../../lib/page/scanning/match-cache';
import { createNearTracker } from '../../../lib/page/nearness/near-tracker';
import { emptyChange, OccurrenceStore, type Occurrence } from '../../../lib/page/occurrences/occurrence-store';
import { couldHoldIp } from '../../../lib/page/scanning/skip-rules';
import { SubtreeWalk } from '../../../lib/page/scanning/subtree-walk';

export const STAGES = ['walk', 'prefilter', 'findIps', 'match cache', 'store', 'tracker', 'ranges'] as const;

function elementOf(occ: Occurrence): Element | null {
  const parent = occ.node.parentNode;
  return parent && parent.nodeType === Node.ELEMENT_NODE ? (parent as Element) : null;
}

/**
 * The tracker's far-row API, absent from older libs (BENCH_PHASES_LIB): with
 * it, the store and tracker stages take the whole-page scan's far path (every row here is far:
 * no observer has reported), text held per row without occurrences; without it, the full path.
 */
interface FarRows {
  farRowOf(element: Element): Element | null;
  trackRow(row: Element, texts: number): void;
}

/**
 * As the lens: one call per row with its texts' count where the lib takes one, one
 * per text before. Texts are handed over one by one here, so a row's texts are batched across
 * calls (`pending`), flushed when the next row starts and at the end of the walk.
 */
let pending: { row: Element; texts: number } | null = null;

function trackFarRows(farRows: FarRows, added: readonly { row: Element }[]): void {
  for (const far of added) {
    if (farRows.trackRow.length < 2) farRows.trackRow(far.row, 1);
    else if (pending?.row === far.row) pending.texts++;
    else {
      if (pending) farRows.trackRow(pending.row, pending.texts);
      pending = { row: far.row, texts: 1 };
    }
  }
}

/** Runs the pipeline up to `stage` (index into STAGES) over the body; counts what it saw. */
function runStage(stage: number): { texts: number; candidates: number; occurrences: number } {
  // The match cache (by text content) is a phase of its own: stage 3 on.
  const find = stage >= 3 ? cachedFinder(findIps) : findIps;
  const store = new OccurrenceStore();
  const tracker = createNearTracker<Occurrence>({ onNear: () => {}, onFar: () => {} });
  const farRows = 'trackRow' in tracker ? (tracker as unknown as FarRows) : null;
  let change = emptyChange();
  let texts = 0;
  let candidates = 0;
  let occurrences = 0;
  const visitor = {
    // As the scanner: the text and parent the walk read (an older lib's walk passes neither).
    text(node: Text, walkData?: string, walkParent?: Element | null, walkRow?: Element): boolean {
      texts++;
      if (stage < 1) return true;
      const data = walkData ?? node.data;
      if (!couldHoldIp(data)) return true;
      candidates++;
      if (stage < 2) return true;
      const matches = find(data);
      occurrences += matches.length;
      if (stage < 4 || matches.length === 0) return true;
      const parent = walkParent !== undefined ? walkParent : node.parentNode?.nodeType === Node.ELEMENT_NODE ? (node.parentNode as Element) : null;
      // As the scanner: a plain row the walk names is asked directly (thread13).
      let row = farRows && walkRow && farRows.farRowOf(walkRow) === walkRow ? walkRow : null;
      if (!row && farRows) {
        const p = parent ?? (walkRow ? node.parentElement : null);
        row = p ? farRows.farRowOf(p) : null;
      }
      store.setMatches(node, matches, change, row);
      if (stage < 5) return true;
      trackFarRows(farRows!, change.farAdded ?? []);
      for (const occ of change.added) {
        const el = elementOf(occ);
        if (el) tracker.track(el, occ);
        if (stage >= 6) store.rangeOf(occ);
      }
      change = emptyChange();
      return true;
    },
    shadowRoot() {},
  };
  new SubtreeWalk(document.body, visitor).step(() => false);
  if (pending) farRows!.trackRow(pending.row, pending.texts);
  pending = null;
  return { texts, candidates, occurrences };
}

(window as unknown as { runStage: typeof runStage }).runStage = runStage;
