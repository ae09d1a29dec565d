/**
 * What is on screen now, found without walking the page: the elements at a grid of points over
 * the viewport (`elementsFromPoint` uses the layout the browser already has), each raised to its
 * row (`listItemOf`). The scanner reads these first (work follows what the analyst
 * sees) and, past the page limits, only these ("marking visible ones only").
 */
import { listItemOf } from './near-tracker';

/**
 * 3 × 32 points at most, one every 25 px down an 800 px viewport. Each `elementFromPoint` is a
 * hit test, which on a 10,000-row table costs about 3 ms (bench page-profile: 6 × 32 points were
 * a quarter of the content script's time there, on every scroll). Rows between sampled ones come
 * from `withRowsBetween`, so a list of rows shorter than the step is still read whole.
 * ROWS stays a power of two: in the middle-out, coarse-to-fine order the top row then comes
 * second. With 20 rows it came fifth, and on a page whose hit tests are slow (a clipped block
 * of 1,000,000 text nodes under 8 rows at the top) the time budget ran out before any point
 * reached the rows, which were never marked (page-hostile.spec.ts).
 */
const COLUMNS = 3;
const ROWS = 32;
/**
 * Hit testing is not always cheap: a point over a 50,000-row table cost about 3 ms in Chromium
 * (192 points: 500-600 ms, measured on test/fixtures/hostile/cells.html), which was
 * the cells page's biggest cost. So points are tried coarse to fine, a point over a list already
 * found is not hit-tested again, and the sample stops after this much time (what it found so far
 * is scanned first; the whole-page scan still reads the rest, unless past the page limits).
 */
const BUDGET_MS = 8;

interface Box {
  left: number;
  right: number;
  top: number;
  bottom: number;
}

export interface SampleOptions {
  /** Injectable for tests. */
  now?: () => number;
  budgetMs?: number;
}

export function sampleViewport(doc: Document, win: Pick<Window, 'innerWidth' | 'innerHeight'>, options: SampleOptions = {}): Element[] {
  const found = new Set<Element>();
  const width = win.innerWidth;
  const height = win.innerHeight;
  if (!width || !height || typeof doc.elementFromPoint !== 'function') return [];
  const now = options.now ?? (() => performance.now());
  const deadline = now() + (options.budgetMs ?? BUDGET_MS);
  const covered: Box[] = [];
  // From the middle of the screen out: the first points are the likeliest to land on rows.
  for (const r of coarseToFine(ROWS).map((i) => (i + ROWS / 2) % ROWS)) {
    const y = ((r + 0.5) * height) / ROWS;
    for (let c = 0; c < COLUMNS; c++) {
      const x = ((c + 0.5) * width) / COLUMNS;
      if (covered.some((b) => x >= b.left && x <= b.right && y >= b.top && y <= b.bottom)) continue;
      if (now() > deadline) return rowsOf(found);
      const hit = doc.elementFromPoint(x, y);
      // The body or the root is no row: that would be the whole page again.
      if (!hit || hit === doc.body || hit === doc.documentElement) continue;
      // A point in the gap between cells hits the table: its row at that height, from layout.
      const row = rowAt(hit, y) ?? listItemOf(hit);
      found.add(row);
      const span = isListItem(row) ? visibleSpan(row, height) : null;
      if (span) {
        found.add(span.first);
        found.add(span.last);
        covered.push(span.box);
      }
    }
  }
  return rowsOf(found);
}

/**
 * When `hit` is a list or holds one as a child (a table's body), the item at height `y`, found
 * by bisecting its children's rects (a 50,000-row table: 16 rect reads); else null. Items are
 * assumed laid out top to bottom; when they are not, the result is checked against `y`.
 */
function rowAt(hit: Element, y: number): Element | null {
  let list: Element | null = null;
  for (let c: Element | null = hit, n = 0; c && n < 4; c = n === 0 ? hit.firstElementChild : c.nextElementSibling, n++) {
    if (isListItem(c.firstElementChild)) {
      list = c;
      break;
    }
  }
  if (!list) return null;
  const items = list.children;
  let lo = 0;
  let hi = items.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (items[mid]!.getBoundingClientRect().bottom < y) lo = mid + 1;
    else hi = mid;
  }
  const row = items[lo];
  if (!row) return null;
  // y may fall in the spacing above the row (the gap the point hit); not further than a row.
  const box = row.getBoundingClientRect();
  return box.bottom >= y && box.top - y <= Math.max(box.height, 1) ? row : null;
}

/** As listItemOf decides: a parent with at least 8 element children (counted up to 8 only). */
function isListItem(row: Element | null): boolean {
  let n = 0;
  for (let c = row?.parentElement?.firstElementChild; c && n < 8; c = c.nextElementSibling) n++;
  return n >= 8;
}

/** 0, n/2, n/4, 3n/4, …: every index once, each pass halving the gaps. */
function coarseToFine(n: number): number[] {
  const order: number[] = [];
  const taken = new Set<number>();
  // Power-of-two steps whatever n is, so every index comes exactly once (n = 20 has no halving
  // down to 1 in integers).
  for (let step = 2 ** Math.ceil(Math.log2(Math.max(1, n))); step >= 1; step /= 2) {
    for (let i = 0; i < n; i += step) {
      if (taken.has(i)) continue;
      taken.add(i);
      order.push(i);
    }
  }
  return order;
}

/**
 * The first and last rows of `row`'s list on screen, from layout the browser already has
 * (a few dozen rect reads), and the box they cover; null when the row has no box.
 */
function visibleSpan(row: Element, height: number): { first: Element; last: Element; box: Box } | null {
  const own = row.getBoundingClientRect();
  if (own.width === 0 && own.height === 0) return null;
  const box: Box = { left: own.left, right: own.right, top: own.top, bottom: own.bottom };
  const extend = (el: Element, step: (e: Element) => Element | null, onScreen: (b: DOMRect) => boolean): Element => {
    let edge = el;
    let seen = 0;
    for (let next = step(el); next && seen < MAX_ROWS; next = step(next), seen++) {
      const b = next.getBoundingClientRect();
      // Rows with no box (hidden, collapsed) are passed over; the first off-screen one ends it.
      if (b.width === 0 && b.height === 0) continue;
      if (!onScreen(b)) break;
      edge = next;
      box.left = Math.min(box.left, b.left);
      box.right = Math.max(box.right, b.right);
      box.top = Math.min(box.top, b.top);
      box.bottom = Math.max(box.bottom, b.bottom);
    }
    return edge;
  };
  const first = extend(row, (e) => e.previousElementSibling, (b) => b.bottom > 0);
  const last = extend(row, (e) => e.nextElementSibling, (b) => b.top < height);
  return { first, last, box };
}

/**
 * A point between cells hits the table itself: an element holding other found rows is the
 * list, not a row (scanning it would be the whole page again).
 */
function rowsOf(found: Set<Element>): Element[] {
  const containers = new Set<Element>();
  for (const el of found) for (let p = el.parentElement; p; p = p.parentElement) if (found.has(p)) containers.add(p);
  const rows = [...found].filter((el) => !containers.has(el));
  return withRowsBetween(rows);
}

/** Rows before the first and after the last sampled one of a list (the near margin). */
const MARGIN_ROWS = 8;
/** At most this many rows per sample (a list of tiny rows). */
const MAX_ROWS = 2_000;

/**
 * The sample points can fall between short rows: every row of a list from the first sampled
 * one to the last, plus a few on either side.
 */
function withRowsBetween(rows: Element[]): Element[] {
  const byList = new Map<Node, Element[]>();
  const out = new Set<Element>();
  for (const row of rows) {
    const parent = row.parentNode;
    if (!parent) continue;
    let list = byList.get(parent);
    if (!list) byList.set(parent, (list = []));
    list.push(row);
  }
  for (const list of byList.values()) {
    if (list.length < 2) {
      out.add(list[0]!);
      continue;
    }
    const inList = new Set(list);
    let first = list[0]!;
    for (const row of list) if (row.compareDocumentPosition(first) & Node.DOCUMENT_POSITION_FOLLOWING) first = row;
    for (let i = 0; i < MARGIN_ROWS && first.previousElementSibling; i++) first = first.previousElementSibling;
    let after = -1;
    for (let row: Element | null = first; row && out.size < MAX_ROWS; row = row.nextElementSibling) {
      out.add(row);
      if (inList.delete(row) && inList.size === 0) after = MARGIN_ROWS;
      if (after >= 0 && after-- === 0) break;
    }
  }
  return [...out];
}
