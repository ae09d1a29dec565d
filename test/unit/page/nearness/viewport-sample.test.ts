// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { sampleViewport } from '@/lib/page/nearness/viewport-sample';

/** A clock that never moves: the sample's time budget never runs out (happy-dom is slow). */
const FROZEN_CLOCK = { now: () => 0 };

/** Rows of `height` px laid out from `top` (happy-dom has no layout: rects are given). */
function layOut(rows: Element[], top: number, height: number, width = 1280): void {
  rows.forEach((row, i) => {
    const y = top + i * height;
    row.getBoundingClientRect = () => ({ left: 0, right: width, top: y, bottom: y + height, width, height, x: 0, y, toJSON: () => ({}) });
  });
}

describe('viewport sample', () => {
  it('finds the rows on screen, with every row between the sampled ones and a margin', () => {
    document.body.innerHTML = `<table><tbody>${Array.from({ length: 200 }, (_, i) => `<tr><td>r${i}</td><td>x</td></tr>`).join('')}</tbody></table>`;
    const rows = [...document.querySelectorAll('tr')];
    // Rows 100..139 fill the 800 px viewport, 20 px each; the points land on some cells only.
    const doc = {
      body: document.body,
      documentElement: document.documentElement,
      elementFromPoint: (_x: number, y: number) => rows[100 + Math.floor(y / 20)]!.firstElementChild,
    } as unknown as Document;
    const found = sampleViewport(doc, { innerWidth: 1280, innerHeight: 800 }, FROZEN_CLOCK);
    const indexes = found.map((r) => rows.indexOf(r as HTMLTableRowElement)).sort((a, b) => a - b);
    // Points every 25 px: rows 100..139 hit, 8 rows of margin on either side.
    expect(indexes[0]).toBe(92);
    expect(indexes[indexes.length - 1]).toBe(147);
    expect(indexes).toHaveLength(56);
    document.body.replaceChildren();
  });
});

describe('viewport sample cost', () => {
  it('hit-tests at most 96 points per sample (each is a hit test: about 3 ms on a 10,000-row table)', () => {
    document.body.innerHTML = `<table><tbody>${Array.from({ length: 200 }, (_, i) => `<tr><td>r${i}</td></tr>`).join('')}</tbody></table>`;
    const rows = [...document.querySelectorAll('tr')];
    let hits = 0;
    const doc = {
      body: document.body,
      documentElement: document.documentElement,
      elementFromPoint: (_x: number, y: number) => {
        hits++;
        return rows[100 + Math.floor(y / 20)]!.firstElementChild;
      },
    } as unknown as Document;
    // A clock that never moves: this counts points, and on a busy machine the 8 ms budget ran
    // out before every row was reached (the full suite under load).
    const found = sampleViewport(doc, { innerWidth: 1280, innerHeight: 800 }, { now: () => 0 });
    // The old 6 × 32 grid made 192; every on-screen row is still found.
    expect(hits).toBeLessThanOrEqual(96);
    for (let i = 100; i < 140; i++) expect(found).toContain(rows[i]);
    document.body.replaceChildren();
  });
});

describe('viewport sample between cells', () => {
  it('never returns the table a point between cells hit, only its rows', () => {
    document.body.innerHTML = `<table><tbody>${Array.from({ length: 50 }, (_, i) => `<tr><td>r${i}</td></tr>`).join('')}</tbody></table>`;
    const rows = [...document.querySelectorAll('tr')];
    const table = document.querySelector('table')!;
    const doc = {
      body: document.body,
      documentElement: document.documentElement,
      elementFromPoint: (x: number, y: number) => (x > 600 ? table : rows[Math.floor(y / 20)]!.firstElementChild),
    } as unknown as Document;
    const found = sampleViewport(doc, { innerWidth: 1280, innerHeight: 800 }, FROZEN_CLOCK);
    expect(found).not.toContain(table);
    expect(found.length).toBeGreaterThan(30);
    document.body.replaceChildren();
  });
});

describe('viewport sample on a huge list (hit tests cost ~3 ms each over a 50,000-row table)', () => {
  function bigTable(count: number) {
    document.body.innerHTML = `<table><tbody>${Array.from({ length: count }, (_, i) => `<tr><td>r${i}</td><td>x</td></tr>`).join('')}</tbody></table>`;
    const rows = [...document.querySelectorAll('tr')];
    // Row 0 at the top of the 800 px viewport, 20 px each: rows 0..39 on screen.
    layOut(rows, 0, 20);
    let hits = 0;
    const doc = {
      body: document.body,
      documentElement: document.documentElement,
      elementFromPoint: (_x: number, y: number) => {
        hits++;
        return rows[Math.floor(y / 20)]!.firstElementChild;
      },
    } as unknown as Document;
    return { rows, doc, hits: () => hits };
  }

  it('hit-tests a list once and takes its rows on screen from layout', () => {
    const { rows, doc, hits } = bigTable(300);
    const found = sampleViewport(doc, { innerWidth: 1280, innerHeight: 800 }, FROZEN_CLOCK);
    const indexes = found.map((r) => rows.indexOf(r as HTMLTableRowElement)).sort((a, b) => a - b);
    // Every row on screen (0..39) and the margin after it, nothing far below.
    expect(indexes[0]).toBe(0);
    expect(indexes).toEqual(Array.from({ length: 48 }, (_, i) => i));
    // The old grid hit-tested all 192 points.
    expect(hits()).toBe(1);
    document.body.replaceChildren();
  });

  it('finds the row under a point that hit the table itself (the gap between cells) from layout', () => {
    const { rows, doc } = bigTable(300);
    const table = document.querySelector('table')!;
    let tableHits = 0;
    (doc as unknown as { elementFromPoint: () => Element }).elementFromPoint = () => (tableHits++, table);
    const found = sampleViewport(doc, { innerWidth: 1280, innerHeight: 800 }, FROZEN_CLOCK);
    const indexes = found.map((r) => rows.indexOf(r as HTMLTableRowElement)).sort((a, b) => a - b);
    expect(found).not.toContain(table);
    expect(indexes).toEqual(Array.from({ length: 48 }, (_, i) => i));
    expect(tableHits).toBe(1);
    document.body.replaceChildren();
  });

  it('reaches the top of the screen within its first four hit tests (a list there is found before the budget runs out)', () => {
    // Eight rows at the top (y < 160), then a block whose hit tests find no row (the 1,000,000
    // text nodes of test/fixtures/hostile/text-nodes.html); each hit test costs 2 ms of an 8 ms budget.
    document.body.innerHTML = `<div id="rows">${Array.from({ length: 8 }, (_, i) => `<div>r${i}</div>`).join('')}</div><div id="block">text</div>`;
    const rows = [...document.querySelectorAll('#rows > div')];
    const block = document.getElementById('block')!;
    let clock = 0;
    const doc = {
      body: document.body,
      documentElement: document.documentElement,
      elementFromPoint: (_x: number, y: number) => ((clock += 2), y < 160 ? rows[Math.floor(y / 20)]! : block),
    } as unknown as Document;
    const found = sampleViewport(doc, { innerWidth: 1280, innerHeight: 800 }, { now: () => clock, budgetMs: 8 });
    expect(found.some((el) => rows.includes(el))).toBe(true);
    document.body.replaceChildren();
  });

  it('stops hit-testing when its time is up, keeping what it found', () => {
    const { doc, hits } = bigTable(100);
    // No layout (every rect empty): nothing is skipped; each hit test costs 3 ms.
    for (const row of document.querySelectorAll('tr')) row.getBoundingClientRect = () => new DOMRect(0, 0, 0, 0);
    let clock = 0;
    const timed = { get: () => clock };
    const original = doc.elementFromPoint.bind(doc);
    (doc as { elementFromPoint: typeof original }).elementFromPoint = (x, y) => ((clock += 3), original(x, y));
    const found = sampleViewport(doc, { innerWidth: 1280, innerHeight: 800 }, { now: timed.get, budgetMs: 8 });
    expect(hits()).toBe(3);
    expect(found.length).toBeGreaterThan(0);
    document.body.replaceChildren();
  });
});
