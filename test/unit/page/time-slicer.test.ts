import { describe, expect, it } from 'vitest';
import { createTimeSlicer, defaultYield } from '@/lib/page/time-slicer';

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

  it('urgent work yields through its own, higher-priority yield', async () => {
    const yields: string[] = [];
    const slicer = createTimeSlicer({ yieldFn: async () => void yields.push('background'), urgentYieldFn: async () => void yields.push('urgent') });
    await slicer.pause();
    await slicer.pause(true);
    await slicer.pause(false);
    expect(yields).toEqual(['background', 'urgent', 'background']);
  });

  it('posts urgent continuations at user-visible priority, the rest at background', async () => {
    const seen: string[] = [];
    const g = globalThis as { scheduler?: unknown };
    const before = g.scheduler;
    g.scheduler = { postTask: async (_: () => void, o: { priority: string }) => void seen.push(o.priority) };
    try {
      await defaultYield()();
      await defaultYield('user-visible')();
    } finally {
      g.scheduler = before;
    }
    expect(seen).toEqual(['background', 'user-visible']);
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
