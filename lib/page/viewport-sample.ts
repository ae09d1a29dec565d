/**
 * What is on screen now, found without walking the page: the elements at a grid of points over
 * the viewport (`elementsFromPoint` uses the layout the browser already has), each raised to its
 * row (`listItemOf`). The scanner reads these first (issue 16: work follows what the analyst
 * sees) and, past the page limits, only these ("marking visible ones only", issue 10).
 */
import { listItemOf } from './near-tracker';

/**
 * 3 × 20 points, one every 40 px down an 800 px viewport. Each `elementFromPoint` is a hit test,
 * which on a 10,000-row table costs about 3 ms (bench page-profile: 6 × 32 points were a quarter
 * of the content script's time there, on every scroll). Rows between sampled ones come from
 * `withRowsBetween`, so a list of rows shorter than the step is still read whole.
 */
const COLUMNS = 3;
const ROWS = 20;

export function sampleViewport(doc: Document, win: Pick<Window, 'innerWidth' | 'innerHeight'>): Element[] {
  const found = new Set<Element>();
  const width = win.innerWidth;
  const height = win.innerHeight;
  if (!width || !height || typeof doc.elementFromPoint !== 'function') return [];
  for (let r = 0; r < ROWS; r++) {
    const y = ((r + 0.5) * height) / ROWS;
    for (let c = 0; c < COLUMNS; c++) {
      const x = ((c + 0.5) * width) / COLUMNS;
      const hit = doc.elementFromPoint(x, y);
      // The body or the root is no row: that would be the whole page again.
      if (!hit || hit === doc.body || hit === doc.documentElement) continue;
      found.add(listItemOf(hit));
    }
  }
  // A point between cells hits the table itself: an element holding other found rows is the
  // list, not a row (scanning it would be the whole page again).
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
