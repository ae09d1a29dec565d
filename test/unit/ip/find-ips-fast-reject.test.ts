import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { candidateEnd, nextCandidate, NOT_PLAIN, plainCandidate } from '../../../lib/ip/candidate-scan';
import { checkIpv4 } from '../../../lib/ip/check-ipv4';
import { checkIpv6 } from '../../../lib/ip/check-ipv6';
import { findIps, tooFewColons } from '../../../lib/ip/find-ips';
import type { IpMatch } from '../../../lib/ip/types';
import { loadCorpus } from '../../fixtures/ip-corpus/load-corpus';
import { ipLikeText, runs } from './arbitraries';

/** findIps as it was before the colon count: every candidate through the full checks. */
function fullChecks(text: string): IpMatch[] {
  const out: IpMatch[] = [];
  let position = 0;
  for (let start = nextCandidate(text, position); start >= 0; start = nextCandidate(text, position)) {
    position = candidateEnd;
    const raw = text.slice(start, position);
    const plain = plainCandidate;
    const match = plain !== NOT_PLAIN ? checkIpv4(text, start, raw, plain) : raw.includes(':') ? checkIpv6(text, start, raw) : checkIpv4(text, start, raw);
    if (match) {
      if (match.end > position) position = match.end;
      out.push(match);
    }
  }
  return out;
}

const colonSoup = fc
  .array(fc.constantFrom('1', '12', '59', 'ab', 'ffff', 'db8', 'Z', 'T', 'x', ':', ':', ':', '::', '[:]', '.', '.081', '%eth0', ' ', 'at ', 'outside:', 'label:'), { maxLength: 40 })
  .map((parts) => parts.join(''));

describe('findIps: candidates turned away by their colons', () => {
  it('turns away times of day, not what may be an address', () => {
    const at = (text: string, candidate: string) => tooFewColons(text, text.indexOf(candidate), text.indexOf(candidate) + candidate.length);
    expect(at('2025-11-28T11:59:52.081Z', '11:59:52')).toBe(true);
    expect(at('up 12:34', '12:34')).toBe(true);
    expect(at('x 2001:db8::1', '2001:db8::1')).toBe(false);
    expect(at('x 1:2:3:4:5:6:7:8', '1:2:3:4:5:6:7:8')).toBe(false);
    expect(at('x 1:2:3:4:5:6:1.2.3.4 y', '1:2:3:4:5:6:1.2.3.4')).toBe(false);
    expect(at('x 2001[:]db8[:][:]1', '2001[:]db8[:][:]1')).toBe(false);
    // No colon: an IPv4 candidate, checked in full.
    expect(at('1[.]2.3.4', '1[.]2.3.4')).toBe(false);
  });

  it('finds what every candidate checked in full finds (IP-like and colon soups, the corpus, timestamps)', () => {
    fc.assert(
      fc.property(fc.oneof(ipLikeText, colonSoup), (text) => {
        expect(findIps(text)).toEqual(fullChecks(text));
      }),
      runs(3000),
    );
    for (const { text } of loadCorpus()) expect(findIps(text)).toEqual(fullChecks(text));
    const log = '2025-11-28T11:59:52.081Z deny tcp 185.220.101.1:443 -> [2001:db8::1]:80 at 12:00:01 outside:2001:db8::2';
    expect(findIps(log).map((m) => m.ip)).toEqual(['185.220.101.1', '2001:db8::1', '2001:db8::2']);
    expect(findIps(log)).toEqual(fullChecks(log));
  });
});
