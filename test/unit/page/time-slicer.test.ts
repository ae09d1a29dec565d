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
