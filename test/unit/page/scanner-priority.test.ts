// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest';
import { findIps } from '@/lib/ip';
import { OccurrenceStore } from '@/lib/page/occurrence-store';
import { Scanner } from '@/lib/page/scanner';
import type { TimeSlicer, YieldPriority } from '@/lib/page/time-slicer';
import { fakeRangeFactory } from './dom-fakes';

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

  it('checks a text node queued by a mutation for skipped regions in its slice', async () => {
    document.body.innerHTML = '<div contenteditable="true"><span>typed 8.8.8.8</span></div><p>seen 1.1.1.1</p>';
    const store = new OccurrenceStore(fakeRangeFactory);
    const scanner = new Scanner({ findIps, store, slicer: recordingSlicer(), onChange: () => {} });
    await scanner.enqueue(document.querySelector('span')!.firstChild!, 'urgent');
    await scanner.enqueue(document.querySelector('p')!.firstChild!, 'background');
    expect([...store.ips()]).toEqual(['1.1.1.1']);
  });
});
