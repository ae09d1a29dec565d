/**
 * Finds the next candidate quickly. Scanning the whole text with the candidate pattern makes
 * the regex engine try both alternatives at every hex letter of every word; instead a
 * one-character anchor (`:`, `[`, a digit before `.`, `(`, `{`) is searched, and the pattern
 * runs only from the few positions where a candidate containing that anchor can start. The
 * result is exactly what a global search with the pattern would return (a property test checks
 * this against `candidateRegex`). Both regexes run with `test()`, which allocates no match
 * array: this loop runs for every anchor of every scanned page.
 *
 * Plain dotted decimal (`185.220.101.1`, nearly every address in console text) is read by hand
 * instead, with its validity on the way (`plainCandidate`), so neither the candidate regex
 * nor parseIpv4 reads it again: on the 10,000-row fixture's 60,000 cell texts that was most of
 * findIps' time over a bare regex's.
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

/** `plainCandidate` of a candidate not read by hand: checkIpv4 parses it. */
export const NOT_PLAIN = -1;
/** Plain dotted decimal with an octet over 255 or a leading zero: parseIpv4 refuses it. */
export const PLAIN_REFUSED = 0;
/** Plain dotted decimal that parseIpv4 accepts: already canonical text. */
export const PLAIN_VALID = 1;

/**
 * What the hand reading found about the last candidate (NOT_PLAIN, PLAIN_REFUSED or
 * PLAIN_VALID). Small integers only: a module variable that sometimes held an address's value
 * (a heap number past 64.0.0.0) cost more than the regex it saved, measured cold in Chromium.
 */
export let plainCandidate = NOT_PLAIN;

/** readPlainDotted's answer when a bracket follows an octet: a defanged dot the regex must judge. */
const UNDECIDED = -2;

/**
 * Reads `\d{1,3}(?:\.\d{1,3}){3}` at `start` (at most three digits, then a dot) as the
 * sticky candidate regex would: its IPv6 branch cannot match there (no colon within a group's
 * reach), and backtracking to fewer digits leaves a digit where a dot is needed. Returns the
 * end, -1 when the pattern does not match, or UNDECIDED when a `[`, `(` or `{` stands where a
 * dot may be written defanged. Sets `plainCandidate` when it returns an end.
 */
function readPlainDotted(text: string, start: number): number {
  let valid = true;
  let i = start;
  for (let part = 0; part < 4; part++) {
    const from = i;
    let octet = 0;
    while (i - from < 3 && isDigit(text.charCodeAt(i))) octet = octet * 10 + text.charCodeAt(i++) - 48;
    if (i === from) return -1;
    if (octet > 255 || (i - from > 1 && text.charCodeAt(from) === 48)) valid = false;
    if (part === 3) break;
    const next = text.charCodeAt(i);
    if (next === 46) i++;
    else if (next === 91 || next === 40 || next === 123) return UNDECIDED;
    // A fourth digit, or anything else: no separator, and fewer digits leave a digit next.
    else return -1;
  }
  plainCandidate = valid ? PLAIN_VALID : PLAIN_REFUSED;
  return i;
}

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
      if (code === 46) {
        const end = readPlainDotted(text, start);
        if (end === -1) continue;
        if (end >= 0) {
          candidateEnd = end;
          return start;
        }
      }
    }
    plainCandidate = NOT_PLAIN;
    sticky.lastIndex = start;
    if (sticky.test(text)) {
      candidateEnd = sticky.lastIndex;
      return start;
    }
  }
  return -1;
}
