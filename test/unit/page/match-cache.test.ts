import { describe, expect, it, vi } from 'vitest';
import { findIps } from '@/lib/ip';
import { cachedFinder } from '@/lib/page/match-cache';

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

  it('does not keep long texts, and stays within its entry and character bounds', () => {
    const find = vi.fn(findIps);
    const cached = cachedFinder(find, { maxTextLength: 20, maxEntries: 3, maxChars: 1000 });
    const long = `log line with 8.8.8.8 and more text`;
    cached(long);
    cached(long);
    expect(find).toHaveBeenCalledTimes(2);
    for (const t of ['1.1.1.1', '2.2.2.2', '3.3.3.3']) cached(t);
    expect(find).toHaveBeenCalledTimes(5);
    cached('1.1.1.1');
    expect(find).toHaveBeenCalledTimes(5);
    // A fourth entry starts a fresh map: the oldest texts are searched again when they return.
    cached('4.4.4.4');
    cached('2.2.2.2');
    expect(find).toHaveBeenCalledTimes(7);

    const byChars = vi.fn(findIps);
    const small = cachedFinder(byChars, { maxChars: 10 });
    small('1.1.1.1');
    small('2.2.2.2');
    small('1.1.1.1');
    expect(byChars).toHaveBeenCalledTimes(3);
  });
});
