import { describe, expect, it } from 'vitest';
import { MemoryLru } from '../../../lib/lookup/memory-lru';

describe('MemoryLru', () => {
  it('evicts the least recently used entry, where reading counts as use', () => {
    const lru = new MemoryLru<string, number>(2);
    lru.set('a', 1);
    lru.set('b', 2);
    expect(lru.get('a')).toBe(1); // a is now the most recent
    lru.set('c', 3);
    expect([...lru.keys()]).toEqual(['a', 'c']);
    expect(lru.get('b')).toBeUndefined();
  });

  it('peek does not change the order; resize evicts at once', () => {
    const lru = new MemoryLru<string, number>(3);
    lru.set('a', 1);
    lru.set('b', 2);
    lru.set('c', 3);
    lru.peek('a');
    lru.resize(2);
    expect([...lru.keys()]).toEqual(['b', 'c']);
    expect(lru.size).toBe(2);
  });

  it('refuses a bound below one', () => {
    expect(() => new MemoryLru(0)).toThrow(RangeError);
  });
});
