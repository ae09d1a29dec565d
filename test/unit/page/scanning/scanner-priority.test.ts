// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest';
import { findIps } from '@/lib/ip';
import { OccurrenceStore } from '@/lib/page/occurrences/occurrence-store';
import { Scanner } from '@/lib/page/scanning/scanner';
import type { TimeSlicer, YieldPriority } from '@/lib/page/scanning/time-slicer';
import { fakeRangeFactory } from '../dom-fakes';

/** Expires after every check and records the priority each pause asked for. */
function recordingSlicer(): TimeSlicer & { priorities: (YieldPriority | undefined)[] } {
  const priorities: (YieldPriority | undefined)[] = [];
  return {
    priorities,
    begin() {},
    expired: () => true,
    async pause(priority) {
      priorities.push(priority);
      await Promise.resolve();
    },
  };
}

describe('Scanner priorities', () => {
  afterEach(() => document.body.replaceChildren());

  it('resumes work for the screen at user-visible priority and the whole-page scan at background priority', async () => {
    document.body.innerHTML = Array.from({ length: 200 }, (_, i) => `<p>row ${i} from 10.0.${i}.1</p>`).join('') + '<div id="new"></div>';
    const slicer = recordingSlicer();
    const scanner = new Scanner({ findIps, store: new OccurrenceStore(fakeRangeFactory), slicer, onChange: () => {} });
    const added = document.getElementById('new')!;
    added.innerHTML = Array.from({ length: 200 }, (_, i) => `<span>new ${i} 10.1.${i}.1</span>`).join('');
    void scanner.enqueue(added, 'urgent');
    await scanner.enqueue(document.body, 'background');
    const firstBackground = slicer.priorities.indexOf('background');
    // Urgent work first, resumed at user-visible priority, then the rest in the background.
    expect(slicer.priorities.slice(0, 3)).toEqual(['user-visible', 'user-visible', 'user-visible']);
    expect(firstBackground).toBeGreaterThan(0);
    expect(slicer.priorities.slice(firstBackground).every((p) => p === 'background')).toBe(true);
  });

  it('asks for the far row of a whole-page text with the parent element the walk read, never for urgent text', async () => {
    document.body.innerHTML = '<div><span>far 10.0.0.1</span></div><p id="urgent">near 10.0.0.2</p>';
    const asked: unknown[] = [];
    const store = new OccurrenceStore(fakeRangeFactory);
    const farRowOf = (parent: Element) => (asked.push(parent), parent.closest('div'));
    const scanner = new Scanner({ findIps, store, slicer: recordingSlicer(), onChange: () => {}, farRowOf });
    await scanner.enqueue(document.getElementById('urgent')!, 'urgent');
    await scanner.enqueue(document.querySelector('div')!, 'background');
    expect(asked).toEqual([document.querySelector('span')]);
    expect(store.occurrencesOfNode(document.querySelector('span')!.firstChild as Text)).toEqual([]);
    expect(store.countOf('10.0.0.1')).toBe(1);
  });

  it('asks with the plain row the walk named, and with the parent only when the tracker takes another row', async () => {
    const rows = (n: number) => Array.from({ length: n }, (_, i) => `<tr><td>10.0.${n}.${i}</td><td>x</td></tr>`).join('');
    document.body.innerHTML = `<table id="rows"><tbody>${rows(3)}</tbody></table><table id="cells"><tbody>${rows(2)}</tbody></table>`;
    const asked: string[] = [];
    const store = new OccurrenceStore(fakeRangeFactory);
    // The tracker holds the first table's texts by row, the second's by cell (as if its rows were lists).
    const farRowOf = (el: Element) => (asked.push(el.tagName), el.closest('#cells') ? el.closest('td') : el.closest('tr'));
    const scanner = new Scanner({ findIps, store, slicer: recordingSlicer(), onChange: () => {}, farRowOf });
    await scanner.enqueue(document.body, 'background');
    expect(asked).toEqual(['TR', 'TR', 'TR', 'TR', 'TD', 'TR', 'TD']);
    expect(store.ipCount).toBe(5);
    expect(store.occurrenceCount).toBe(5);
  });

  it('holds the plain rows mayHoldRow names unread in the whole-page scan only, and reads the rest', async () => {
    const rows = Array.from({ length: 6 }, (_, i) => `<tr><td>10.0.0.${i}</td><td>x</td></tr>`).join('');
    document.body.innerHTML = `<table><tbody>${rows}</tbody></table><table id="urgent"><tbody>${rows}</tbody></table>`;
    const [far, urgent] = [...document.querySelectorAll('table')];
    const offered: Element[] = [];
    const store = new OccurrenceStore(fakeRangeFactory);
    // Even rows far; rows without a row of their own are never offered.
    const mayHoldRow = (row: Element) => offered.push(row) > 0 && (row as HTMLTableRowElement).rowIndex % 2 === 0;
    const changes: number[] = [];
    const scanner = new Scanner({ findIps, store, slicer: recordingSlicer(), onChange: (c) => changes.push(c.farAdded.length), farRowOf: (el) => el.closest('tr'), mayHoldRow });
    await scanner.enqueue(urgent!, 'urgent');
    expect(offered).toEqual([]);
    expect(store.occurrenceCount).toBe(6);
    await scanner.enqueue(far!, 'background');
    expect(offered).toHaveLength(6);
    expect(store.unreadRows).toBe(3);
    // The odd rows read (held far, with their IPs), the even ones not: 3 addresses more.
    expect(store.occurrenceCount).toBe(6 + 3);
    expect(store.countOf('10.0.0.1')).toBe(2);
    expect(store.countOf('10.0.0.0')).toBe(1);
    expect(changes.reduce((a, b) => a + b, 0)).toBe(6);
  });

  it('reads every row when mayHoldRow is absent or says no, and a held row once it is read as a root', async () => {
    document.body.innerHTML = '<table><tbody><tr><td><b></b>10.0.0.1</td></tr><tr><td>10.0.0.2</td></tr></tbody></table>';
    const tbody = document.querySelector('tbody')!;
    for (const mayHoldRow of [undefined, () => false, () => true]) {
      const store = new OccurrenceStore(fakeRangeFactory);
      const scanner = new Scanner({ findIps, store, slicer: recordingSlicer(), onChange: () => {}, farRowOf: (el) => el.closest('tr'), ...(mayHoldRow ? { mayHoldRow } : {}) });
      await scanner.enqueue(tbody, 'background');
      const held = mayHoldRow?.() ?? false;
      expect(store.unreadRows).toBe(held ? 2 : 0);
      expect(store.countOf('10.0.0.1')).toBe(held ? 0 : 1);
      // The first row comes near: read as a root (urgent), it is no longer unread.
      await scanner.enqueue(tbody.querySelector('tr')!, 'urgent');
      expect(store.unreadRows).toBe(held ? 1 : 0);
      expect(store.countOf('10.0.0.1')).toBe(1);
      expect(store.occurrenceCount).toBe(held ? 1 : 2);
    }
  });

  it('checks a text node queued by a mutation for skipped regions in its slice', async () => {
    document.body.innerHTML = '<div contenteditable="true"><span>typed 8.8.8.8</span></div><p>seen 1.1.1.1</p>';
    const store = new OccurrenceStore(fakeRangeFactory);
    const scanner = new Scanner({ findIps, store, slicer: recordingSlicer(), onChange: () => {} });
    await scanner.enqueue(document.querySelector('span')!.firstChild!, 'urgent');
    await scanner.enqueue(document.querySelector('p')!.firstChild!, 'background');
    expect([...store.ips()]).toEqual(['1.1.1.1']);
  });

  it('holds urgent work to the page limits: a root past maxUrgentNodes goes on as whole-page work', async () => {
    const cells = Array.from({ length: 1_000 }, (_, i) => `<td>10.2.${i >> 8}.${i & 255}</td>`).join('');
    document.body.innerHTML = `<table><tr>${cells}</tr></table>`;
    const slicer = recordingSlicer();
    const store = new OccurrenceStore(fakeRangeFactory);
    const scanner = new Scanner({ findIps, store, slicer, onChange: () => {}, limits: { maxUrgentNodes: 100 } });
    // The viewport sample found no row: the whole table was handed over as "on screen".
    await scanner.enqueue(document.querySelector('table')!, 'urgent');
    // All of it is read (no page limit reached), but past 100 nodes at background priority.
    expect(store.ipCount).toBe(1_000);
    // The row of plain cells is counted whole as the element pass passes it, so
    // the first clock check already finds the walk past its size: no urgent pause before it.
    const firstBackground = slicer.priorities.indexOf('background');
    expect(firstBackground).toBeGreaterThanOrEqual(0);
    expect(firstBackground).toBeLessThanOrEqual(3);
    expect(slicer.priorities.slice(firstBackground).every((p) => p === 'background')).toBe(true);
  });

  it('past the page limits, reads no more of an urgent root than maxUrgentNodes', async () => {
    const cells = Array.from({ length: 1_000 }, (_, i) => `<td>10.3.${i >> 8}.${i & 255}</td>`).join('');
    document.body.innerHTML = `<table><tr>${cells}</tr></table>`;
    const store = new OccurrenceStore(fakeRangeFactory);
    const limits: string[] = [];
    const scanner = new Scanner({
      findIps,
      store,
      slicer: recordingSlicer(),
      onChange: () => {},
      onLimit: (l) => limits.push(l),
      limits: { maxTextNodes: 10, maxUrgentNodes: 1_500 },
    });
    await scanner.enqueue(document.body, 'background');
    expect(limits).toEqual(['maxTextNodes']);
    const afterBackground = store.ipCount;
    expect(afterBackground).toBeLessThan(100);
    await scanner.enqueue(document.querySelector('table')!, 'urgent');
    // 1,500 nodes: the table's 1,003 elements, then about 500 cells (and at most one clock
    // check's worth more: the walk looks every 64 nodes), not the 1,000.
    expect(store.ipCount).toBeGreaterThanOrEqual(497);
    expect(store.ipCount).toBeLessThan(497 + 64);
    expect(scanner.busy).toBe(false);
  });

  // isInsideSkipped's answers are kept for one slice only (the page runs between two).
  it('sees a region the page made editable between two slices', async () => {
    document.body.innerHTML = '<div id="region"><p>10.0.0.1</p><p>10.0.0.2</p></div>';
    const slicer = recordingSlicer();
    const store = new OccurrenceStore(fakeRangeFactory);
    const scanner = new Scanner({ findIps, store, slicer, onChange: () => {} });
    const [first, second] = [...document.querySelectorAll('p')].map((p) => p.firstChild!);
    const run = scanner.batch(() => {
      void scanner.enqueue(first!, 'urgent');
      void scanner.enqueue(second!, 'urgent');
    });
    // One root a slice: the first is read, and the page makes the region editable meanwhile.
    expect(store.hasNode(first as Text)).toBe(true);
    document.getElementById('region')!.setAttribute('contenteditable', '');
    await run;
    expect(store.hasNode(second as Text)).toBe(false);
  });
});
