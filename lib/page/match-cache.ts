/**
 * IP finding remembered by text content. Consoles re-render constantly (a live tail replaces
 * its whole list every second, a virtualised grid recycles row elements as it scrolls), and
 * each re-render brings new text nodes holding the text we already read; finding the IPs in it
 * again was most of the cost of following such a page. The matches of a text are the same
 * wherever it appears, so they are kept by text, for texts short enough to be cell or line
 * content; the map is bounded in entries and characters and starts afresh when full, which is
 * cheaper than ordering every read for an LRU and forgets only what scrolled far away.
 */
import type { IpMatch } from '../ip/types';

export interface MatchCacheOptions {
  /** Longer texts (log blobs, whole documents) are searched every time and not kept. */
  maxTextLength?: number;
  maxEntries?: number;
  /** Characters of text kept as keys, all entries together (bounds the memory). */
  maxChars?: number;
}

export type FindIps = (text: string) => IpMatch[];

export function cachedFinder(find: FindIps, options: MatchCacheOptions = {}): FindIps {
  const maxTextLength = options.maxTextLength ?? 1024;
  const maxEntries = options.maxEntries ?? 20_000;
  const maxChars = options.maxChars ?? 1_000_000;
  let cache = new Map<string, IpMatch[]>();
  let chars = 0;
  return (text) => {
    if (text.length > maxTextLength) return find(text);
    const known = cache.get(text);
    if (known) return known;
    const found = find(text);
    if (cache.size >= maxEntries || chars + text.length > maxChars) {
      cache = new Map();
      chars = 0;
    }
    // Shared between every node with this text: callers only read it.
    cache.set(text, found);
    chars += text.length;
    return found;
  };
}
