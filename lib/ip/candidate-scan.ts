/**
 * Finds the next candidate quickly. Scanning the whole text with the candidate pattern makes
 * the regex engine try both alternatives at every hex letter of every word; instead a
 * one-character anchor (`:`, `[`, a digit before `.`, `(`, `{`) is searched, and the pattern
 * runs only from the few positions where a candidate containing that anchor can start. The
 * result is exactly what a global search with the pattern would return (a property test checks
 * this against `candidateRegex`). Both regexes run with `test()`, which allocates no match
 * array: this loop runs for every anchor of every scanned page.
 */
import { stickyCandidateRegex } from './candidate-pattern';

const anchors = /[:[]|\d[.({]/g;
const sticky = stickyCandidateRegex();

function isHex(code: number): boolean {
  return (code >= 48 && code <= 57) || ((code | 32) >= 97 && (code | 32) <= 102);
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

/** Where the last candidate found ends (exclusive); read it right after nextCandidate. */
export let candidateEnd = 0;

/**
 * The start of the leftmost candidate at or after `position`, or -1 when there is none. The
 * candidate is `text.slice(start, candidateEnd)`.
 */
export function nextCandidate(text: string, position: number): number {
  anchors.lastIndex = position;
  while (anchors.test(text)) {
    // `[:[]` matches one character; `\d[.({]` two, ending in the separator.
    const at = anchors.lastIndex - 1;
    const code = text.charCodeAt(at);
    let start: number;
    if (code === 58 || (code === 91 && text.charCodeAt(at + 1) === 58)) {
      // `:` or `[:]`: an IPv6 candidate starts at most four hex digits (one group) before.
      start = at;
      while (start > position && at - start < 4 && isHex(text.charCodeAt(start - 1))) start--;
    } else {
      // A dot-like separator after a digit: an IPv4 candidate starts at most three digits before.
      if (code === 91 && (!isDigit(text.charCodeAt(at - 1)) || at - 1 < position)) continue;
      start = at - 1;
      while (start > position && at - start < 3 && isDigit(text.charCodeAt(start - 1))) start--;
    }
    sticky.lastIndex = start;
    if (sticky.test(text)) {
      candidateEnd = sticky.lastIndex;
      return start;
    }
  }
  return -1;
}
