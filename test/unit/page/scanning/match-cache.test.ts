import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { findIps } from '@/lib/ip';
import { cachedFinder } from '@/lib/page/scanning/match-cache';

describe('IP finding cached by text', () => {
  it('finds the IPs of a text once, whatever node it comes back in', () => {
    const find = vi.fn(findIps);
    const cached = cachedFinder(find);
    const text = 'src 185.220.101.1 dst 10.0.0.1';
    const first = cached(text);
    expect(first.map((m) => m.ip)).toEqual(['185.220.101.1', '10.0.0.1']);
    // A re-render creates a new string with the same content.
    expect(cached(['src 185.220.101.1', 'dst 10.0.0.1'].join(' '))).toEqual(first);
    expect(find).toHaveBeenCalledTimes(1);
    expect(cached('no address here').length).toBe(0);
    expect(cached('no address here').length).toBe(0);
    expect(find).toHaveBeenCalledTimes(2);
  });

  it('does not keep long texts', () => {
    const find = vi.fn(findIps);
    const cached = cachedFinder(find, { maxTextLength: 20 });
    const long = `log line with 8.8.8.8 and more text`;
    cached(long);
    cached(long);
    expect(find).toHaveBeenCalledTimes(2);
  });

  it('keeps a text that keeps coming back when its generation fills, and forgets one that does not', () => {
    const find = vi.fn(findIps);
    const cached = cachedFinder(find, { maxEntries: 3 });
    for (const t of ['1.1.1.1', '2.2.2.2', '3.3.3.3']) cached(t);
    expect(find).toHaveBeenCalledTimes(3);
    // A fourth text fills the young generation: the three become the old one, still known.
    cached('4.4.4.4');
    cached('1.1.1.1');
    expect(find).toHaveBeenCalledTimes(4);
    // 1.1.1.1, read again, moved to the young generation with 4.4.4.4; two more texts fill it.
    cached('5.5.5.5');
    cached('6.6.6.6');
    cached('1.1.1.1');
    expect(find).toHaveBeenCalledTimes(6);
    // 2.2.2.2 was not read for two generations: it is gone and searched again.
    cached('2.2.2.2');
    expect(find).toHaveBeenCalledTimes(7);

    const byChars = vi.fn(findIps);
    const small = cachedFinder(byChars, { maxChars: 10 });
    small('1.1.1.1');
    small('2.2.2.2');
    small('3.3.3.3');
    small('1.1.1.1');
    expect(byChars).toHaveBeenCalledTimes(4);
  });

  describe('sized by what is live', () => {
    beforeEach(() => vi.useFakeTimers());
    afterEach(() => vi.useRealTimers());

    it('forgets texts not read again within two idle periods, and then stops its timer', () => {
      const find = vi.fn(findIps);
      const cached = cachedFinder(find, { idleMs: 1000 });
      cached('gone 1.1.1.1');
      cached('live 2.2.2.2');
      // A live tail re-renders its rows every second: their text is read every period.
      for (let s = 0; s < 5; s++) {
        vi.advanceTimersByTime(1000);
        cached('live 2.2.2.2');
      }
      expect(find).toHaveBeenCalledTimes(2);
      cached('gone 1.1.1.1');
      expect(find).toHaveBeenCalledTimes(3);
      // The page goes quiet: two periods later nothing is kept and no timer is left.
      vi.advanceTimersByTime(2000);
      expect(vi.getTimerCount()).toBe(0);
      cached('live 2.2.2.2');
      expect(find).toHaveBeenCalledTimes(4);
    });
  });

  it("keeps the finder's own array, not a copy of it (findIps returns it at its exact length)", () => {
    const results: ReturnType<typeof findIps>[] = [];
    const cached = cachedFinder((text) => {
      const found = findIps(text);
      results.push(found);
      return found;
    });
    const first = cached('src 185.220.101.1 dst 10.0.0.1');
    expect(first).toBe(results[0]);
    expect(cached('src 185.220.101.1 dst 10.0.0.1')).toBe(first);
  });

  it('gives every text without an IP the same empty result', () => {
    const cached = cachedFinder(findIps);
    expect(cached('no address here')).toBe(cached('nor here'));
  });
});
