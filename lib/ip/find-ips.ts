/**
 * Finds IPv4 and IPv6 addresses in free text: a bounded pattern proposes candidates
 * (candidate-scan.ts), then each candidate is parsed strictly and its neighbours are checked.
 * Work per character is constant (see candidate-pattern.ts), so 50 MB of logs scan in linear
 * time.
 */
import { candidateEnd, nextCandidate, NOT_PLAIN, plainCandidate } from './candidate-scan';
import { checkIpv4 } from './check-ipv4';
import { checkIpv6 } from './check-ipv6';
import type { IpMatch } from './types';

/** Optional counters, so tests can check the work done grows linearly with the input. */
export interface ScanStats {
  /** Candidates the pre-filter proposed. */
  candidates: number;
  /** Characters in those candidates (what the validators read). */
  candidateChars: number;
}

/**
 * The candidate nextCandidate just found, checked as the address it looks like. One read by
 * hand (plain dotted decimal) is IPv4 and already judged: no colon test, no second parse.
 */
function checkCandidate(text: string, start: number, end: number): IpMatch | null {
  if (plainCandidate !== NOT_PLAIN) return checkIpv4(text, start, text.slice(start, end), plainCandidate);
  if (tooFewColons(text, start, end)) return null;
  const raw = text.slice(start, end);
  return raw.includes(':') ? checkIpv6(text, start, raw) : checkIpv4(text, start, raw);
}

/**
 * True when `text[start, end)`, a candidate, has a colon but can be no IPv6 address however
 * checkIpv6 reads it: without `::` an address has seven colons (six before an IPv4 tail), and
 * with fewer than six, no `::` and no `[:]`, each of its readings (the trailing colon dropped,
 * or read past a label: part of the same run) has fewer still. Times of day (`11:59:52`, in
 * every timestamp cell and log line) are most such candidates: turned away here, with no
 * slice and no parse. False sends the candidate through the full checks.
 */
export function tooFewColons(text: string, start: number, end: number): boolean {
  let colons = 0;
  for (let i = start; i < end; i++) {
    const code = text.charCodeAt(i);
    if (code === 91) return false;
    if (code === 58 && (text.charCodeAt(i + 1) === 58 || ++colons === 6)) return false;
  }
  return colons > 0;
}

/**
 * Calls `onMatch` for each address in order, without collecting them: scanning a huge text
 * keeps memory flat. Matches never overlap and come sorted by `start`.
 */
export function forEachIp(text: string, onMatch: (match: IpMatch) => void, stats?: ScanStats): void {
  let position = 0;
  for (;;) {
    // The scanner keeps no state between calls, so a callback may scan other text too.
    const start = nextCandidate(text, position);
    if (start < 0) return;
    const end = candidateEnd;
    position = end;
    if (stats) {
      stats.candidates++;
      stats.candidateChars += end - start;
    }
    const match = checkCandidate(text, start, end);
    if (match) {
      // A match read again after a label may run past the first candidate.
      if (match.end > position) position = match.end;
      onMatch(match);
    }
  }
}

/**
 * `forEachIp` in pieces, for one huge text node (a page's 150,000 addresses in one element):
 * scans from `from` and stops once `stop()` (asked after every candidate) says so. Returns
 * where to resume, or -1 at the end of the text. Resuming where it stopped finds exactly what
 * one pass would: the candidate scanner keeps no state between calls.
 */
export function forEachIpFrom(text: string, from: number, onMatch: (match: IpMatch) => void, stop: () => boolean): number {
  let position = from;
  for (;;) {
    const start = nextCandidate(text, position);
    if (start < 0) return -1;
    position = candidateEnd;
    const match = checkCandidate(text, start, position);
    if (match) {
      if (match.end > position) position = match.end;
      onMatch(match);
    }
    if (stop()) return position;
  }
}

/**
 * findIps' matches of the text being read, by index: one array for every call, not an array
 * grown by pushes (17 slots from the first) and a closure per text. The page's scan calls
 * findIps for each of the 10,000-row table's 40,000 candidate texts: those were ~250 of the
 * ~350 bytes it allocated per text (a heap sampling of the first pass). A long result is not kept in it.
 */
let found: IpMatch[] = [];
let foundCount = 0;
const collect = (m: IpMatch): void => {
  found[foundCount++] = m;
};

/** The addresses in `text`, in an array of their exact length (callers may keep it). */
export function findIps(text: string): IpMatch[] {
  foundCount = 0;
  forEachIp(text, collect);
  const matches = found.slice(0, foundCount);
  if (foundCount > 64) found = [];
  return matches;
}
