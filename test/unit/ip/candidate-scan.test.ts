import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { candidateRegex } from '../../../lib/ip/candidate-pattern';
import { candidateEnd, nextCandidate, NOT_PLAIN, PLAIN_REFUSED, PLAIN_VALID, plainCandidate } from '../../../lib/ip/candidate-scan';
import { parseIpv4 } from '../../../lib/ip/parse-ipv4';
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

  it('reads plain dotted decimal by hand, and says whether parseIpv4 accepts it', () => {
    const read = (text: string) => {
      const out: [string, number][] = [];
      for (let start = nextCandidate(text, 0); start >= 0; start = nextCandidate(text, candidateEnd)) out.push([text.slice(start, candidateEnd), plainCandidate]);
      return out;
    };
    expect(read('deny tcp 185.220.101.1 -> 10.0.4.17 rule=x 1.2.3.4567 01.2.3.4 256.1.1.1 1[.]2.3.4 1.2[.]3.4')).toEqual([
      ['185.220.101.1', PLAIN_VALID],
      ['10.0.4.17', PLAIN_VALID],
      ['1.2.3.456', PLAIN_REFUSED],
      ['01.2.3.4', PLAIN_REFUSED],
      ['256.1.1.1', PLAIN_REFUSED],
      // Defanged: left to the regex and to parseIpv4 in checkIpv4.
      ['1[.]2.3.4', NOT_PLAIN],
      ['1.2[.]3.4', NOT_PLAIN],
    ]);
    fc.assert(
      fc.property(ipLikeText, (text) => {
        for (const [raw, value] of read(text)) {
          if (value === NOT_PLAIN) continue;
          expect(/^[\d.]+$/.test(raw), raw).toBe(true);
          expect(value, raw).toBe(parseIpv4(raw) >= 0 ? PLAIN_VALID : PLAIN_REFUSED);
        }
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
      '1.2.3.4567 12.34.567.8 1.22.333.4444.5 9999.1.2.3 1.2.3 1.2.3. 1.2.3(.)4 1.2{.}3.4 1.2.3[4',
      '1.2.3:4 ::1.2.3.4 12.3:4::1 0.0.0.0 00.1.2.3',
    ]) {
      expect(viaAnchors(text), text).toEqual(viaGlobalSearch(text));
    }
  });
});
