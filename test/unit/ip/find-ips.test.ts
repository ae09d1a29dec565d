import { describe, expect, it } from 'vitest';
import { findIps, forEachIp, type ScanStats } from '../../../lib/ip';
import { CANDIDATE_SOURCE } from '../../../lib/ip/candidate-pattern';

/** The addresses found, each with the exact text it marks. */
function found(text: string): [string, string][] {
  return findIps(text).map((m) => [m.ip, text.slice(m.start, m.end)]);
}

const ips = (text: string) => findIps(text).map((m) => m.ip);

describe('findIps: IPv4', () => {
  it('reports canonical address, version and offsets', () => {
    expect(findIps('from 203.0.113.5 port 22')).toEqual([{ ip: '203.0.113.5', version: 4, start: 5, end: 16 }]);
  });

  it('leaves ports, CIDR suffixes and brackets unmarked', () => {
    expect(found('1.2.3.4:443 [5.6.7.8]:80 10.0.0.0/8 (9.9.9.9)')).toEqual([
      ['1.2.3.4', '1.2.3.4'],
      ['5.6.7.8', '5.6.7.8'],
      ['10.0.0.0', '10.0.0.0'],
      ['9.9.9.9', '9.9.9.9'],
    ]);
  });

  it('finds addresses in URLs, key=value, JSON and lists', () => {
    expect(ips('http://1.1.1.1:8080/x src=2.2.2.2 {"ip":"3.3.3.3"} 4.4.4.4,5.5.5.5|6.6.6.6;7.7.7.7')).toEqual([
      '1.1.1.1', '2.2.2.2', '3.3.3.3', '4.4.4.4', '5.5.5.5', '6.6.6.6', '7.7.7.7',
    ]);
  });

  it('finds both ends of ranges and the address at a sentence end', () => {
    expect(ips('1.2.3.4-1.2.3.10, 10.0.0.1 - 10.0.0.9 and 8.8.8.8.')).toEqual([
      '1.2.3.4', '1.2.3.10', '10.0.0.1', '10.0.0.9', '8.8.8.8',
    ]);
  });

  it('marks defanged forms including their brackets', () => {
    expect(found('1[.]2[.]3[.]4 5(.)6(.)7(.)8 9{.}9{.}9{.}9 10[dot]0[DOT]0(dot)1 11.12.13[.]14')).toEqual([
      ['1.2.3.4', '1[.]2[.]3[.]4'],
      ['5.6.7.8', '5(.)6(.)7(.)8'],
      ['9.9.9.9', '9{.}9{.}9{.}9'],
      ['10.0.0.1', '10[dot]0[DOT]0(dot)1'],
      ['11.12.13.14', '11.12.13[.]14'],
    ]);
    expect(ips('hxxp://185[.]220[.]101[.]4/payload')).toEqual(['185.220.101.4']);
  });

  it('does not split versions, OIDs or longer dotted numbers', () => {
    expect(ips('1.2.3.4.5 v10.2.0.12 1.3.6.1.4.1.2021 .1.3.6.1 1.2.3.4.com www.1.2.3.4')).toEqual([]);
    expect(ips('1[.]2[.]3[.]4[.]5 5[.]1.2.3.4')).toEqual([]);
  });

  it('refuses out-of-range octets, leading zeros and inet_aton short forms', () => {
    expect(ips('256.1.1.1 1.2.3.256 999.1.1.1 010.001.001.001 192.168.01.1 00.0.0.0')).toEqual([]);
    expect(ips('127.1 0x7f.1 0x7f.0.0.1 3232235777 0xC0A80101')).toEqual([]);
    expect(ips('0.0.0.0 255.255.255.255')).toEqual(['0.0.0.0', '255.255.255.255']);
  });

  it('refuses digits glued to letters, digits or underscores, ASCII or not', () => {
    expect(ips('a1.2.3.4 1.2.3.4b _1.2.3.4 1.2.3.4_ ９1.2.3.4 1.2.3.4٩ é1.2.3.4')).toEqual([]);
    expect(ips('１.２.３.４ １９２．１６８．０．１')).toEqual([]);
  });

  it('accepts CJK and Hangul text right next to an address', () => {
    expect(ips('来自1.2.3.4的连接 1.2.3.5에서 1.2.3.6から')).toEqual(['1.2.3.4', '1.2.3.5', '1.2.3.6']);
  });

  it('accepts a percent escape before an address (URL-encoded query strings)', () => {
    expect(ips('url=http%3A%2F%2F45.155.205.233%2Fx.sh')).toEqual(['45.155.205.233']);
  });

  it('skips versions that look like addresses, by their context', () => {
    expect(ips('Mozilla/5.0 (X11) AppleWebKit/537.36 Chrome/120.0.0.0 Safari/537.36 Edg/120.0.0.0')).toEqual([]);
    expect(ips('Version=4.0.0.0 "version":"10.2.0.12" FileVersion: 6.3.96.1 build 1.0.0.1 OID 2.5.4.3')).toEqual([]);
    expect(ips('section 12.2.4.69, Section: 1.1.1.1, §4.1.2.3, CIS 1.1.1.1 Ensure cramfs is disabled')).toEqual([]);
    // ...but not paths, squid hierarchy codes or words that merely end like a keyword.
    expect(ips('/ip-address/8.8.8.8 HIER_DIRECT/9.9.9.9 server 1.1.1.1 rebuild 2.2.2.2')).toEqual([
      '8.8.8.8', '9.9.9.9', '1.1.1.1', '2.2.2.2',
    ]);
  });
});

describe('findIps: IPv6', () => {
  it('canonicalises every RFC 4291 text form to RFC 5952', () => {
    expect(ips('2001:0DB8:0000:0000:0000:0000:0000:0001 2001:db8:0:0:1:0:0:1 2001:db8:0:1:1:1:1:1')).toEqual([
      '2001:db8::1', '2001:db8::1:0:0:1', '2001:db8:0:1:1:1:1:1',
    ]);
    expect(ips('::1 fe80:: ::2:3:4:5:6:7:8 1:2:3:4:5:6:7::')).toEqual(['::1', 'fe80::', '0:2:3:4:5:6:7:8', '1:2:3:4:5:6:7:0']);
  });

  it('keeps IPv4-mapped addresses dotted and reads IPv4 tails', () => {
    expect(ips('::ffff:10.0.0.1 ::FFFF:c000:0280 64:ff9b::192.0.2.33 ::13.1.68.3')).toEqual([
      '::ffff:10.0.0.1', '::ffff:192.0.2.128', '64:ff9b::c000:221', '::d01:4403',
    ]);
  });

  it('marks the zone but drops it from the canonical form', () => {
    expect(found('fe80::1%eth0 [fe80::2%25en0]:80 fe80::3%12.')).toEqual([
      ['fe80::1', 'fe80::1%eth0'],
      ['fe80::2', 'fe80::2%25en0'],
      ['fe80::3', 'fe80::3%12'],
    ]);
  });

  it('leaves URL brackets and ports unmarked', () => {
    expect(found('http://[2001:db8::1]:8443/x [::]:22 [::1]')).toEqual([
      ['2001:db8::1', '2001:db8::1'],
      ['::', '::'],
      ['::1', '::1'],
    ]);
  });

  it('marks defanged colons', () => {
    expect(found('2001[:]db8[:][:]1')).toEqual([['2001:db8::1', '2001[:]db8[:][:]1']]);
  });

  it('drops a colon that ends a phrase and reads a label before the address', () => {
    expect(found('Blocked 2001:db8::5: too many; outside:2001:db8:1::53/53 Address:fe80::1')).toEqual([
      ['2001:db8::5', '2001:db8::5'],
      ['2001:db8:1::53', '2001:db8:1::53'],
      ['fe80::1', 'fe80::1'],
    ]);
  });

  it('reads a one-colon label only when it is a word of its own', () => {
    expect(ips('cloudsdk:x:1000:1000::/home/cloudsdk:/bin/bash messagebus:x:100:102::/nonexistent')).toEqual([]);
    expect(ips('src:2001:db8::1 dst:fe80::2 ip:1.2.3.4')).toEqual(['2001:db8::1', 'fe80::2', '1.2.3.4']);
  });

  it('does not take code, times, MACs or fingerprints for addresses', () => {
    const text =
      'std::vector a::b Foo::Bar cafe::babe deadbeef::1 ::selection map :: Int ' +
      '12:34:56 1:02:03:04 00:1a:2b:3c:4d:5e 00:1a:2b:ff:fe:3c:4d:5e 3a:4b:5c:6d:7e:8f:90:a1:b2:c3 ' +
      'g2001:db8::1 2001:db8::1g 2001:db8::12345 1::2::3 :::1 1:2:3:4:5:6:7:8:9';
    expect(ips(text)).toEqual([]);
  });

  it('still finds a digit-free compressed address in brackets or before a prefix length', () => {
    expect(ips('[::] [a::b]:80 ::/0 fe::/16')).toEqual(['::', 'a::b', '::', 'fe::']);
  });
});

describe('findIps: output', () => {
  it('returns sorted, non-overlapping matches for mixed text', () => {
    const text = 'a 1.2.3.4 b [2001:db8::1]:80 c 5[.]6[.]7[.]8 d ::ffff:9.9.9.9';
    const matches = findIps(text);
    expect(matches.map((m) => m.start)).toEqual([...matches.map((m) => m.start)].sort((x, y) => x - y));
    for (let i = 1; i < matches.length; i++) expect(matches[i]!.start).toBeGreaterThanOrEqual(matches[i - 1]!.end);
    expect(matches).toHaveLength(4);
  });

  it('forEachIp may be re-entered from its callback', () => {
    const seen: string[] = [];
    forEachIp('1.1.1.1 2.2.2.2', (m) => {
      seen.push(m.ip);
      seen.push(...findIps('9.9.9.9 8.8.8.8').map((n) => n.ip));
    });
    expect(seen).toEqual(['1.1.1.1', '9.9.9.9', '8.8.8.8', '2.2.2.2', '9.9.9.9', '8.8.8.8']);
  });

  it('handles empty and address-free text', () => {
    expect(findIps('')).toEqual([]);
    expect(findIps('no addresses here, just words: std, cafe, 12.5 and 3:1.')).toEqual([]);
  });
});

describe('findIps: large and hostile input', () => {
  it('bounds every quantifier of the pre-filter, so each start position costs a constant', () => {
    // Drop escapes and character classes, then look for an unbounded * or +.
    const structure = CANDIDATE_SOURCE.replace(/\\./g, '').replace(/\[[^\]]*\]/g, '');
    expect(structure).not.toMatch(/[*+]/);
    expect(structure).toMatch(/\{\d+,\d+\}/);
  });

  const hostile: [string, string, number][] = [
    ['dots', '.'.repeat(100_000), 0],
    ['colons', ':'.repeat(100_000), 0],
    ['digits', '9'.repeat(100_000), 0],
    ['hex letters', 'f'.repeat(100_000), 0],
    ['digit-dot runs', '1.'.repeat(50_000), 0],
    ['hex-colon runs', 'ab:'.repeat(50_000), 0],
    ['an address chain without gaps', '1.1.1.1.'.repeat(20_000), 0],
    ['defang brackets', '1[.]'.repeat(40_000), 0],
    ['defanged colons', 'a[:]'.repeat(40_000), 0],
    ['open brackets', '['.repeat(100_000), 0],
    ['double colons', '::1:'.repeat(40_000), 0],
    ['zones', '%eth0'.repeat(30_000), 0],
    ['spaced addresses', '1.2.3.4 '.repeat(20_000), 20_000],
    ['spaced IPv6', '2001:db8::1 '.repeat(10_000), 10_000],
  ];

  for (const [name, text, count] of hostile) {
    it(`finishes on 100k-character ${name}`, () => {
      expect(findIps(text)).toHaveLength(count);
    });
  }

  it('does work proportional to the input: doubling the text doubles the candidates read', () => {
    const unit = 'Jan 12 03:14:07 fw SRC=185.220.101.4 DST=[2001:db8::1]:443 v1.2.3.4.5 ab:cd:ef 1.2.3.4.5.6.7 ';
    for (const piece of [unit, '1.'.repeat(64), 'ab:'.repeat(64), '1.1.1.1.'.repeat(16)]) {
      const small: ScanStats = { candidates: 0, candidateChars: 0 };
      const large: ScanStats = { candidates: 0, candidateChars: 0 };
      forEachIp(piece.repeat(500), () => {}, small);
      forEachIp(piece.repeat(1000), () => {}, large);
      expect(large.candidates).toBeLessThanOrEqual(2 * small.candidates + 2);
      expect(large.candidateChars).toBeLessThanOrEqual(2 * small.candidateChars + 64);
      // Candidates never overlap, so what the validators read is at most the text itself.
      expect(large.candidateChars).toBeLessThanOrEqual(piece.length * 1000);
    }
  });
});

describe('findIps: results', () => {
  it('gives each call its own array of the exact length, also after a text with many addresses', () => {
    const many = Array.from({ length: 70 }, (_, i) => `10.0.0.${i + 1}`).join(' ');
    const first = findIps('a 8.8.8.8 b 9.9.9.9');
    const long = findIps(many);
    const last = findIps('c 1.1.1.1');
    expect(first.map((m) => m.ip)).toEqual(['8.8.8.8', '9.9.9.9']);
    expect(long).toHaveLength(70);
    expect(long[69]!.ip).toBe('10.0.0.70');
    expect(last.map((m) => m.ip)).toEqual(['1.1.1.1']);
    expect(findIps('no address')).toEqual([]);
    // A caller may keep and change its array: the next call does not touch it.
    first.push(last[0]!);
    expect(findIps('d 2.2.2.2').map((m) => m.ip)).toEqual(['2.2.2.2']);
    expect(first).toHaveLength(3);
  });
});
