// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createNearTracker, listItemOf, type Nearness } from '@/lib/page/nearness/near-tracker';

/** Records observed targets; the test fires entries by hand. */
class FakeObserver {
  readonly targets = new Set<Element>();
  /**
   * Targets whose first report is due. As in the browser, observe() reports a target once when
   * it starts being observed; observing a target already observed does nothing, not even that.
   */
  readonly due = new Set<Element>();
  /** Every target ever observed: Blink keeps its observer data on each. */
  readonly everObserved = new Set<Element>();
  constructor(readonly callback: IntersectionObserverCallback, readonly init: IntersectionObserverInit) {}
  observe(el: Element) {
    if (!this.targets.has(el)) this.due.add(el);
    this.targets.add(el);
    this.everObserved.add(el);
  }
  unobserve(el: Element) {
    this.targets.delete(el);
    this.due.delete(el);
  }
  disconnect() {
    this.targets.clear();
  }
  /** Delivers the first reports that are due, each target where `where` puts it. */
  fireDue(where: (target: Element) => { top: number; intersecting: boolean }) {
    const entries = [...this.due].map((target) => ({ target, ...where(target) }));
    this.due.clear();
    if (entries.length) this.fire(entries);
  }
  fire(entries: { target: Element; top: number; height?: number; intersecting: boolean }[]) {
    for (const e of entries) this.due.delete(e.target);
    this.callback(
      entries.map(
        (e) =>
          ({
            target: e.target,
            isIntersecting: e.intersecting,
            boundingClientRect: { top: e.top, bottom: e.top + (e.height ?? 20), left: 0, right: 100 },
            rootBounds: { top: -800, bottom: 1600, left: 0, right: 1280 },
          }) as unknown as IntersectionObserverEntry,
      ),
      this as unknown as IntersectionObserver,
    );
  }
}

/** Lets the task end: the tracker observes its chunks' new ends then. */
const taskEnd = () => Promise.resolve();

function setup(rows: number, clock = { now: 0 }, scroll = { away: false }) {
  document.body.innerHTML = `<table><tbody>${Array.from({ length: rows }, (_, i) => `<tr><td>a${i}</td><td>b${i}</td><td>c</td></tr>`).join('')}</tbody></table>`;
  const observers: FakeObserver[] = [];
  const near: [string[], Nearness][] = [];
  const far: string[][] = [];
  const rowsNear: Element[][] = [];
  const tracker = createNearTracker<string>({
    onNear: (items, n) => near.push([items, n]),
    onFar: (items) => far.push(items),
    onRowsNear: (rows) => rowsNear.push(rows),
    chunkSize: 4,
    createObserver: (cb, init) => {
      const o = new FakeObserver(cb, init);
      observers.push(o);
      return o as unknown as IntersectionObserver;
    },
    viewport: () => ({ width: 1280, height: 800 }),
    parkMs: 2_000,
    now: () => clock.now,
    scrolledAway: () => scroll.away,
  });
  const [fine, coarse, onScreen] = observers as [FakeObserver, FakeObserver, FakeObserver];
  const rowEls = [...document.querySelectorAll('tr')];
  const cell = (row: number, col: number) => rowEls[row]!.children[col]!;
  return { tracker, fine, coarse, onScreen, near, far, rowsNear, rowEls, cell };
}


/** Four rows tracked, the first and last reported near, the first row's cell on screen. */
function withFirstRowVisible() {
  const clock = { now: 0 };
  const scroll = { away: false };
  const parts = setup(8, clock, scroll);
  const { tracker, coarse, fine, cell, rowEls } = parts;
  for (let r = 0; r < 4; r++) tracker.track(cell(r, 0), `r${r}`);
  coarse.fire([
    { target: rowEls[0]!, top: 10, intersecting: true },
    { target: rowEls[3]!, top: 70, intersecting: true },
  ]);
  fine.fire([{ target: cell(0, 0), top: 10, intersecting: true }]);
  return { ...parts, clock, scroll };
}

describe('near tracker', () => {
  afterEach(() => {
    document.body.replaceChildren();
  });

  it('finds the row of a cell', () => {
    const { cell, rowEls } = setup(10);
    expect(listItemOf(cell(3, 1))).toBe(rowEls[3]);
    document.body.innerHTML = '<main><p id="p"><b>1.2.3.4</b></p></main>';
    // No list around: the element itself.
    const b = document.querySelector('b')!;
    expect(listItemOf(b)).toBe(b);
  });

  it('climbs once for the cells of a row read in one task, and afresh after it', async () => {
    // Rows of 10 cells in a tbody of 20, so the climb counts children at three levels.
    document.body.innerHTML = `<table><tbody>${Array.from({ length: 20 }, () => `<tr>${'<td><b>1.2.3.4</b></td>'.repeat(10)}</tr>`).join('')}</tbody></table>`;
    const rows = [...document.querySelectorAll('tr')];
    const bolds = [...rows[5]!.querySelectorAll('b')];
    const reads = vi.spyOn(Element.prototype, 'nextElementSibling', 'get');
    // A <b> is alone in its cell, the cell one of 10 in a row that is one of 20: the wide row
    // is the item, for its cells and what is in them.
    for (const b of bolds) expect(listItemOf(b)).toBe(rows[5]);
    const cells = [...rows[5]!.children];
    for (const c of cells) expect(listItemOf(c)).toBe(rows[5]);
    // Each list counted once, where counting on every climb took 170 sibling reads.
    expect(reads.mock.calls.length).toBeLessThanOrEqual(20);
    reads.mockRestore();
    // After the task, the page may have changed: a row of 3 cells in a tbody of 20 rows.
    await Promise.resolve();
    rows[5]!.replaceChildren(...cells.slice(0, 3));
    expect(listItemOf(cells[0]!)).toBe(rows[5]);
  });

  // Walking a row's children to count them made a call per cell, each returning an
  // element (looked up in the isolated world's wrapper map); a list is counted in full only once.
  it("counts a row's children in one call, and a list's in full only the first time", async () => {
    document.body.innerHTML = `<table><tbody>${'<tr><td>a</td><td>b</td><td>c</td></tr>'.repeat(12)}</tbody></table>`;
    const rows = [...document.querySelectorAll('tr')];
    const tbody = document.querySelector('tbody')!;
    const siblings = vi.spyOn(Element.prototype, 'nextElementSibling', 'get');
    const counts = vi.spyOn(Element.prototype, 'childElementCount', 'get');
    try {
      expect(listItemOf(rows[3]!.children[1]!)).toBe(rows[3]);
      // The row and the tbody counted once each, no sibling walked.
      expect(counts.mock.contexts).toEqual([rows[3], tbody]);
      expect(siblings).not.toHaveBeenCalled();
      await Promise.resolve();
      counts.mockClear();
      // In a later task: the tbody, a list, is walked only as far as a list needs (8 children).
      expect(listItemOf(rows[7]!.children[0]!)).toBe(rows[7]);
      expect(counts.mock.contexts).toEqual([rows[7]]);
      expect(siblings.mock.calls.length).toBe(8);
      // A list that shrank is answered afresh.
      await Promise.resolve();
      tbody.replaceChildren(rows[0]!, rows[1]!);
      expect(listItemOf(rows[1]!.children[0]!)).toBe(rows[1]!.children[0]);
    } finally {
      siblings.mockRestore();
      counts.mockRestore();
    }
  });

  // A scan reads a row's cells one after another; each climbed through
  // the row to its list (a parent read and two list-test lookups per cell).
  it("finds a row's other cells without climbing past the row again, the same row as a climb would", async () => {
    const { cell, rowEls } = setup(10);
    const parentReads = vi.spyOn(rowEls[4]!, 'parentElement', 'get');
    for (let c = 0; c < 3; c++) expect(listItemOf(cell(4, c))).toBe(rowEls[4]);
    expect(parentReads.mock.calls.length).toBe(1);
    // A row of 8 cells or more in this list of rows is still the item: a wide row scrolls by as
    // one piece (its cells as items made every row a chunk of its own).
    await Promise.resolve();
    rowEls[6]!.innerHTML = '<td>x</td>'.repeat(8);
    expect(listItemOf(rowEls[6]!.children[0]!)).toBe(rowEls[6]);
    // Outside a list of rows, a wide row's cells are the items.
    document.body.innerHTML = `<div><div id="wide">${'<span>x</span>'.repeat(8)}</div></div>`;
    const wide = document.getElementById('wide')!;
    expect(listItemOf(wide.children[2]!)).toBe(wide.children[2]);
    // A long list in a container of many children is not a row: its items stay the items.
    document.body.innerHTML = `<main>${'<section>s</section>'.repeat(9)}<ul>${'<li><span>1.2.3.4</span></li>'.repeat(20)}</ul></main>`;
    const items = document.querySelectorAll('li');
    expect(listItemOf(items[10]!.firstElementChild!)).toBe(items[10]);
  });

  it('watches only the ends of each chunk of rows, not every cell', async () => {
    const { tracker, coarse, fine, cell, rowEls } = setup(12);
    for (let r = 0; r < 12; r++) for (const c of [0, 1]) tracker.track(cell(r, c), `${r}:${c}`);
    await taskEnd();
    // 12 rows in chunks of 4: 3 chunks, 2 ends each.
    expect([...coarse.targets]).toEqual([rowEls[0], rowEls[3], rowEls[4], rowEls[7], rowEls[8], rowEls[11]]);
    expect(fine.targets.size).toBe(0);
    expect(coarse.init).toMatchObject({ rootMargin: '100% 0px 100% 0px' });
  });

  it('extends the viewport by scrollMargin where the browser has it, never by both margins', () => {
    // Chromium adds scrollMargin to the viewport on top of rootMargin: with both, a
    // window-scrolled page's band reached three screens each side instead of one.
    const had = Object.getOwnPropertyDescriptor(globalThis, 'IntersectionObserver');
    class WithScrollMargin {
      get scrollMargin() {
        return '0px';
      }
    }
    Object.defineProperty(globalThis, 'IntersectionObserver', { value: WithScrollMargin, configurable: true, writable: true });
    try {
      const { coarse, fine } = setup(4);
      for (const o of [coarse, fine]) {
        expect(o.init).toMatchObject({ scrollMargin: '100% 0px 100% 0px' });
        expect(o.init).not.toHaveProperty('rootMargin');
      }
    } finally {
      if (had) Object.defineProperty(globalThis, 'IntersectionObserver', had);
      else delete (globalThis as { IntersectionObserver?: unknown }).IntersectionObserver;
    }
    // Without it (Firefox), rootMargin alone, as the 'watches only the ends' test shows.
    const { coarse } = setup(4);
    expect(coarse.init).not.toHaveProperty('scrollMargin');
  });

  // Blink keeps an ElementIntersectionObserverData on every element ever observed.
  // A scan appends rows one by one, each its chunk's last end until the next: observed at
  // once, every row of the page was observed once (11,400 rows on the 60k storm page).
  it('observes the ends a task leaves, not every row that was an end for a moment', async () => {
    const { tracker, coarse, cell, rowEls } = setup(12);
    for (let r = 0; r < 6; r++) tracker.track(cell(r, 0), `r${r}`);
    await taskEnd();
    for (let r = 6; r < 12; r++) tracker.track(cell(r, 0), `r${r}`);
    await taskEnd();
    // Task 1 left rows 0-3 and 4-5 (ends 0, 3, 4, 5); task 2 grew the second chunk to 7.
    expect([...coarse.everObserved]).toEqual([rowEls[0], rowEls[3], rowEls[4], rowEls[5], rowEls[7], rowEls[8], rowEls[11]]);
    expect([...coarse.targets]).toEqual([rowEls[0], rowEls[3], rowEls[4], rowEls[7], rowEls[8], rowEls[11]]);
  });

  // Each row appended was the last end for a moment, and the row before
  // it was unobserved though never observed (~11 ms of native calls on the 10,000-row scan).
  it('does not unobserve a row that stops being an end in the task it became one', async () => {
    const { tracker, coarse, cell, rowEls } = setup(12);
    const unobserve = vi.spyOn(coarse, 'unobserve');
    for (let r = 0; r < 6; r++) tracker.track(cell(r, 0), `r${r}`);
    expect(unobserve).not.toHaveBeenCalled();
    await taskEnd();
    unobserve.mockClear();
    // Row 5 was observed (an end when task 1 ended): it is unobserved when row 6 follows it.
    for (let r = 6; r < 12; r++) tracker.track(cell(r, 0), `r${r}`);
    expect(unobserve.mock.calls.map(([el]) => el)).toEqual([rowEls[5]]);
    await taskEnd();
    expect([...coarse.targets]).toEqual([rowEls[0], rowEls[3], rowEls[4], rowEls[7], rowEls[8], rowEls[11]]);
  });

  it('observes the cells of a near chunk, reports visible / near / far, and forgets far chunks', () => {
    const { tracker, coarse, fine, cell, rowEls, near, far } = setup(8);
    for (let r = 0; r < 8; r++) tracker.track(cell(r, 0), `r${r}`);
    // First chunk on screen, second entirely below the margin.
    coarse.fire([
      { target: rowEls[0]!, top: 10, intersecting: true },
      { target: rowEls[3]!, top: 70, intersecting: true },
      { target: rowEls[4]!, top: 5000, intersecting: false },
      { target: rowEls[7]!, top: 5100, intersecting: false },
    ]);
    expect([...fine.targets]).toEqual([0, 1, 2, 3].map((r) => cell(r, 0)));
    fine.fire([
      { target: cell(0, 0), top: 10, intersecting: true },
      { target: cell(3, 0), top: 900, intersecting: true },
      { target: cell(2, 0), top: 0, intersecting: false },
    ]);
    expect(near).toEqual([
      [['r0'], 'visible'],
      [['r3'], 'near'],
    ]);
    // A new item for a cell already known to be visible is reported by track() itself.
    expect(tracker.track(cell(0, 0), 'r0-bis')).toBe('visible');
    // Replayed on request (the page forgot its results): what is near now, visible first.
    near.length = 0;
    tracker.replay();
    expect(near).toEqual([
      [['r0', 'r0-bis'], 'visible'],
      [['r3'], 'near'],
    ]);
    // The first chunk scrolls far away: its cells leave.
    coarse.fire([
      { target: rowEls[0]!, top: -5000, intersecting: false },
      { target: rowEls[3]!, top: -4900, intersecting: false },
    ]);
    expect(fine.targets.size).toBe(0);
    expect(far).toEqual([['r0', 'r0-bis', 'r3']]);
  });

  it('reports a near cell that scrolls onto the screen as visible, and back (the margin observer cannot see it)', () => {
    const { tracker, coarse, fine, onScreen, cell, rowEls, near } = setup(4);
    for (let r = 0; r < 4; r++) tracker.track(cell(r, 0), `r${r}`);
    coarse.fire([
      { target: rowEls[0]!, top: 10, intersecting: true },
      { target: rowEls[3]!, top: 900, intersecting: true },
    ]);
    // The same cells, watched against the screen with no margin.
    expect([...onScreen.targets]).toEqual([...fine.targets]);
    expect(onScreen.init).not.toHaveProperty('rootMargin');
    // In the band below the screen: near.
    fine.fire([{ target: cell(3, 0), top: 900, intersecting: true }]);
    // Its first on-screen report (not on screen) changes nothing.
    onScreen.fire([{ target: cell(3, 0), top: 900, intersecting: false }]);
    expect(near).toEqual([[['r3'], 'near']]);
    // Scrolled onto the screen: only the on-screen observer reports it (still inside the band).
    onScreen.fire([{ target: cell(3, 0), top: 700, intersecting: true }]);
    expect(near).toEqual([
      [['r3'], 'near'],
      [['r3'], 'visible'],
    ]);
    // New text in that cell (a recycled grid row) is asked as visible at once.
    expect(tracker.track(cell(3, 0), 'r3-new')).toBe('visible');
    onScreen.fire([{ target: cell(3, 0), top: -100, intersecting: false }]);
    expect(tracker.nearnessOf(cell(3, 0))).toBe('near');
    // A cell never reported by the fine observer is not the on-screen observer's to place.
    onScreen.fire([{ target: cell(1, 0), top: 100, intersecting: true }]);
    expect(tracker.nearnessOf(cell(1, 0))).toBe('unknown');
    // Far chunks leave both observers.
    coarse.fire([
      { target: rowEls[0]!, top: -5000, intersecting: false },
      { target: rowEls[3]!, top: -4900, intersecting: false },
    ]);
    expect(onScreen.targets.size).toBe(0);
  });

  it('lists the elements last reported on screen (the lens reads their rows in a big frame)', () => {
    const { tracker, coarse, fine, onScreen, cell, rowEls } = setup(4);
    for (let r = 0; r < 4; r++) tracker.track(cell(r, 0), `r${r}`);
    coarse.fire([
      { target: rowEls[0]!, top: 10, intersecting: true },
      { target: rowEls[3]!, top: 900, intersecting: true },
    ]);
    fine.fire([
      { target: cell(0, 0), top: 10, intersecting: true },
      { target: cell(3, 0), top: 900, intersecting: true },
    ]);
    expect(tracker.visibleElements()).toEqual([cell(0, 0)]);
    onScreen.fire([{ target: cell(3, 0), top: 700, intersecting: true }]);
    expect(tracker.visibleElements()).toEqual([cell(0, 0), cell(3, 0)]);
    onScreen.fire([{ target: cell(0, 0), top: -30, intersecting: false }]);
    expect(tracker.visibleElements()).toEqual([cell(3, 0)]);
  });

  it('treats a chunk taller than the viewport that spans it as near', () => {
    const { tracker, coarse, fine, cell, rowEls } = setup(8);
    for (let r = 0; r < 4; r++) tracker.track(cell(r, 0), `r${r}`);
    coarse.fire([
      { target: rowEls[0]!, top: -3000, intersecting: false },
      { target: rowEls[3]!, top: 4000, intersecting: false },
    ]);
    expect(fine.targets.size).toBe(4);
  });

  it('moves the watched end when an end row goes away (once its parking time is over)', async () => {
    const clock = { now: 0 };
    const { tracker, coarse, cell, rowEls } = setup(8, clock);
    for (let r = 0; r < 4; r++) tracker.track(cell(r, 0), `r${r}`);
    tracker.untrack(cell(3, 0), 'r3');
    clock.now = 2_001;
    tracker.releaseParked();
    await taskEnd();
    expect([...coarse.targets]).toEqual([rowEls[0], rowEls[2]]);
    tracker.untrack(cell(0, 0), 'r0');
    clock.now = 4_002;
    tracker.releaseParked();
    await taskEnd();
    expect([...coarse.targets]).toEqual([rowEls[2], rowEls[1]]);
  });

  // A re-render replaced a visible cell's text node; the old node's item left before
  // the new one's arrived. The cell must still be known as visible, or its new mark waits for
  // two observer round trips, and a page re-rendering faster than that never shows marks.
  it('keeps a visible cell known while its text node is replaced, so the new text is shown at once', () => {
    const { tracker, fine, cell, near, clock } = withFirstRowVisible();
    expect(near).toEqual([[['r0'], 'visible']]);
    // Old text node swept (its item leaves), then the new one is scanned: no observer call between.
    tracker.untrack(cell(0, 0), 'r0');
    clock.now = 500;
    tracker.releaseParked();
    expect(tracker.track(cell(0, 0), 'r0-new')).toBe('visible');
    expect(fine.targets.has(cell(0, 0))).toBe(true);
    expect(tracker.nearnessOf(cell(0, 0))).toBe('visible');
  });

  // A live tail's new event comes in a row the page inserts above the rows on screen: waiting
  // for the observers (its chunk's end, then its cells) left its addresses unmarked for two
  // frames, 1-2 s on a busy React tail, private ones without their "Not looked up" mark.
  it('takes a row inserted above a row on screen for on screen at once, and lets the observers correct it', async () => {
    const { tracker, fine, onScreen, rowEls, near, far } = withFirstRowVisible();
    const inserted = (text: string) => {
      const row = document.createElement('tr');
      row.innerHTML = `<td>${text}</td><td>x</td>`;
      rowEls[0]!.before(row);
      return row.firstElementChild!;
    };
    const top = inserted('new');
    expect(tracker.track(top, 'new')).toBe('visible');
    expect(tracker.nearnessOf(top)).toBe('visible');
    expect(fine.targets.has(top) && onScreen.targets.has(top)).toBe(true);
    // The observers' first reports agree: nothing more is said.
    near.length = 0;
    fine.fire([{ target: top, top: 0, intersecting: true }]);
    onScreen.fire([{ target: top, top: 0, intersecting: true }]);
    expect(near).toEqual([]);
    // Three events in one render: the top one's cells are read before the rows below it are tracked.
    const third = document.createElement('tr');
    third.innerHTML = '<td>third</td>';
    const fourth = document.createElement('tr');
    fourth.innerHTML = '<td>fourth</td>';
    top.parentElement!.before(third, fourth);
    expect(tracker.track(third.firstElementChild!, 'third')).toBe('visible');
    // A console table's row of eight cells or more counts as a list: its cells are the items.
    const wide = (text: string) => {
      const row = document.createElement('tr');
      row.innerHTML = `<td>${text}</td>` + '<td>x</td>'.repeat(7);
      return row;
    };
    const shown = wide('shown');
    fourth.before(shown);
    tracker.track(shown.firstElementChild!, 'shown');
    fine.fire([{ target: shown.firstElementChild!, top: 0, intersecting: true }]);
    const wideNew = wide('wide-new');
    shown.before(wideNew);
    expect(tracker.track(wideNew.firstElementChild!, 'wide-new')).toBe('visible');
    // Above a row that is not on screen (the analyst scrolled down), a new row waits for them.
    const lower = document.createElement('tr');
    lower.innerHTML = '<td>later</td>';
    rowEls[6]!.before(lower);
    expect(tracker.track(lower.firstElementChild!, 'later')).toBeNull();
    // Taken for on screen but above it after all (the page scrolled meanwhile): it goes far.
    const second = inserted('second');
    expect(tracker.track(second, 'second')).toBe('visible');
    fine.fire([{ target: second, top: -5000, intersecting: false }]);
    expect(far).toEqual([['second']]);
    await taskEnd();
  });

  // Scrolled away from its top, a tail's new rows stay above the screen (scroll anchoring keeps
  // the view still): taken for on screen, their IPs were asked as such and went in calls of
  // their own (React tail scrolled: one a run, of addresses never on screen).
  it('takes no new row inserted above a row on screen for on screen while its scroller is away from its top', async () => {
    const { tracker, coarse, rowEls, scroll } = withFirstRowVisible();
    const inserted = (text: string) => {
      const row = document.createElement('tr');
      row.innerHTML = `<td>${text}</td><td>x</td>`;
      rowEls[0]!.before(row);
      return row.firstElementChild!;
    };
    scroll.away = true;
    const above = inserted('above');
    expect(tracker.track(above, 'above')).toBeNull();
    expect(tracker.nearnessOf(above)).toBe('unknown');
    // Its row is observed all the same: the observers say where it is.
    await taskEnd();
    expect(coarse.targets.has(above.parentElement!)).toBe(true);
    // Back at the top, the guess is made again.
    scroll.away = false;
    expect(tracker.track(inserted('top'), 'top')).toBe('visible');
  });

  // A list that rewrites its rows' text (rows keyed by position) shifts text into cells that did
  // not move: a cell tracked before, forgotten while it held no address, is guessed as before.
  it('still takes a cell it tracked before for on screen above a row on screen, scrolled or not', () => {
    const { tracker, fine, cell, scroll, clock } = withFirstRowVisible();
    fine.fire([{ target: cell(1, 0), top: 30, intersecting: true }]);
    tracker.untrack(cell(0, 0), 'r0');
    clock.now = 2_001;
    tracker.releaseParked();
    scroll.away = true;
    expect(tracker.track(cell(0, 0), 'shifted')).toBe('visible');
    // A cell never tracked may be in a row just inserted: not guessed while scrolled.
    expect(tracker.track(cell(0, 1), 'new')).toBeNull();
  });

  // Marks once vanished for good on a re-rendered list, same rows each time: when
  // the end row of a chunk went away, the row that became the new end was often observed
  // already (the other end of a two-row chunk), and observe() reports nothing then. The chunk's
  // end stayed 'unknown' until that row next crossed the margin, and a chunk whose other end
  // was far was taken as far: its rows on screen were unmarked and no longer observed.
  it('asks again where a row is when it becomes the end of its chunk, even if it was observed already', async () => {
    const { tracker, coarse, fine, cell, rowEls, far } = setup(12);
    // Where each row is: rows 0-2 on screen, the rest far below.
    const where = (el: Element) => {
      const r = rowEls.indexOf(el.closest('tr')!);
      return r <= 2 ? { top: 20 * r, intersecting: true } : { top: 9000, intersecting: false };
    };
    tracker.track(cell(0, 0), 'r0');
    tracker.track(cell(1, 0), 'r1');
    await taskEnd();
    coarse.fireDue(where);
    fine.fireDue(where);
    expect(tracker.nearnessOf(cell(1, 0))).toBe('visible');
    // Row 0 is replaced by the page (a new key): row 1, already observed as the last end, is
    // now also the first.
    rowEls[0]!.remove();
    tracker.untrack(cell(0, 0), 'r0');
    tracker.releaseParked();
    // A row far below joins the chunk (it follows row 1 in the page).
    tracker.track(cell(7, 0), 'r7');
    await taskEnd();
    coarse.fireDue(where);
    fine.fireDue(where);
    // Row 1 is still on screen: still observed, still visible, its mark not taken away.
    expect(tracker.nearnessOf(cell(1, 0))).toBe('visible');
    expect(fine.targets.has(cell(1, 0))).toBe(true);
    expect(far.flat()).not.toContain('r1');
  });

  // A new row at the top once waited behind the list's other columns: a live tail
  // re-renders every cell, also those holding no IP, which are never tracked. They are where
  // their row is, so only those near the screen are read first.
  it('places an untracked cell where its row is, when the row is tracked through another cell', () => {
    const { tracker, coarse, cell, rowEls } = setup(8);
    for (let r = 0; r < 8; r++) tracker.track(cell(r, 0), `r${r}`);
    coarse.fire([
      { target: rowEls[0]!, top: 10, intersecting: true },
      { target: rowEls[3]!, top: 70, intersecting: true },
      { target: rowEls[4]!, top: 9000, intersecting: false },
      { target: rowEls[7]!, top: 9060, intersecting: false },
    ]);
    expect(tracker.nearnessOf(cell(1, 2))).toBe('near');
    expect(tracker.nearnessOf(cell(5, 2))).toBe('far');
    // A row the page just added is not known yet.
    const fresh = document.createElement('tr');
    fresh.innerHTML = '<td>x</td><td>y</td><td>z</td>';
    rowEls[0]!.before(fresh);
    expect(tracker.nearnessOf(fresh.children[2]!)).toBe('unknown');
  });

  // The same rows' addresses once stayed unmarked on returning to them: the live
  // list recycles its bottom rows to the top. A chunk's ends say where its rows are only while
  // they stay consecutive: a row moved out of the middle of a far chunk onto the screen was
  // neither observed nor marked, whatever the observers reported about the chunk's ends.
  it('places a row the page moved where it stands now, not where its old chunk is', async () => {
    const { tracker, coarse, fine, cell, rowEls, near } = setup(12);
    const tbody = rowEls[0]!.parentElement!;
    // 400 px rows: the first two on screen, the next two within the margin, the rest far below.
    const where = (el: Element) => {
      const top = 400 * [...tbody.children].indexOf(el.closest('tr')!);
      return { top, height: 400, intersecting: top < 1600 };
    };
    for (let r = 0; r < 12; r++) tracker.track(cell(r, 0), `r${r}`);
    await taskEnd();
    coarse.fireDue(where);
    fine.fireDue(where);
    expect(tracker.nearnessOf(cell(10, 0))).toBe('far');
    // The page moves row 10 (the middle of the last chunk) to the top.
    tbody.prepend(rowEls[10]!);
    tracker.relocate(rowEls[10]!);
    await taskEnd();
    coarse.fireDue(where);
    fine.fireDue(where);
    expect(tracker.nearnessOf(cell(10, 0))).toBe('visible');
    expect(near.at(-1)).toEqual([['r10'], 'visible']);
    // The old chunk's rows far below are still tracked and far.
    expect(tracker.nearnessOf(cell(9, 0))).toBe('far');
    expect(fine.targets.has(cell(9, 0))).toBe(false);
  });

  it('forgets a parked element once it leaves the page or stays empty past its parking time', () => {
    const clock = { now: 0 };
    const { tracker, coarse, fine, cell, rowEls } = setup(8, clock);
    for (let r = 0; r < 4; r++) tracker.track(cell(r, 0), `r${r}`);
    coarse.fire([
      { target: rowEls[0]!, top: 10, intersecting: true },
      { target: rowEls[3]!, top: 70, intersecting: true },
    ]);
    tracker.untrack(cell(1, 0), 'r1');
    tracker.untrack(cell(2, 0), 'r2');
    rowEls[2]!.remove();
    tracker.releaseParked();
    // Left the page: forgotten at once; still there and recent: kept.
    expect(fine.targets.has(cell(2, 0))).toBe(false);
    expect(fine.targets.has(cell(1, 0))).toBe(true);
    clock.now = 2_001;
    tracker.releaseParked();
    expect(fine.targets.has(cell(1, 0))).toBe(false);
    expect(tracker.nearnessOf(cell(1, 0))).toBe('unknown');
  });
  it('keeps what it knows when its maps are resized (compact), parked elements included', () => {
    const { tracker, fine, cell, near, clock } = withFirstRowVisible();
    tracker.untrack(cell(1, 0), 'r1');
    tracker.compact();
    expect(tracker.nearnessOf(cell(0, 0))).toBe('visible');
    expect(tracker.track(cell(0, 0), 'r0-bis')).toBe('visible');
    near.length = 0;
    tracker.replay();
    expect(near).toEqual([[['r0', 'r0-bis'], 'visible']]);
    // The parked cell is still parked, and released when its time is over.
    clock.now = 2_001;
    tracker.releaseParked();
    expect(fine.targets.has(cell(1, 0))).toBe(false);
    expect(fine.targets.has(cell(2, 0))).toBe(true);
  });

  it('reports an element holding 200,000 items without overflowing the stack (no spread of page-sized lists)', () => {
    const { tracker, coarse, fine, cell, rowEls, near, far } = setup(8);
    const many = 200_000;
    for (let i = 0; i < many; i++) tracker.track(cell(0, 0), `ip${i}`);
    coarse.fire([
      { target: rowEls[0]!, top: 10, intersecting: true },
      { target: rowEls[3]!, top: 70, intersecting: true },
    ]);
    expect(() => fine.fire([{ target: cell(0, 0), top: 10, intersecting: true }])).not.toThrow();
    expect(near[0]![0]).toHaveLength(many);
    near.length = 0;
    tracker.replay();
    expect(near[0]![0]).toHaveLength(many);
    fine.fire([{ target: cell(0, 0), top: 10, intersecting: false }]);
    expect(far[0]).toHaveLength(many);
  });

  // The whole-page scan holds far text without occurrences; its rows are tracked
  // whole, without their cells, and named when their chunk comes near.
  describe('rows tracked without elements', () => {
    it('chunks far rows, observes only their chunk ends, and names them when the chunk comes near', async () => {
      const { tracker, coarse, fine, cell, rowEls, rowsNear } = setup(8);
      for (let r = 0; r < 8; r++) {
        expect(tracker.farRowOf(cell(r, 0))).toBe(rowEls[r]);
        tracker.trackRow(rowEls[r]!, 1);
      }
      tracker.trackRow(rowEls[1]!, 1);
      await taskEnd();
      expect([...coarse.targets]).toEqual([rowEls[0], rowEls[3], rowEls[4], rowEls[7]]);
      expect(fine.targets.size).toBe(0);
      expect(tracker.nearnessOf(cell(5, 1))).toBe('unknown');
      coarse.fire([
        { target: rowEls[0]!, top: 10, intersecting: true },
        { target: rowEls[3]!, top: 70, intersecting: true },
        { target: rowEls[4]!, top: 5000, intersecting: false },
        { target: rowEls[7]!, top: 5100, intersecting: false },
      ]);
      expect(rowsNear).toEqual([[rowEls[0], rowEls[1], rowEls[2], rowEls[3]]]);
      // Near rows are read fully from now on; far ones are where their chunk says.
      expect(tracker.farRowOf(cell(2, 0))).toBeNull();
      expect(tracker.farRowOf(cell(5, 0))).toBe(rowEls[5]);
      expect(tracker.nearnessOf(cell(5, 1))).toBe('far');
    });

    // The lens tracks a row once for all its far texts of a slice.
    it('counts the texts a row holds from one call, and keeps the row far-tracked until all left', async () => {
      const { tracker, coarse, rowEls, rowsNear } = setup(8);
      tracker.trackRow(rowEls[0]!, 3);
      tracker.trackRow(rowEls[1]!, 1);
      tracker.untrackRow(rowEls[0]!);
      tracker.untrackRow(rowEls[0]!);
      tracker.untrackRow(rowEls[1]!);
      await taskEnd();
      coarse.fire([
        { target: rowEls[0]!, top: 10, intersecting: true },
        { target: rowEls[1]!, top: 30, intersecting: true },
      ]);
      // Row 0 still holds one far text: named; row 1 holds none.
      expect(rowsNear).toEqual([[rowEls[0]]]);
    });

    it('names a far row at once when it joins a chunk that is near already', async () => {
      const { tracker, coarse, cell, rowEls, rowsNear } = setup(8);
      for (let r = 0; r < 2; r++) tracker.track(cell(r, 0), `r${r}`);
      await taskEnd();
      coarse.fire([
        { target: rowEls[0]!, top: 10, intersecting: true },
        { target: rowEls[1]!, top: 30, intersecting: true },
      ]);
      tracker.trackRow(rowEls[2]!, 1);
      expect(rowsNear).toEqual([[rowEls[2]]]);
    });

    it('keeps a row while it holds far texts or tracked cells, and parks it a while after both', async () => {
      const clock = { now: 0 };
      const { tracker, coarse, cell, rowEls } = setup(8, clock);
      tracker.trackRow(rowEls[0]!, 1);
      tracker.trackRow(rowEls[0]!, 1);
      tracker.track(cell(0, 0), 'x');
      tracker.trackRow(rowEls[1]!, 1);
      await taskEnd();
      expect([...coarse.targets]).toEqual([rowEls[0], rowEls[1]]);
      // The cell's item leaves and the cell is released: the row stays for its far texts.
      tracker.untrack(cell(0, 0), 'x');
      cell(0, 0).remove();
      tracker.releaseParked();
      tracker.untrackRow(rowEls[0]!);
      tracker.untrackRow(rowEls[0]!);
      tracker.releaseParked();
      await taskEnd();
      // No far text left: parked, still in its chunk (a re-render reads its new text next).
      expect([...coarse.targets]).toEqual([rowEls[0], rowEls[1]]);
      clock.now = 2_001;
      tracker.releaseParked();
      await taskEnd();
      expect([...coarse.targets]).toEqual([rowEls[1]]);
    });

    // A live tail replaces every text each second: the old texts are swept a slice before the
    // new ones are read. Dropping the row in between put it back in a chunk of its own.
    it('keeps a re-rendered far row in its chunk, known far, without observing it again', async () => {
      const { tracker, coarse, cell, rowEls } = setup(8);
      for (let r = 0; r < 4; r++) tracker.trackRow(rowEls[r]!, 1);
      await taskEnd();
      coarse.fire([
        { target: rowEls[0]!, top: 5000, intersecting: false },
        { target: rowEls[3]!, top: 5100, intersecting: false },
      ]);
      const observed = coarse.everObserved.size;
      for (let r = 0; r < 4; r++) tracker.untrackRow(rowEls[r]!);
      tracker.releaseParked();
      expect(tracker.nearnessOf(cell(2, 1))).toBe('far');
      for (let r = 0; r < 4; r++) tracker.trackRow(rowEls[r]!, 1);
      await taskEnd();
      expect(coarse.everObserved.size).toBe(observed);
      expect(tracker.nearnessOf(cell(2, 1))).toBe('far');
    });
  });
});
