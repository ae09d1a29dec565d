/**
 * Which marked text is on screen or about to be. Marks and lookups exist only there:
 *   - Chrome re-validates every range of every highlight in each frame where a highlight
 *     changed (measured here: 40,000 ranges make such a frame take ~390 ms, 1 range ~1 ms), so
 *     the highlights hold only the ranges near the viewport, and stay small on a 10,000-row page;
 *   - IPs are looked up as they approach the viewport, on-screen ones first.
 * An IntersectionObserver per element would be the obvious tool, but its cost is per target
 * and per frame (40,000 cells: 177 ms per scrolled frame; 10,000 rows: 45 ms). So two levels:
 *   1. coarse: elements are grouped by their list item (a row: the ancestor whose parent has
 *      many children), consecutive items into chunks of CHUNK_SIZE; one observer watches only
 *      the first and last item of each chunk. A chunk is near when either end is, or when the
 *      chunk spans the whole (margin-extended) viewport;
 *   2. fine: only the elements of near chunks are observed one by one. This level sees hidden
 *      elements (collapsed JSON never intersects) and decides visible / near / far.
 * About 2 × rows / CHUNK_SIZE coarse targets plus a few hundred fine ones, whatever the page.
 */

import { DOCUMENT_POSITION_FOLLOWING } from '../scanning/dom-constants';
import { compactMap, SetMap } from '../occurrences/set-map';

export type Nearness = 'visible' | 'near';

export interface NearTracker<T> {
  /** Starts tracking; returns the element's nearness now, when already known. */
  track(element: Element, item: T): Nearness | null;
  /**
   * Stops tracking an item. An element left with none is parked, not forgotten: it keeps its
   * observation and its known nearness until `releaseParked`, so text a re-render put in it
   * again is shown at once by `track` (see "Why elements are parked" below).
   */
  untrack(element: Element, item: T): void;
  /**
   * The page moved an element (a list recycling its bottom rows to the top, a reordered keyed
   * list): if it is a row we track, it leaves its chunk, whose ends no longer say where it is,
   * for a chunk where it stands now.
   */
  relocate(element: Element): void;
  /**
   * A row of the whole-page scan not known to be near: null when it is near (read
   * the text fully), else the row to hold the text under (trackRow).
   */
  farRowOf(element: Element): Element | null;
  /**
   * Tracks a row for `texts` more texts held without occurrences (a row's texts come one after
   * another in a scan: one call for them). When the row's chunk comes near (or is near
   * already), `onRowsNear` names it, to be read again fully.
   */
  trackRow(row: Element, texts: number): void;
  /** One text held under the row left (read again, changed, gone); the row is kept while it has any or tracked cells. */
  untrackRow(row: Element): void;
  /** Forgets parked elements that left the page or were parked longer than `parkMs`. */
  releaseParked(): void;
  /**
   * Resizes the per-element and per-row maps to what they hold now. Called when a page that
   * removed many rows has gone quiet: the maps' tables stay sized for the peak.
   */
  compact(): void;
  /**
   * Where a tracked element is now; 'unknown' until the observers have said (a new element).
   * An element not tracked (a cell holding no IP, such as a live tail's time column) is where
   * its row is, when the row is tracked through another cell: 'near' when the row's chunk is
   * near, 'far' when it is known far; 'unknown' for a row never seen (a row the page just added).
   */
  nearnessOf(element: Element): Nearness | 'far' | 'unknown';
  /** Calls onNear again for everything near the viewport now (visible first). */
  replay(): void;
  /** The tracked elements the observers last reported on screen (a frame ago at most). */
  visibleElements(): Element[];
  disconnect(): void;
}

export interface NearTrackerOptions<T> {
  onNear: (items: T[], nearness: Nearness) => void;
  onFar: (items: T[]) => void;
  /** Rows tracked by trackRow whose chunk came near. */
  onRowsNear?: (rows: Element[]) => void;
  /**
   * Whether a scroller around the element is away from its top (screen-sampler.ts): an element
   * new to the tracker, put above a row on screen, is taken for on screen only where none is.
   */
  scrolledAway?: (element: Element) => boolean;
  /** How far beyond the viewport counts as "approaching" (CSS margin syntax). */
  margin?: string;
  chunkSize?: number;
  /** Injectable for tests. */
  createObserver?: (cb: IntersectionObserverCallback, init: IntersectionObserverInit) => IntersectionObserver;
  viewport?: () => { width: number; height: number };
  /** How long an element with no items keeps its tracking (PARK_MS). */
  parkMs?: number;
  now?: () => number;
}

/** One viewport above and one below. */
const MARGIN = '100% 0px 100% 0px';
const CHUNK_SIZE = 32;
/** An element whose parent has at least this many children is a list item (a row). */
const LIST_MIN_CHILDREN = 8;
const MAX_CLIMB = 6;
/**
 * Why elements are parked ("marks vanish after scrolling away and back"): a console
 * that re-renders replaces the text nodes of every row. The old nodes are swept first (their
 * occurrences leave, and so did their elements' tracking), the new ones are scanned a slice
 * later, and an element tracked anew waits for two observer round trips (coarse, then fine)
 * before its mark is painted. On a 1,500-row list re-rendered every 200–1000 ms, the page
 * re-rendered again before that, forever: marks on screen fell to none. A parked element still
 * knows it is visible, so its new text is marked in the same slice that reads it.
 */
const PARK_MS = 2_000;

type EndState = 'unknown' | 'in' | 'side' | 'above' | 'below';

interface Chunk {
  items: Element[];
  first: EndState;
  last: EndState;
  near: boolean;
  container: ParentNode | null;
}

/**
 * At least `n` element children? Counted by walking siblings, not `childElementCount`, for a
 * parent known to be a list: that walks all children each time (a 10,000-row tbody cost 3.7 s
 * over one scan in the benchmark).
 */
function hasChildren(parent: Element, n: number): boolean {
  let child = parent.firstElementChild;
  for (let i = 0; i < n; i++) {
    if (!child) return false;
    child = child.nextElementSibling;
  }
  return true;
}

/**
 * Whether a parent is a list (LIST_MIN_CHILDREN children or more), by parent. The cells of a
 * row asked one after another (a scan slice, an observer report) climbed through the same
 * ancestors and counted their children each time. Kept until the next microtask only, so a
 * page that adds or removes children between tasks is never answered from a stale count.
 */
let listCounts: Map<Element, boolean> | null = null;
/**
 * The row listItemOf last reached by climbing (or a wide row taken for the item), kept as long as
 * listCounts: a row's cells come one after another in a scan, and each climbed through the
 * row to its list (two map lookups and a parent read per cell; listItemOf and its list test
 * were ~30 ms of the 10,000-row scan's profile). A child of that row climbs to it.
 */
let lastRow: Element | null = null;

function isList(parent: Element): boolean {
  if (!listCounts) {
    listCounts = new Map();
    queueMicrotask(() => {
      listCounts = null;
      lastRow = null;
    });
  }
  let known = listCounts.get(parent);
  if (known === undefined) {
    known = countsAsList(parent);
    listCounts.set(parent, known);
  }
  return known;
}

/** Parents found to be lists in an earlier count (see countsAsList). */
const knownLists = new WeakSet<Element>();

/**
 * A parent's list test. A row or a cell is counted by `childElementCount`: one call that returns
 * a number, where walking its children made one call per child, each returning an element, and
 * in the content script's isolated world each element returned is looked up in that world's
 * wrapper map (7 calls per row of the 10,000-row table, ~10 ms of its first pass).
 * But childElementCount reads every child: a list (a 10,000-row tbody, a grid of 200,000 cells)
 * is counted so once, then by the walk that stops at LIST_MIN_CHILDREN.
 */
function countsAsList(parent: Element): boolean {
  if (knownLists.has(parent)) return hasChildren(parent, LIST_MIN_CHILDREN);
  const list = parent.childElementCount >= LIST_MIN_CHILDREN;
  if (list) knownLists.add(parent);
  return list;
}

/** The row-like ancestor of an element: what scrolls by as one piece. */
export function listItemOf(element: Element): Element {
  let item = element;
  for (let i = 0; i < MAX_CLIMB; i++) {
    const parent = item.parentElement;
    if (!parent) break;
    // Not a list (it was climbed through), its parent one: the row, as for its sibling cell.
    if (parent === lastRow && i < MAX_CLIMB - 1) return parent;
    if (isList(parent)) {
      // A wide row (eight cells or more) in a list of rows, as consoles' tables have: the row
      // scrolls by as one piece, not its cells. With the cells as items each row was a chunk of
      // its own, its address cells both chunk ends: 10,002 coarse targets on the React tail's
      // 5,000 rows, all computed in every scrolled frame. Only a row the page calls one (<tr>,
      // role=row): a long <ul> in a container of many children is a list of rows itself, and
      // taken for a row it made all its items one.
      const outer = parent.parentElement;
      if (outer && (parent.localName == 'tr' || parent.getAttribute('role') == 'row') && isList(outer)) item = parent;
      if (item !== element) lastRow = item;
      return item;
    }
    item = parent;
  }
  return element;
}

export function createNearTracker<T>(options: NearTrackerOptions<T>): NearTracker<T> {
  const make = options.createObserver ?? ((cb, init) => new IntersectionObserver(cb, init));
  const viewport = options.viewport ?? (() => ({ width: window.innerWidth, height: window.innerHeight }));
  const chunkSize = options.chunkSize ?? CHUNK_SIZE;
  const margin = options.margin ?? MARGIN;
  const parkMs = options.parkMs ?? PARK_MS;
  const now = options.now ?? (() => performance.now());
  // Consoles scroll inside their own containers (a virtualised grid), whose clipping the root
  // margin does not extend; scrollMargin does (Chrome 120+). One or the other, never both:
  // Chromium applies scrollMargin to the viewport too, on top of rootMargin, and with both at
  // 100% a window-scrolled page's band reached three screens each side (Chromium 156, 800 px
  // screen: cells from -3,220 to +4,000 px intersecting, 362 rows of a table where 122 are
  // within one screen), every cell in it observed, marked and looked up.
  const init = (typeof IntersectionObserver == 'function' && 'scrollMargin' in IntersectionObserver.prototype ? { scrollMargin: margin } : { rootMargin: margin }) as IntersectionObserverInit;

  // SetMaps, not a Set per element and per row: most hold one value.
  const itemsOf = new SetMap<Element, T>();
  let itemOfElement = new Map<Element, Element>();
  const elementsOfItem = new SetMap<Element, Element>();
  let chunkOfItem = new Map<Element, Chunk>();
  let openChunk = new Map<ParentNode, Chunk>();
  let fineState = new Map<Element, Nearness>();
  /** Fine targets the observer has reported at least once (observe() always reports once). */
  let fineReported = new Set<Element>();
  /**
   * Elements tracked once and forgotten since (see the guess in track): recorded when they are
   * forgotten, which is rare, not each time a scan tracks a new element.
   */
  const forgotten = new WeakSet<Element>();
  /** Elements whose items all left, with when: still tracked until releaseParked. */
  let parked = new Map<Element, number>();
  /** Rows tracked by trackRow, with how many far texts each holds. */
  let farRows = new Map<Element, number>();
  /**
   * Rows whose far texts all left, with when: kept in their chunk until releaseParked, as
   * parked elements are. A live tail replaces every text each second; the old ones are swept
   * a slice before the new ones are read, and dropping the row in between remade its chunks.
   */
  let parkedRows = new Map<Element, number>();

  const fine = make((entries) => {
    const visible: T[] = [];
    const near: T[] = [];
    const far: T[] = [];
    const { width, height } = viewport();
    for (const entry of entries) {
      if (!itemsOf.has(entry.target)) continue;
      const items = itemsOf.values(entry.target);
      fineReported.add(entry.target);
      if (entry.isIntersecting) {
        const r = entry.boundingClientRect;
        const nearness: Nearness = r.bottom > 0 && r.top < height && r.right > 0 && r.left < width ? 'visible' : 'near';
        const before = fineState.get(entry.target);
        fineState.set(entry.target, nearness);
        if (before !== nearness) appendAll(nearness === 'visible' ? visible : near, items);
      } else if (fineState.delete(entry.target)) {
        appendAll(far, items);
      }
    }
    if (visible.length) options.onNear(visible, 'visible');
    if (near.length) options.onNear(near, 'near');
    if (far.length) options.onFar(far);
  }, init);

  const coarse = make((entries) => {
    const touched = new Set<Chunk>();
    for (const entry of entries) {
      const chunk = chunkOfItem.get(entry.target);
      if (!chunk) continue;
      const state = classify(entry);
      if (chunk.items[0] === entry.target) chunk.first = state;
      if (chunk.items[chunk.items.length - 1] === entry.target) chunk.last = state;
      touched.add(chunk);
    }
    for (const chunk of touched) {
      // An end not reported yet (just re-observed) does not make a near chunk far: its rows on
      // screen would lose their marks until it is.
      const near = isNear(chunk);
      if (near || (chunk.first !== 'unknown' && chunk.last !== 'unknown')) setChunkNear(chunk, near);
    }
  }, init);

  /**
   * The fine observer's root reaches a viewport beyond the screen: an element that moves from
   * that band onto the screen stays inside its root, so it never reports again, and a grid's
   * recycled row that came on screen kept 'near' (its IPs were asked as background, with the
   * background's longer wait for company: lib/lookup/batcher.ts). This one watches the same
   * elements against the screen itself, and says only near <-> visible; the fine observer
   * still says near <-> far.
   */
  const onScreen = make((entries) => {
    const visible: T[] = [];
    const near: T[] = [];
    for (const entry of entries) {
      const before = fineState.get(entry.target);
      if (!before || !itemsOf.has(entry.target)) continue;
      const nearness: Nearness = entry.isIntersecting ? 'visible' : 'near';
      if (before === nearness) continue;
      fineState.set(entry.target, nearness);
      appendAll(nearness === 'visible' ? visible : near, itemsOf.values(entry.target));
    }
    if (visible.length) options.onNear(visible, 'visible');
    if (near.length) options.onNear(near, 'near');
  }, {});

  function observeFine(el: Element): void {
    fine.observe(el);
    onScreen.observe(el);
  }

  function unobserveFine(el: Element): void {
    fine.unobserve(el);
    onScreen.unobserve(el);
  }

  function setChunkNear(chunk: Chunk, near: boolean): void {
    if (near === chunk.near) return;
    chunk.near = near;
    if (near) rowsNear(chunk.items);
    const far: T[] = [];
    for (const item of chunk.items) {
      for (const el of elementsOfItem.values(item)) {
        if (near) {
          observeFine(el);
        } else {
          unobserveFine(el);
          fineReported.delete(el);
          if (fineState.delete(el)) appendAll(far, itemsOf.values(el));
        }
      }
    }
    if (far.length) options.onFar(far);
  }

  /** Names the far rows among these (they stay tracked until their texts are read again). */
  function rowsNear(items: readonly Element[]): void {
    const rows = items.filter((item) => farRows.has(item));
    if (rows.length) options.onRowsNear?.(rows);
  }

  /**
   * Watches a chunk's end afresh, so the observer reports where it is now. A new end may be
   * observed already (the other end of a two-row chunk), and observe() on an observed target
   * reports nothing: the end would stay 'unknown' until that row next crossed the margin, and
   * a chunk with an unknown end and a far one is far, its rows on screen unmarked and
   * unobserved (the same rows' marks vanished for good on a re-rendered list).
   */
  function observeEnd(item: Element): void {
    if (!newEnds) {
      newEnds = new Set();
      queueMicrotask(observeNewEnds);
    }
    newEnds.add(item);
  }

  /**
   * Rows that became an end of their chunk in this task are observed when the task ends, if
   * they still are one: a scan slice appends rows one by one, each its chunk's last
   * until the next, and Blink keeps an ElementIntersectionObserverData on every element ever
   * observed, unobserved or not (11,400 rows, ~1.6 MB on the 60k storm page). No report can
   * arrive before then anyway: observers report in a later task.
   */
  let newEnds: Set<Element> | null = null;

  function observeNewEnds(): void {
    const ends = newEnds!;
    newEnds = null;
    for (const item of ends) {
      const items = chunkOfItem.get(item)?.items;
      if (items?.[0] !== item && items?.[items.length - 1] !== item) continue;
      coarse.unobserve(item);
      coarse.observe(item);
    }
  }

  /**
   * A row that stopped being an end. One that became an end in this task was never observed
   * (observeNewEnds): no call then. A scan slice appends rows one by one, each the last end until
   * the next, and those native calls were ~11 ms of the 10,000-row scan's profile.
   */
  function unobserveEnd(item: Element, chunk: Chunk): void {
    if (newEnds?.has(item)) return;
    if (chunk.items[0] !== item && chunk.items[chunk.items.length - 1] !== item) coarse.unobserve(item);
  }

  function addItem(item: Element): void {
    const container = item.parentNode;
    let chunk = container ? openChunk.get(container) : undefined;
    const last = chunk?.items[chunk.items.length - 1];
    const follows = !!last && !!(last.compareDocumentPosition(item) & DOCUMENT_POSITION_FOLLOWING);
    if (!chunk || chunk.items.length >= chunkSize || !follows) {
      chunk = { items: [], first: 'unknown', last: 'unknown', near: false, container };
      if (container) openChunk.set(container, chunk);
    }
    chunk.items.push(item);
    chunkOfItem.set(item, chunk);
    if (last && chunk.items.length > 1) {
      unobserveEnd(last, chunk);
      chunk.last = 'unknown';
    }
    observeEnd(item);
  }

  function removeItem(item: Element): void {
    elementsOfItem.deleteKey(item);
    detachItem(item);
  }

  /**
   * Takes a row out of its chunk (its cells keep their tracking). A chunk's ends speak for its
   * middle only while its rows stay consecutive in the page.
   */
  function detachItem(item: Element): void {
    const chunk = chunkOfItem.get(item);
    chunkOfItem.delete(item);
    if (!chunk) return;
    const index = chunk.items.indexOf(item);
    const wasFirst = index === 0;
    const wasLast = index === chunk.items.length - 1;
    chunk.items.splice(index, 1);
    if (wasFirst || wasLast) coarse.unobserve(item);
    if (chunk.items.length === 0) {
      if (chunk.container && openChunk.get(chunk.container) === chunk) openChunk.delete(chunk.container);
      return;
    }
    if (wasFirst) {
      chunk.first = 'unknown';
      observeEnd(chunk.items[0]!);
    }
    if (wasLast) {
      chunk.last = 'unknown';
      observeEnd(chunk.items[chunk.items.length - 1]!);
    }
  }

  /**
   * An untracked element's row, as its chunk says (see nearnessOf). Without it, every text a
   * live tail re-rendered in its IP-less columns was 'unknown', so scanned as urgent: 5,000 of
   * them a second on a 5,000-event list, ahead of the new row at the top.
   */
  function nearnessOfRow(element: Element): 'near' | 'far' | 'unknown' {
    const chunk = chunkOfItem.get(listItemOf(element));
    if (!chunk) return 'unknown';
    if (chunk.near) return 'near';
    return chunk.first === 'unknown' || chunk.last === 'unknown' ? 'unknown' : 'far';
  }

  /**
   * Whether a row within four below `item` (the rows it pushed down, if the page inserted it;
   * the rows inserted with it are not tracked yet, the top one's cells read first) has a cell
   * on screen. When `item` is a cell (its row has LIST_MIN_CHILDREN cells or more: a console
   * table's), the rows are its row's next siblings.
   */
  function aboveVisible(item: Element): boolean {
    for (const first of [item.nextElementSibling, item.parentElement?.nextElementSibling]) {
      for (let row = first, n = 0; row && n < 4; row = row.nextElementSibling, n++) {
        for (let cell = row.firstElementChild, k = 0; cell && k < 16; cell = cell.nextElementSibling, k++) if (fineState.get(cell) === 'visible') return true;
      }
    }
    return false;
  }

  /** Stops tracking an element (its items all left, and it was parked long enough). */
  function forget(element: Element): void {
    forgotten.add(element);
    itemsOf.deleteKey(element);
    unobserveFine(element);
    fineReported.delete(element);
    fineState.delete(element);
    const item = itemOfElement.get(element)!;
    itemOfElement.delete(element);
    if (elementsOfItem.remove(item, element) > 0) return;
    // A row still holding far texts stays in its chunk, to be named when it comes near.
    if (farRows.has(item) || parkedRows.has(item)) elementsOfItem.deleteKey(item);
    else removeItem(item);
  }

  /** Takes out of `from` what left the page or was parked before `before`, and releases it. */
  function releaseFrom(from: Map<Element, number>, before: number, release: (element: Element) => void): void {
    for (const [element, at] of from) {
      if (element.isConnected && at > before) continue;
      from.delete(element);
      release(element);
    }
  }

  return {
    track(element, value) {
      parked.delete(element);
      if (!itemsOf.has(element)) {
        const item = listItemOf(element);
        itemOfElement.set(element, item);
        if (!chunkOfItem.has(item)) addItem(item);
        elementsOfItem.add(item, element);
        const chunk = chunkOfItem.get(item)!;
        // A row the page put above a row on screen (a live tail's new event above the rows it
        // pushed down) is taken for on screen until the observers say: waiting for them
        // was two frames (its chunk's end, then the cell), 1-2 s on a busy tail, with its
        // addresses unmarked, private ones without their "Not looked up" mark. An element new
        // to us is not, once its scroller has left its top: scroll anchoring keeps rows
        // inserted there above the screen, and their IPs asked as on screen went in calls of
        // their own (React tail scrolled: one call a run, of addresses never on screen). One
        // we tracked before did not move: a list that rewrites its rows' text shifts the text.
        if (!fineState.has(element) && aboveVisible(item) && (forgotten.has(element) || !options.scrolledAway?.(item))) {
          fineState.set(element, 'visible');
          setChunkNear(chunk, true);
        }
        if (chunk.near) observeFine(element);
      }
      itemsOf.add(element, value);
      return fineState.get(element) ?? null;
    },
    untrack(element, value) {
      if (!itemsOf.has(element)) return;
      if (itemsOf.remove(element, value) === 0) parked.set(element, now());
    },
    farRowOf(element) {
      if (fineState.has(element)) return null;
      const row = itemOfElement.get(element) ?? listItemOf(element);
      return chunkOfItem.get(row)?.near ? null : row;
    },
    trackRow(row, texts) {
      parkedRows.delete(row);
      farRows.set(row, (farRows.get(row) ?? 0) + texts);
      let chunk = chunkOfItem.get(row);
      if (!chunk) {
        addItem(row);
        chunk = chunkOfItem.get(row)!;
      }
      // Joined a chunk that is near already (the rows past the screen's, in the initial scan).
      if (chunk.near) rowsNear([row]);
    },
    untrackRow(row) {
      const left = (farRows.get(row) ?? 0) - 1;
      if (left > 0) return void farRows.set(row, left);
      farRows.delete(row);
      if (!elementsOfItem.has(row)) parkedRows.set(row, now());
    },
    relocate(element) {
      const chunk = chunkOfItem.get(element);
      // A row alone in its chunk, or the one the open chunk ends with, is where its ends say.
      if (!chunk || chunk.items.length === 1) return;
      detachItem(element);
      addItem(element);
    },
    releaseParked() {
      const before = now() - parkMs;
      releaseFrom(parked, before, forget);
      releaseFrom(parkedRows, before, (row) => {
        if (!farRows.has(row) && !elementsOfItem.has(row)) removeItem(row);
      });
    },
    compact() {
      itemsOf.compact();
      elementsOfItem.compact();
      itemOfElement = compactMap(itemOfElement);
      chunkOfItem = compactMap(chunkOfItem);
      openChunk = compactMap(openChunk);
      fineState = compactMap(fineState);
      fineReported = new Set(fineReported);
      parked = compactMap(parked);
      farRows = compactMap(farRows);
      parkedRows = compactMap(parkedRows);
    },
    nearnessOf(element) {
      const nearness = fineState.get(element);
      if (nearness) return nearness;
      const item = itemOfElement.get(element);
      if (!item) return nearnessOfRow(element);
      const chunk = chunkOfItem.get(item);
      if (!chunk) return 'unknown';
      if (chunk.near) return fineReported.has(element) ? 'far' : 'unknown';
      return chunk.first === 'unknown' || chunk.last === 'unknown' ? 'unknown' : 'far';
    },
    visibleElements() {
      const out: Element[] = [];
      for (const [element, nearness] of fineState) if (nearness === 'visible') out.push(element);
      return out;
    },
    replay() {
      const visible: T[] = [];
      const near: T[] = [];
      for (const [element, nearness] of fineState) appendAll(nearness === 'visible' ? visible : near, itemsOf.values(element));
      if (visible.length) options.onNear(visible, 'visible');
      if (near.length) options.onNear(near, 'near');
    },
    disconnect() {
      fine.disconnect();
      onScreen.disconnect();
      coarse.disconnect();
      itemsOf.clear();
      itemOfElement.clear();
      elementsOfItem.clear();
      chunkOfItem.clear();
      openChunk.clear();
      fineState.clear();
      fineReported.clear();
      parked.clear();
      farRows.clear();
      parkedRows.clear();
    },
  };
}

/**
 * One by one, never `push(...items)`: a spread passes every item as an argument on the stack,
 * and one element holding 150,000 IPs threw "Maximum call stack size exceeded".
 */
function appendAll<T>(into: T[], items: Iterable<T> | undefined): void {
  if (items) for (const item of items) into.push(item);
}

function classify(entry: IntersectionObserverEntry): EndState {
  if (entry.isIntersecting) return 'in';
  const root = entry.rootBounds;
  const r = entry.boundingClientRect;
  if (!root) return 'side';
  if (r.bottom < root.top) return 'above';
  if (r.top > root.bottom) return 'below';
  return 'side';
}

function isNear(chunk: Chunk): boolean {
  const { first, last } = chunk;
  if (first === 'in' || first === 'side' || last === 'in' || last === 'side') return true;
  return (first === 'above' && last === 'below') || (first === 'below' && last === 'above');
}
