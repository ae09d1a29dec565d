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
    expect(indexes[0]).toBe(92);
    expect(indexes[indexes.length - 1]).toBe(147);
    expect(indexes).toHaveLength(56);
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
