// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest';
import { createNearTracker, listItemOf, type Nearness } from '@/lib/page/near-tracker';

/** Records observed targets; the test fires entries by hand. */
class FakeObserver {
  readonly targets = new Set<Element>();
  constructor(readonly callback: IntersectionObserverCallback, readonly init: IntersectionObserverInit) {}
  observe(el: Element) {
    this.targets.add(el);
  }
  unobserve(el: Element) {
    this.targets.delete(el);
  }
  disconnect() {
    this.targets.clear();
  }
  fire(entries: { target: Element; top: number; height?: number; intersecting: boolean }[]) {
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

function setup(rows: number) {
  document.body.innerHTML = `<table><tbody>${Array.from({ length: rows }, (_, i) => `<tr><td>a${i}</td><td>b${i}</td><td>c</td></tr>`).join('')}</tbody></table>`;
  const observers: FakeObserver[] = [];
  const near: [string[], Nearness][] = [];
  const far: string[][] = [];
  const tracker = createNearTracker<string>({
    onNear: (items, n) => near.push([items, n]),
    onFar: (items) => far.push(items),
    chunkSize: 4,
    createObserver: (cb, init) => {
      const o = new FakeObserver(cb, init);
      observers.push(o);
      return o as unknown as IntersectionObserver;
    },
    viewport: () => ({ width: 1280, height: 800 }),
  });
  const [fine, coarse] = observers as [FakeObserver, FakeObserver];
  const rowEls = [...document.querySelectorAll('tr')];
  const cell = (row: number, col: number) => rowEls[row]!.children[col]!;
  return { tracker, fine, coarse, near, far, rowEls, cell };
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

  it('watches only the ends of each chunk of rows, not every cell', () => {
    const { tracker, coarse, fine, cell, rowEls } = setup(12);
    for (let r = 0; r < 12; r++) for (const c of [0, 1]) tracker.track(cell(r, c), `${r}:${c}`);
    // 12 rows in chunks of 4: 3 chunks, 2 ends each.
    expect([...coarse.targets]).toEqual([rowEls[0], rowEls[3], rowEls[4], rowEls[7], rowEls[8], rowEls[11]]);
    expect(fine.targets.size).toBe(0);
    expect(coarse.init).toMatchObject({ rootMargin: '100% 0px 100% 0px' });
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

  it('treats a chunk taller than the viewport that spans it as near', () => {
    const { tracker, coarse, fine, cell, rowEls } = setup(8);
    for (let r = 0; r < 4; r++) tracker.track(cell(r, 0), `r${r}`);
    coarse.fire([
      { target: rowEls[0]!, top: -3000, intersecting: false },
      { target: rowEls[3]!, top: 4000, intersecting: false },
    ]);
    expect(fine.targets.size).toBe(4);
  });

  it('moves the watched end when an end row goes away', () => {
    const { tracker, coarse, cell, rowEls } = setup(8);
    for (let r = 0; r < 4; r++) tracker.track(cell(r, 0), `r${r}`);
    tracker.untrack(cell(3, 0), 'r3');
    expect([...coarse.targets]).toEqual([rowEls[0], rowEls[2]]);
    tracker.untrack(cell(0, 0), 'r0');
    expect([...coarse.targets]).toEqual([rowEls[2], rowEls[1]]);
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
});
