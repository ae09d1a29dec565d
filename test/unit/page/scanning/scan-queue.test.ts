// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { ScanQueue } from '@/lib/page/scanning/scan-queue';

describe('scan queue', () => {
  it('is first in, first out, and holds each node once', () => {
    const q = new ScanQueue();
    const [a, b] = [document.createElement('p'), document.createElement('p')];
    document.body.append(a, b);
    q.push(a);
    q.push(b);
    q.push(a);
    expect(q.size).toBe(2);
    expect(q.shift()).toBe(a);
    expect(q.shift()).toBe(b);
    expect(q.shift()).toBeUndefined();
  });

  it('releases nodes that left the page instead of holding them until their turn', () => {
    const q = new ScanQueue();
    const kept = document.createElement('div');
    document.body.append(kept);
    q.push(kept);
    // A console re-rendering for ever: rows added and removed before the scanner gets to them.
    for (let i = 0; i < 50_000; i++) {
      const row = document.createElement('div');
      document.body.append(row);
      q.push(row);
      row.remove();
    }
    expect(q.size).toBeLessThan(2_100);
    expect(q.has(kept)).toBe(true);
    expect(q.shift()).toBe(kept);
    document.body.replaceChildren();
  });
});
