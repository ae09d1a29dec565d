// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest';
import { MutationQueue, type MutationBatch } from '@/lib/page/mutation-queue';

describe('mutation queue', () => {
  afterEach(() => {
    document.body.replaceChildren();
  });

  it('only queues in the observer callback and hands over one batch per flush', async () => {
    const batches: MutationBatch[] = [];
    const scheduled: (() => void)[] = [];
    const queue = new MutationQueue((b) => batches.push(b), (f) => scheduled.push(f));
    queue.observe(document.body);
    const list = document.createElement('ul');
    document.body.append(list);
    const a = document.createElement('li');
    a.textContent = 'one';
    list.append(a);
    const b = document.createElement('li');
    b.textContent = 'two';
    list.append(b);
    (a.firstChild as Text).data = 'changed';
    b.remove();
    await Promise.resolve();
    await new Promise((r) => setTimeout(r, 0));
    // Many records, one scheduled flush, no batch yet.
    expect(scheduled).toHaveLength(1);
    expect(batches).toEqual([]);
    scheduled[0]!();
    expect(batches).toHaveLength(1);
    const batch = batches[0]!;
    // Added nodes still in the page, and the changed text node; the removed <li> is left out.
    expect(batch.touched).toEqual([list, a, a.firstChild]);
    expect(batch.removed).toBe(true);
    queue.disconnect();
  });

  it('flushes on demand and stops after disconnect', async () => {
    const batches: MutationBatch[] = [];
    const queue = new MutationQueue((b) => batches.push(b), () => {});
    queue.observe(document.body);
    document.body.append('1.2.3.4');
    queue.flush();
    expect(batches.map((b) => b.touched.length)).toEqual([1]);
    queue.disconnect();
    document.body.append('5.6.7.8');
    await new Promise((r) => setTimeout(r, 0));
    queue.flush();
    expect(batches).toHaveLength(1);
  });
});
