import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { candidateRegex } from '../../../lib/ip/candidate-pattern';
import { candidateEnd, nextCandidate } from '../../../lib/ip/candidate-scan';
import { ipLikeText, runs } from './arbitraries';

/** Candidates as `start:text`, each search resuming after the previous candidate. */
function viaAnchors(text: string): string[] {
  const out: string[] = [];
  for (let start = nextCandidate(text, 0); start >= 0; start = nextCandidate(text, candidateEnd)) {
    out.push(`${start}:${text.slice(start, candidateEnd)}`);
  }
  return out;
}

function viaGlobalSearch(text: string): string[] {
  return [...text.matchAll(candidateRegex())].map((m) => `${m.index}:${m[0]}`);
}

describe('nextCandidate', () => {
  it('proposes exactly what a global search with the candidate pattern finds', () => {
    fc.assert(
      fc.property(ipLikeText, (text) => {
        expect(viaAnchors(text)).toEqual(viaGlobalSearch(text));
      }),
      runs(1500),
    );
  });

  it('agrees on hand-picked tricky starts', () => {
    for (const text of [
      'ab12[:]34[:][:]1',
      'deadbeef::1',
      '12345.1.2.3',
      '1[dot]2(dot)3{.}4',
      'x:::1 [::] :1.2.3.4 1.2.3.4:5:6',
      'outside:2001:db8::1',
      '[[[:]:]',
    ]) {
      expect(viaAnchors(text), text).toEqual(viaGlobalSearch(text));
    }
  });
});
