/**
 * IP finding remembered by text content. Consoles re-render constantly (a live tail replaces
 * its whole list every second, a virtualised grid recycles row elements as it scrolls), and
 * each re-render brings new text nodes holding the text we already read; finding the IPs in it
 * again was most of the cost of following such a page. The matches of a text are the same
 * wherever it appears, so they are kept by text, for texts short enough to be cell or line
 * content.
 *
 * Sized by what is live: this cache was most of the content script's JS heap after a
 * mutation storm (docs/page-performance.md), holding texts long gone from the page.
 * Two generations: a text read again moves to the young one; every `idleMs` (and whenever the
 * young one reaches its bounds) the young one becomes the old one and the old one is dropped.
 * So a text stays while it keeps coming back (a tail re-rendered every second is never
 * searched twice) and goes within two periods once it stops; an idle page keeps nothing, and
 * the timer stops with it. Cheaper than ordering every read for an LRU.
 */
import type { IpMatch } from '../../ip/types';

export interface MatchCacheOptions {
  /** Longer texts (log blobs, whole documents) are searched every time and not kept. */
  maxTextLength?: number;
  /** Entries of one generation (the cache holds at most twice this). */
  maxEntries?: number;
  /** Characters of text kept as keys in one generation (bounds the memory). */
  maxChars?: number;
  /** A text not read again for between one and two of these periods is forgotten. */
  idleMs?: number;
}

export type FindIps = (text: string) => IpMatch[];

/** One array for every text without an IP: most texts, and callers only read the result. */
const NONE: IpMatch[] = [];

export function cachedFinder(find: FindIps, options: MatchCacheOptions = {}): FindIps {
  const maxTextLength = options.maxTextLength ?? 1024;
  const maxEntries = options.maxEntries ?? 10_000;
  const maxChars = options.maxChars ?? 500_000;
  const idleMs = options.idleMs ?? 5_000;
  let young = new Map<string, IpMatch[]>();
  let old = new Map<string, IpMatch[]>();
  let chars = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const rotate = () => {
    old = young;
    young = new Map();
    chars = 0;
  };
  const tick = () => {
    timer = undefined;
    rotate();
    if (old.size > 0) timer = setTimeout(tick, idleMs);
  };
  const keep = (text: string, found: IpMatch[]) => {
    if (young.size >= maxEntries || chars + text.length > maxChars) rotate();
    young.set(text, found);
    chars += text.length;
    timer ??= setTimeout(tick, idleMs);
  };

  return (text) => {
    if (text.length > maxTextLength) return find(text);
    const known = young.get(text);
    if (known) return known;
    const earlier = old.get(text);
    if (earlier) {
      old.delete(text);
      keep(text, earlier);
      return earlier;
    }
    const found = find(text);
    // Shared between every node with this text: callers only read it. findIps' array is of
    // its exact length already: kept as it is, not copied.
    const kept = found.length === 0 ? NONE : found;
    keep(text, kept);
    return kept;
  };
}
