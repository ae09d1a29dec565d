import { describe, expect, it, vi } from 'vitest';
import { createTimeSlicer, defaultYield, frameWatch } from '@/lib/page/scanning/time-slicer';

describe('time slicer', () => {
  it('expires after its budget and restarts the clock after a pause', async () => {
    let t = 0;
    let yields = 0;
    const slicer = createTimeSlicer({ budgetMs: 8, now: () => t, yieldFn: async () => void yields++ });
    slicer.begin();
    t = 7;
    expect(slicer.expired()).toBe(false);
    t = 8;
    expect(slicer.expired()).toBe(true);
    await slicer.pause();
    expect(yields).toBe(1);
    expect(slicer.expired()).toBe(false);
  });

  it('passes the priority of the work after the pause to the yield', async () => {
    const asked: (string | undefined)[] = [];
    const slicer = createTimeSlicer({ yieldFn: async (priority) => void asked.push(priority) });
    await slicer.pause('user-visible');
    await slicer.pause('background');
    await slicer.pause();
    expect(asked).toEqual(['user-visible', 'background', undefined]);
  });

  it('yields a whole task, not a microtask: queued microtasks run first', async () => {
    const order: string[] = [];
    const y = defaultYield();
    const p = y().then(() => order.push('resumed'));
    let chain = Promise.resolve();
    for (let i = 0; i < 5; i++) chain = chain.then(() => void order.push(`micro ${i}`));
    await p;
    expect(order).toEqual(['micro 0', 'micro 1', 'micro 2', 'micro 3', 'micro 4', 'resumed']);
  });
});

describe('time slicer: frames between slices', () => {
  /** A frame signal driven by the test: `frame()` renders one. */
  function fakeFrames() {
    let seen = false;
    const waiting: (() => void)[] = [];
    return {
      waits: 0,
      passed() {
        const was = seen;
        seen = false;
        return was;
      },
      next() {
        this.waits++;
        return new Promise<void>((resolve) => waiting.push(resolve));
      },
      frame() {
        seen = true;
        waiting.splice(0).forEach((wake) => wake());
      },
    };
  }

  it('after 16 ms of slices with no frame between them, waits for a frame, then yields', async () => {
    let t = 0;
    let yields = 0;
    const frames = fakeFrames();
    const slicer = createTimeSlicer({ budgetMs: 8, now: () => t, yieldFn: async () => void yields++, frames });
    slicer.begin();
    t += 8;
    await slicer.pause();
    expect([yields, frames.waits]).toEqual([1, 0]);
    t += 8;
    let resumed = false;
    const paused = slicer.pause().then(() => (resumed = true));
    await Promise.resolve();
    expect([yields, frames.waits]).toEqual([1, 1]);
    expect(resumed).toBe(false);
    frames.frame();
    await paused;
    // After the frame, a yield at the work's priority all the same (behind the page's tasks).
    expect([yields, frames.waits]).toEqual([2, 1]);
    // The frame passed: the count starts again from the next slice.
    t += 8;
    await slicer.pause();
    expect([yields, frames.waits]).toEqual([3, 1]);
  });

  it('never waits while frames come between its slices', async () => {
    let t = 0;
    const frames = fakeFrames();
    const slicer = createTimeSlicer({ budgetMs: 8, now: () => t, yieldFn: async () => frames.frame(), frames });
    slicer.begin();
    for (let i = 0; i < 10; i++) {
      t += 12;
      await slicer.pause();
    }
    expect(frames.waits).toBe(0);
  });

  it('work for the screen (user-visible) never waits for a frame', async () => {
    let t = 0;
    let yields = 0;
    const frames = fakeFrames();
    const slicer = createTimeSlicer({ budgetMs: 8, now: () => t, yieldFn: async () => void yields++, frames });
    for (let i = 0; i < 5; i++) {
      t += 10;
      await slicer.pause('user-visible');
    }
    expect([yields, frames.waits]).toEqual([5, 0]);
  });

  it('without a frame signal, only yields', async () => {
    let t = 0;
    let yields = 0;
    const slicer = createTimeSlicer({ budgetMs: 8, now: () => t, yieldFn: async () => void yields++, frames: null });
    for (let i = 0; i < 5; i++) {
      t += 10;
      await slicer.pause();
    }
    expect(yields).toBe(5);
  });
});

describe('frameWatch', () => {
  class FakeObserver {
    static last: FakeObserver | undefined;
    observed: unknown[] = [];
    constructor(readonly callback: () => void) {
      FakeObserver.last = this;
    }
    observe(target: unknown) {
      this.observed.push(target);
    }
    disconnect() {
      this.observed = [];
    }
  }

  function setup(visibilityState = 'visible') {
    const doc = { documentElement: {}, visibilityState } as unknown as Document;
    const saved = globalThis.IntersectionObserver;
    globalThis.IntersectionObserver = FakeObserver as unknown as typeof IntersectionObserver;
    const watch = frameWatch(doc)!;
    globalThis.IntersectionObserver = saved;
    return { watch, observer: FakeObserver.last!, doc };
  }

  it("reports a frame from the observer's report, from then on watching for the next", () => {
    const { watch, observer, doc } = setup();
    expect(watch.passed()).toBe(false);
    expect(observer.observed).toEqual([doc.documentElement]);
    observer.callback(); // the next rendering update reported the new observation
    expect(observer.observed).toEqual([]);
    expect(watch.passed()).toBe(true);
    expect(watch.passed()).toBe(false);
    expect(observer.observed).toEqual([doc.documentElement]);
  });

  it('next() resolves at the next frame', async () => {
    const { watch, observer } = setup();
    let done = false;
    const next = watch.next().then(() => (done = true));
    await Promise.resolve();
    expect(done).toBe(false);
    observer.callback();
    await next;
    expect(done).toBe(true);
  });

  it('stops waiting after 100 ms when no frame comes (a page that renders nothing, a browser that reports none)', async () => {
    vi.useFakeTimers();
    try {
      const { watch } = setup();
      let done = false;
      const next = watch.next().then(() => (done = true));
      await vi.advanceTimersByTimeAsync(99);
      expect(done).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      await next;
      expect(done).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it('does not wait in a hidden tab (no frames are rendered there)', async () => {
    const { watch, observer } = setup('hidden');
    await watch.next();
    expect(observer.observed).toEqual([]);
  });
});
