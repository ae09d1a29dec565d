// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest';
import { findIps } from '@/lib/ip';
import { OccurrenceStore } from '@/lib/page/occurrences/occurrence-store';
import { Scanner } from '@/lib/page/scanning/scanner';
import type { TimeSlicer } from '@/lib/page/scanning/time-slicer';
import { fakeRangeFactory } from '../dom-fakes';

/**
 * A page that keeps its main thread busy (a live tail re-rendering every second): a yield at
 * background priority is not resumed while it is busy, one at user-visible priority is.
 */
function busyPageSlicer(): TimeSlicer & { starved: number } {
  const s = {
    starved: 0,
    begin() {},
    expired: () => true,
    pause(priority?: string) {
      if (priority === 'background') {
        s.starved++;
        return new Promise<void>(() => {});
      }
      return Promise.resolve();
    },
  };
  return s;
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('Scanner, urgent work while the whole-page scan waits its turn', () => {
  afterEach(() => document.body.replaceChildren());

  // On live-rerender.html the scanner sat in a background-priority yield with
  // 1,656 urgent nodes queued (the rows on screen, just re-rendered) and nothing in the store
  // for over 10 s; on the live tail no visible row was ever scanned before its next render.
  it('scans text queued for the screen without waiting for its background-priority yield', async () => {
    document.body.innerHTML = Array.from({ length: 50 }, (_, i) => `<p>far ${i} 10.0.${i}.1</p>`).join('') + '<div id="screen"></div>';
    const store = new OccurrenceStore(fakeRangeFactory);
    const slicer = busyPageSlicer();
    const scanner = new Scanner({ findIps, store, slicer, onChange: () => {} });
    void scanner.enqueue(document.body, 'background');
    await tick();
    expect(slicer.starved).toBe(1);
    // The page renders a row on screen meanwhile.
    const screen = document.getElementById('screen')!;
    screen.textContent = 'on screen 185.220.101.1';
    void scanner.enqueue(screen, 'urgent');
    await tick();
    expect(store.occurrencesOfNode(screen.firstChild as Text).map((o) => o.ip)).toEqual(['185.220.101.1']);
  });

  // Between two slices of work for the screen, the scanner waits for a
  // user-visible task, which runs after the frame being prepared. A live tail's next render
  // (a new row at the top) was queued during such a wait: its mark came one frame late, and
  // that page leaves a frame every 0.5-1 s. The mutation flush (an animation-frame callback)
  // now resumes the scanner at once, in its microtasks, before that frame is painted.
  it('scans text queued for the screen at once, also while it waits between two slices of screen work', async () => {
    document.body.innerHTML = Array.from({ length: 10 }, (_, i) => `<p>row 10.0.0.${i}</p>`).join('') + '<p id="top"></p>';
    const store = new OccurrenceStore(fakeRangeFactory);
    const waits: string[] = [];
    const slicer: TimeSlicer = {
      begin() {},
      expired: () => true,
      // The page is busy: a yield at any priority does not end within this test.
      pause: (priority) => {
        waits.push(priority ?? 'background');
        return new Promise<void>(() => {});
      },
    };
    const scanner = new Scanner({ findIps, store, slicer, onChange: () => {} });
    const rows = [...document.querySelectorAll('p:not(#top)')];
    // A render's rows on screen, queued one by one as the mutation flush does.
    for (const row of rows) void scanner.enqueue(row, 'urgent');
    for (let i = 0; i < 5; i++) await Promise.resolve();
    // Two rows read, then a wait for a user-visible task with eight rows still queued.
    expect(waits.at(-1)).toBe('user-visible');
    expect([...store.nodes()].length).toBe(2);
    // The page re-renders before that task runs: the queued rows go, a new row comes at the top.
    rows.slice(2).forEach((row) => row.remove());
    const top = document.getElementById('top')!;
    top.textContent = 'new 185.220.101.1';
    void scanner.enqueue(top, 'urgent');
    // Microtasks only, as after an animation-frame callback: no task has run.
    for (let i = 0; i < 5; i++) await Promise.resolve();
    expect(store.occurrencesOfNode(top.firstChild as Text).map((o) => o.ip)).toEqual(['185.220.101.1']);
  });
});
