import { describe, expect, it } from 'vitest';
import { chooseCardPlacement, overlapArea, type Rect } from '@/lib/page/card/card-placement';
import { linesOf, neighbourRects, nextMark, readingOrder, type Placed } from '@/lib/page/card/screen-marks';

const mark = (item: string, x: number, y: number, width = 90, height = 16): Placed<string> => ({ item, rect: { x, y, width, height } });

/** A SIEM table: one IP per row in the source column, some rows with a destination IP too. */
const table = [
  mark('row3-dst', 620, 142),
  mark('row1-src', 120, 102),
  mark('row2-src', 120, 122, 110),
  mark('row3-src', 120, 143, 80, 14), // a smaller font, one pixel lower: still row 3's line
  mark('row1-dst', 620, 101),
  mark('row4-src', 120, 162),
];

describe('reading order of the marks on screen', () => {
  it('goes line by line from the top, left to right within a line', () => {
    expect(readingOrder(table).map((m) => m.item)).toEqual(['row1-src', 'row1-dst', 'row2-src', 'row3-src', 'row3-dst', 'row4-src']);
    expect(linesOf(table).map((l) => l.length)).toEqual([2, 1, 2, 1]);
  });

  it('starts at the first mark, goes on to the next at each press and wraps after the last', () => {
    const seen: string[] = [];
    let current: { item: string } | undefined;
    for (let i = 0; i < 7; i++) {
      const next = nextMark(table, current)!;
      seen.push(next.item);
      current = { item: next.item };
    }
    expect(seen).toEqual(['row1-src', 'row1-dst', 'row2-src', 'row3-src', 'row3-dst', 'row4-src', 'row1-src']);
  });

  it('goes on from where the current mark was when it has left the screen', () => {
    // The card's IP scrolled out between rows 2 and 3 (say, a row removed): row 3 comes next.
    expect(nextMark(table, { item: 'gone', rect: { x: 120, y: 132, width: 90, height: 8 } })?.item).toBe('row3-src');
    // Past the last line: back to the first.
    expect(nextMark(table, { item: 'gone', rect: { x: 120, y: 400, width: 90, height: 16 } })?.item).toBe('row1-src');
    expect(nextMark([], undefined)).toBeUndefined();
  });

  it('compares marks with the given equality (occurrences are new objects per read)', () => {
    const marks = [mark('a', 0, 0), mark('b', 100, 0)];
    expect(nextMark(marks, { item: 'A' }, (x, y) => x.toLowerCase() === y.toLowerCase())?.item).toBe('b');
  });
});

describe('the marks around a card', () => {
  it('are the marks of the nearest line above and below, not the row itself or farther lines', () => {
    const anchor = table.find((m) => m.item === 'row2-src')!.rect;
    const near = neighbourRects(table, anchor);
    const names = near.map((r) => table.find((m) => m.rect === r)!.item).sort();
    expect(names).toEqual(['row1-dst', 'row1-src', 'row3-dst', 'row3-src']);
    // The first and last lines have one neighbouring line only.
    expect(neighbourRects(table, table.find((m) => m.item === 'row4-src')!.rect)).toHaveLength(2);
  });

  it('make the card sit beside the IP rather than over the next row', () => {
    // The card is about row 2; rows 1 and 3 hold IPs in the same column.
    const anchor = table.find((m) => m.item === 'row2-src')!.rect;
    const spare = neighbourRects(table.filter((m) => !m.item.endsWith('dst')), anchor);
    const input = { anchor, card: { width: 380, height: 300 }, viewport: { width: 1280, height: 800 }, avoid: [], spare, gap: 6, padding: 8 };
    const before = chooseCardPlacement({ ...input, spare: [] });
    expect(before.placement).toBe('bottom-start');
    expect(spare.some((r) => overlapArea(before.rect, r) > 0)).toBe(true);
    const after = chooseCardPlacement(input);
    expect(after.placement).toBe('right-start');
    expect(after.spared).toBe(0);
    expect(after.fits).toBe(true);
  });

  it('never covers a page tooltip to spare a neighbour, and covers the least when it must', () => {
    const anchor: Rect = { x: 120, y: 122, width: 110, height: 16 };
    const spare = [{ x: 120, y: 142, width: 90, height: 16 }];
    // The page's tooltip sits right of the IP: beside is out, under the IP covers the neighbour.
    const tooltip = { x: 236, y: 110, width: 300, height: 200 };
    const input = { anchor, card: { width: 380, height: 300 }, viewport: { width: 1280, height: 800 }, avoid: [tooltip], spare, gap: 6, padding: 8 };
    const choice = chooseCardPlacement(input);
    expect(choice.overlap).toBe(0);
    expect(overlapArea(choice.rect, tooltip)).toBe(0);
  });
});
