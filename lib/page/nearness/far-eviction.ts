/**
 * Past the page's limit on addresses, the occurrences far from the screen are dropped (they are
 * scanned again if they come back into view), so memory stays bounded on a page that grows
 * forever. In time slices at background priority: on the cells page (200,000 addresses)
 * dropping the 50,000 held ones in one go was one 133 ms task.
 */
import { ELEMENT_NODE } from '../scanning/dom-constants';
import { changeSize, emptyChange, type OccurrenceStore, type StoreChange } from '../occurrences/occurrence-store';
import type { TimeSlicer } from '../scanning/time-slicer';
import type { Nearness } from './near-tracker';

/** Held texts checked between two looks at the clock while dropping far ones. */
const EVICT_CLOCK_EVERY = 32;
/** Dropped occurrences handed on (highlights, tracker) in pieces of at most this many. */
const EVICT_PIECE = 256;

export interface FarEviction {
  /** Drops far occurrences if the store is past the size that calls for it and none is running. */
  check(): void;
  /** The page reached its limits: from now on the store is held to maxOccurrences. */
  arm(): void;
}

/**
 * `apply` hands dropped occurrences on (highlights, tracker); `signal` ends a run that is
 * pausing. Positional parameters: the content script's size is held to a limit, and a
 * parameter's name is minified where an object's keys are not.
 */
export function farEviction(
  store: OccurrenceStore,
  nearnessOf: (element: Element) => Nearness | 'far' | 'unknown',
  slicer: TimeSlicer,
  apply: (change: StoreChange) => void,
  signal: AbortSignal,
  maxOccurrences: number,
): FarEviction {
  // Nothing is dropped before the page reaches its limits (arm).
  let evictAt = Infinity;
  let evicting = false;

  /** Hands dropped occurrences on; returns a fresh change to fill. */
  const handOn = (change: StoreChange): StoreChange => {
    if (changeSize(change) === 0) return change;
    apply(change);
    return emptyChange();
  };

  const isFarText = (node: Node): boolean => {
    const parent = node.parentNode;
    const el = parent?.nodeType === ELEMENT_NODE ? (parent as Element) : ((parent as ShadowRoot | null)?.host ?? null);
    return !el || nearnessOf(el) === 'far';
  };

  const evict = async (): Promise<void> => {
    evicting = true;
    let change = emptyChange();
    let checked = 0;
    slicer.begin();
    try {
      // The store's live key order: texts held while this pauses are checked too.
      for (const node of store.nodes()) {
        if (isFarText(node)) store.forgetNode(node, change);
        if (changeSize(change) >= EVICT_PIECE) change = handOn(change);
        if (++checked % EVICT_CLOCK_EVERY !== 0 || !slicer.expired()) continue;
        change = handOn(change);
        await slicer.pause('background');
        if (signal.aborted) return;
      }
      handOn(change);
    } finally {
      evicting = false;
    }
    // What is near may itself be over the limit: wait for twice as much before trying again.
    evictAt = Math.max(maxOccurrences, store.occurrenceCount * 2);
  };

  return {
    check() {
      if (store.occurrenceCount > evictAt && !evicting) void evict();
    },
    arm() {
      evictAt = maxOccurrences;
    },
  };
}
