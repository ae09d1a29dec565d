// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest';
import { findIps } from '@/lib/ip';
import { OccurrenceStore } from '@/lib/page/occurrence-store';
import { Scanner } from '@/lib/page/scanner';
import type { TimeSlicer } from '@/lib/page/time-slicer';
import { fakeRangeFactory } from './dom-fakes';

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

  // Issues 11 and 16: on live-rerender.html the scanner sat in a background-priority yield with
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
});
