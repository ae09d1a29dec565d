/**
 * Stand-ins for browser features happy-dom lacks (Highlight, CSS.highlights, StaticRange) and
 * for IntersectionObserver, whose geometry a DOM without layout cannot compute. They record
 * what the code under test did so tests can assert on it.
 */
import type { HighlighterEnv } from '@/lib/page/marks/highlighter';
import type { RangeFactory } from '@/lib/page/occurrences/occurrence-store';
import type { TimeSlicer } from '@/lib/page/scanning/time-slicer';
import { listItemOf, type Nearness, type NearTracker, type NearTrackerOptions } from '@/lib/page/nearness/near-tracker';

export class FakeHighlight extends Set<AbstractRange> {
  priority = 0;
  type = 'highlight';
}

export interface FakeEnv extends HighlighterEnv {
  registry: HighlightRegistry;
  names: Map<string, FakeHighlight>;
}

export function fakeHighlighterEnv(): FakeEnv {
  const names = new Map<string, FakeHighlight>();
  return {
    names,
    registry: names as unknown as HighlightRegistry,
    createHighlight: () => new FakeHighlight() as unknown as Highlight,
    createSheet: () => new CSSStyleSheet(),
  };
}

/** A plain object with StaticRange's fields. */
export const fakeRangeFactory: RangeFactory = (node, start, end) =>
  ({ startContainer: node, startOffset: start, endContainer: node, endOffset: end, collapsed: start === end }) as AbstractRange;

/** Never yields: the whole scan runs in one go (what tests of results want). */
export const eagerSlicer: TimeSlicer = { begin() {}, expired: () => false, pause: async () => {} };

/** Yields after every check: forces the scanner through its resume path. */
export function tinySlicer(): TimeSlicer & { pauses: number } {
  const s = {
    pauses: 0,
    begin() {},
    expired: () => true,
    async pause() {
      s.pauses++;
      await Promise.resolve();
    },
  };
  return s;
}

/** A near tracker the test drives by hand: `reveal(els)` / `hide(els)` play the observer. */
/**
 * `farRows`: the whole-page scan holds text of rows not near (rowsNear) without occurrences,
 * as with the real tracker; off by default, so tests that reveal tracked cells see them all.
 */
export function fakeTracker<T>(opts: { farRows?: boolean } = {}) {
  const tracked = new Map<Element, Set<T>>();
  /** Rows holding far texts, with how many. */
  const farRows = new Map<Element, number>();
  const nearRows = new Set<Element>();
  const state = new Map<Element, Nearness>();
  const parked = new Set<Element>();
  let compactions = 0;
  let options: Pick<NearTrackerOptions<T>, 'onNear' | 'onFar' | 'onRowsNear'> = { onNear: () => {}, onFar: () => {} };
  const create = (o: NearTrackerOptions<T>): NearTracker<T> => {
    options = o;
    return {
      track(el, item) {
        let set = tracked.get(el);
        if (!set) tracked.set(el, (set = new Set()));
        set.add(item);
        return state.get(el) ?? null;
      },
      untrack(el, item) {
        // Emptied elements are parked, keeping their state, until releaseParked (as the real one).
        const items = tracked.get(el);
        items?.delete(item);
        if (items?.size === 0) parked.add(el);
      },
      farRowOf(el) {
        if (!opts.farRows || state.has(el)) return null;
        const row = listItemOf(el);
        return nearRows.has(row) ? null : row;
      },
      trackRow(row, texts) {
        farRows.set(row, (farRows.get(row) ?? 0) + texts);
        if (nearRows.has(row)) options.onRowsNear?.([row]);
      },
      untrackRow(row) {
        const left = (farRows.get(row) ?? 0) - 1;
        if (left > 0) farRows.set(row, left);
        else farRows.delete(row);
      },
      relocate() {},
      compact() {
        compactions++;
      },
      releaseParked() {
        // As the real one, whose parking time never runs out here: forgotten once off the page.
        for (const el of parked) {
          if (el.isConnected && !tracked.get(el)?.size) continue;
          parked.delete(el);
          if (tracked.get(el)?.size) continue;
          tracked.delete(el);
          state.delete(el);
        }
      },
      nearnessOf(el) {
        const own = state.get(el);
        if (own) return own;
        if (tracked.has(el)) return 'far';
        // As the real one: an untracked element is where its row is, if another cell tracks it.
        const row = listItemOf(el);
        if (farRows.has(row)) return nearRows.has(row) ? 'near' : 'far';
        let rowTracked = false;
        for (const t of tracked.keys()) {
          if (!row.contains(t)) continue;
          if (state.has(t)) return 'near';
          rowTracked = true;
        }
        return rowTracked ? 'far' : 'unknown';
      },
      visibleElements() {
        return [...state].filter(([, n]) => n === 'visible').map(([el]) => el);
      },
      replay() {
        for (const nearness of ['visible', 'near'] as const) {
          const items = [...state].filter(([, n]) => n === nearness).flatMap(([el]) => [...(tracked.get(el) ?? [])]);
          if (items.length) options.onNear(items, nearness);
        }
      },
      disconnect() {
        tracked.clear();
      },
    };
  };
  return {
    create,
    tracked,
    farRows,
    /** Rows come near (their chunk, for the real tracker): the far ones are named. */
    rowsNear(rows: Iterable<Element>) {
      const named: Element[] = [];
      for (const row of rows) {
        nearRows.add(row);
        if (farRows.has(row)) named.push(row);
      }
      if (named.length) options.onRowsNear?.(named);
    },
    /** How many times the lens asked the tracker to resize its maps. */
    get compactions() {
      return compactions;
    },
    reveal(elements: Iterable<Element>, nearness: Nearness = 'visible') {
      const items: T[] = [];
      for (const el of [...elements]) {
        if (state.get(el) === nearness) continue;
        state.set(el, nearness);
        items.push(...(tracked.get(el) ?? []));
      }
      if (items.length) options.onNear(items, nearness);
    },
    hide(elements: Iterable<Element>) {
      const items: T[] = [];
      for (const el of [...elements]) {
        if (!state.delete(el)) continue;
        items.push(...(tracked.get(el) ?? []));
      }
      if (items.length) options.onFar(items);
    },
  };
}
