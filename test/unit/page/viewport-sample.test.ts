// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { sampleViewport } from '@/lib/page/viewport-sample';

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
    const found = sampleViewport(doc, { innerWidth: 1280, innerHeight: 800 });
    const indexes = found.map((r) => rows.indexOf(r as HTMLTableRowElement)).sort((a, b) => a - b);
    // Points every 40 px: rows 101..139 hit, 8 rows of margin on either side.
    expect(indexes[0]).toBe(93);
    expect(indexes[indexes.length - 1]).toBe(147);
    expect(indexes).toHaveLength(55);
    document.body.replaceChildren();
  });
});

describe('viewport sample cost', () => {
  it('hit-tests at most 60 points per sample (each is a hit test: about 3 ms on a 10,000-row table)', () => {
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
    const found = sampleViewport(doc, { innerWidth: 1280, innerHeight: 800 });
    // The old 6 × 32 grid made 192; every on-screen row is still found.
    expect(hits).toBeLessThanOrEqual(60);
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
    const found = sampleViewport(doc, { innerWidth: 1280, innerHeight: 800 });
    expect(found).not.toContain(table);
    expect(found.length).toBeGreaterThan(30);
    document.body.replaceChildren();
  });
});
