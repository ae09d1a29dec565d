/**
 * The marked IPs on screen as lines of text, for the keyboard and the card's placement: the
 * shortcut walks them in reading order (top line first, left to right within a line), and the
 * card keeps clear of the marks on the lines just above and below the one it points at. Pure
 * geometry over viewport rectangles; visible-marks.ts reads them from the page.
 */
import type { Rect } from './card-placement';

export interface Placed<T> {
  item: T;
  /** The mark's first box on screen, in viewport pixels. */
  rect: Rect;
}

/**
 * Groups marks into lines: a mark whose vertical middle lies within a line's box belongs to
 * it (baselines of mixed fonts, a cell's padding, a badge beside the text do not line up to
 * the pixel). Lines top to bottom, marks left to right.
 */
export function linesOf<T>(marks: readonly Placed<T>[]): Placed<T>[][] {
  const byTop = [...marks].sort((a, b) => a.rect.y - b.rect.y || a.rect.x - b.rect.x);
  const lines: { top: number; bottom: number; marks: Placed<T>[] }[] = [];
  for (const mark of byTop) {
    const middle = mark.rect.y + mark.rect.height / 2;
    const line = lines[lines.length - 1];
    if (line && middle >= line.top && middle <= line.bottom) {
      line.marks.push(mark);
      line.bottom = Math.max(line.bottom, mark.rect.y + mark.rect.height);
    } else {
      lines.push({ top: mark.rect.y, bottom: mark.rect.y + mark.rect.height, marks: [mark] });
    }
  }
  return lines.map((l) => l.marks.sort((a, b) => a.rect.x - b.rect.x));
}

export function readingOrder<T>(marks: readonly Placed<T>[]): Placed<T>[] {
  return linesOf(marks).flat();
}

/**
 * The mark after `current` in reading order, wrapping after the last. `current` off screen (or
 * none): the first mark after where it was, else the first on screen.
 */
export function nextMark<T>(marks: readonly Placed<T>[], current?: { item: T; rect?: Rect }, same: (a: T, b: T) => boolean = Object.is): Placed<T> | undefined {
  const ordered = readingOrder(marks);
  if (!current) return ordered[0];
  const at = ordered.findIndex((m) => same(m.item, current.item));
  if (at >= 0) return ordered[(at + 1) % ordered.length];
  const was = current.rect;
  if (!was) return ordered[0];
  // Where the current one would sit in reading order: before the first mark below its line or right of it on its line.
  const middle = was.y + was.height / 2;
  const after = ordered.find((m) => m.rect.y > middle || (m.rect.y + m.rect.height >= middle && m.rect.x > was.x));
  return after ?? ordered[0];
}

/**
 * The boxes of the marks on the nearest line above and the nearest line below the anchor's
 * line: the IPs an analyst reads next to the one the card is about (the rows above and below
 * in a table), which the card should not cover. Marks on the anchor's own line are not
 * neighbours: they are the row itself.
 */
export function neighbourRects(marks: readonly Placed<unknown>[], anchor: Rect): Rect[] {
  const middle = anchor.y + anchor.height / 2;
  const lines = linesOf(marks);
  const top = (line: Placed<unknown>[]) => Math.min(...line.map((m) => m.rect.y));
  const bottom = (line: Placed<unknown>[]) => Math.max(...line.map((m) => m.rect.y + m.rect.height));
  const above = lines.filter((l) => bottom(l) <= middle && !onLine(l, middle)).pop();
  const below = lines.find((l) => top(l) >= middle && !onLine(l, middle));
  return [...(above ?? []), ...(below ?? [])].map((m) => m.rect);

  function onLine(line: Placed<unknown>[], y: number): boolean {
    return top(line) <= y && y <= bottom(line);
  }
}
