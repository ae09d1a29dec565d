import { describe, expect, it } from 'vitest';
import { FrameAsks, type FrameAsksStore } from '@/lib/background/frame-asks';
import type { LookupResult } from '@/lib/lookup/types';
import { createManualClock } from '../lookup/helpers/manual-clock';

function memoryStore(initial?: unknown): FrameAsksStore & { value: unknown } {
  const store = {
    value: initial,
    load: async () => structuredClone(store.value),
    save: async (value: unknown) => void (store.value = structuredClone(value)),
  };
  return store;
}

const frame = (tabId: number, documentId = 'doc', frameId = 0) => ({ tabId, frameId, documentId });
const found = (ip: string): LookupResult => ({ ip, status: 'found', data: {} as never, fetchedAt: 1 });

describe('FrameAsks', () => {
  it('keeps what each frame asked and was told across a worker restart, per document', async () => {
    const store = memoryStore();
    const clock = createManualClock();
    const first = new FrameAsks({ store, clock });
    await first.ready();
    first.noteAsked(frame(1), ['185.220.101.1', '[45.33.32.156]', 'not-an-ip']);
    first.note(frame(1), [found('185.220.101.1'), { ip: '45.33.32.156', status: 'not-found', fetchedAt: 1 }]);
    await clock.advance(1_000);
    await first.flush();

    const next = new FrameAsks({ store });
    await next.ready();
    expect(next.wasAsked(frame(1), '185.220.101.1')).toBe(true);
    expect(next.wasAsked(frame(1), '45.33.32.156')).toBe(true); // canonical form on both sides
    expect(next.wasTold(frame(1), '185.220.101.1')).toBe(true);
    expect(next.wasTold(frame(1), '45.33.32.156')).toBe(false); // not found: nothing for the badge
    expect(next.wasAsked(frame(1, 'reloaded'), '185.220.101.1')).toBe(false);
    expect(next.wasAsked(frame(2), '185.220.101.1')).toBe(false);
  });

  it('what this run noted wins over what an earlier run stored for the same frame', async () => {
    const store = memoryStore({ v: 1, frames: [['1:0:doc', '23.0.0.1', '']] });
    const asks = new FrameAsks({ store });
    asks.noteAsked(frame(1), ['23.0.0.2']);
    await asks.ready();
    expect(asks.wasAsked(frame(1), '23.0.0.2')).toBe(true);
  });

  it('stays within its bounds, forgetting the least recently active frames first', async () => {
    const store = memoryStore();
    const asks = new FrameAsks({ store });
    await asks.ready();
    const ips = (k: number) => Array.from({ length: 20_000 }, (_, i) => `23.${k}.${i >> 8}.${i & 255}`);
    for (let k = 0; k < 12; k++) asks.noteAsked(frame(k), ips(k));
    // 12 frames of 20,000 IPs exceed the 200,000 kept: the two oldest are gone, the newest stay.
    expect(asks.wasAsked(frame(0), '23.0.0.1')).toBe(false);
    expect(asks.wasAsked(frame(1), '23.1.0.1')).toBe(false);
    expect(asks.wasAsked(frame(2), '23.2.0.1')).toBe(true);
    expect(asks.wasAsked(frame(11), '23.11.0.1')).toBe(true);
    // More than 20,000 for one frame: the rest is not remembered (Details refused, never wrongly allowed).
    asks.noteAsked(frame(11), ['24.0.0.1']);
    expect(asks.wasAsked(frame(11), '24.0.0.1')).toBe(false);
    await asks.flush();
    expect(JSON.stringify(store.value).length).toBeLessThan(4_000_000);
  });

  it('an unreadable or failing store is an empty one, never an error', async () => {
    for (const value of [undefined, null, 42, { v: 2, frames: [] }, { v: 1, frames: 'x' }, { v: 1, frames: [['k', 1, 2]] }]) {
      const asks = new FrameAsks({ store: memoryStore(value) });
      await asks.ready();
      expect(asks.wasAsked(frame(1), '23.0.0.1')).toBe(false);
    }
    const failing = new FrameAsks({ store: { load: () => Promise.reject(new Error('gone')), save: () => Promise.reject(new Error('full')) } });
    await failing.ready();
    failing.noteAsked(frame(1), ['23.0.0.1']);
    await failing.flush();
    expect(failing.wasAsked(frame(1), '23.0.0.1')).toBe(true);
  });
});
