import fc from 'fast-check';
import ipaddr from 'ipaddr.js';
import { describe, expect, it } from 'vitest';
import { classifyIp, findIps, normalizeIp } from '../../../lib/ip';
import type { IpClass } from '../../../lib/ip';
import { referenceCanonical } from '../../fixtures/ip-corpus/load-corpus';
import { ipLikeText, ipv4Text, ipv6Text, prefix, runs, suffix } from './arbitraries';

const RUNS = runs(400);

describe('properties: a valid address in any surroundings', () => {
  it('IPv4, plain or defanged, is found alone with exact offsets', () => {
    fc.assert(
      fc.property(prefix, ipv4Text, fc.oneof(suffix, fc.constant(':443')), (before, address, after) => {
        const text = before + address.text + after;
        expect(findIps(text)).toEqual([
          { ip: address.canonical, version: 4, start: before.length, end: before.length + address.text.length },
        ]);
      }),
      RUNS,
    );
  });

  it('IPv6 in any RFC 4291 form is found alone with exact offsets and RFC 5952 text', () => {
    fc.assert(
      fc.property(prefix, ipv6Text, suffix, (before, address, after) => {
        const text = before + address.text + after;
        expect(findIps(text)).toEqual([
          { ip: address.canonical, version: 6, start: before.length, end: before.length + address.text.length },
        ]);
      }),
      RUNS,
    );
  });

  it('IPv6 in URL brackets with a port, or with a zone, marks only the address (and zone)', () => {
    const zone = fc.stringMatching(/^[a-z][a-z0-9]{0,7}$/);
    fc.assert(
      fc.property(prefix, ipv6Text, fc.option(zone), fc.integer({ min: 1, max: 65535 }), (before, address, z, port) => {
        const marked = z ? `${address.text}%${z}` : address.text;
        const text = `${before}[${marked}]:${port}/`;
        expect(findIps(text)).toEqual([
          { ip: address.canonical, version: 6, start: before.length + 1, end: before.length + 1 + marked.length },
        ]);
      }),
      RUNS,
    );
  });

  it('normalizeIp gives the same canonical text through wrappers', () => {
    const wrap = fc.constantFrom(
      (a: string) => ` ${a} `,
      (a: string, v: number) => (v === 4 ? `${a}:8080` : `[${a}]:8080`),
      (a: string, v: number) => (v === 4 ? `hxxp://${a}/x` : `http://[${a}]/x`),
      (a: string) => `"${a}",`,
    );
    fc.assert(
      fc.property(fc.oneof(ipv4Text, ipv6Text), wrap, (address, w) => {
        expect(normalizeIp(w(address.text, address.version))).toBe(address.canonical);
      }),
      RUNS,
    );
  });
});

describe('properties: arbitrary text', () => {
  function checkInvariants(text: string) {
    const matches = findIps(text);
    let previousEnd = 0;
    for (const m of matches) {
      expect(m.start).toBeGreaterThanOrEqual(previousEnd);
      expect(m.end).toBeGreaterThan(m.start);
      expect(m.end).toBeLessThanOrEqual(text.length);
      previousEnd = m.end;
      // The reported address parses back, with ipaddr.js, to itself...
      const parsed = ipaddr.parse(m.ip);
      expect(parsed.kind()).toBe(m.version === 4 ? 'ipv4' : 'ipv6');
      expect(referenceCanonical(m.ip)).toBe(m.ip);
      // ...and is what the marked characters say, once defang and zone are removed.
      const marked = text
        .slice(m.start, m.end)
        .replace(/\[(\.|dot)\]|\((\.|dot)\)|\{(\.|dot)\}/gi, '.')
        .replaceAll('[:]', ':')
        .replace(/%.*$/, '');
      expect(ipaddr.parse(marked).toNormalizedString()).toBe(parsed.toNormalizedString());
    }
  }

  it('never throws; matches are sorted, disjoint and parse back to themselves (IP-like soup)', () => {
    fc.assert(fc.property(ipLikeText, checkInvariants), runs(1000));
  });

  it('never throws on any Unicode text', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 200 }), checkInvariants), runs(200));
  });
});

describe('properties: classification agrees with ipaddr.js ranges', () => {
  /** What each ipaddr.js range may be called here (ours follow the IANA registries more closely). */
  const ALLOWED: Record<string, IpClass[] | 'embedded'> = {
    unicast: ['public', 'reserved'],
    unspecified: ['unspecified', 'reserved'],
    broadcast: ['broadcast'],
    multicast: ['multicast'],
    linkLocal: ['link-local'],
    loopback: ['loopback'],
    carrierGradeNat: ['shared'],
    private: ['private'],
    reserved: ['reserved', 'documentation', 'benchmarking', 'public'],
    as112: ['public'],
    amt: ['public'],
    uniqueLocal: ['private'],
    ipv4Mapped: 'embedded',
    deprecatedSiteLocal: ['reserved'],
    discard: ['reserved'],
    rfc6145: ['reserved'],
    rfc6052: 'embedded',
    '6to4': 'embedded',
    teredo: ['reserved'],
    benchmarking: ['benchmarking'],
    as112v6: ['public'],
    deprecatedOrchid: ['reserved'],
    orchid2: ['public'],
    droneRemoteIdProtocolEntityTags: ['public'],
    segmentRouting: ['reserved'],
  };

  /** Mapped and NAT64 addresses carry IPv4 in the last 32 bits, 6to4 in bits 16 to 48. */
  function embeddedClass(v6: ipaddr.IPv6): IpClass {
    const p = v6.parts;
    if (p[0] === 0x64 && p[1] === 0xff9b && p[2] === 1) return 'reserved'; // local-use NAT64 /48
    const [hi, lo] = v6.range() === '6to4' ? [p[1]!, p[2]!] : [p[6]!, p[7]!];
    return classifyIp([hi >> 8, hi & 255, lo >> 8, lo & 255].join('.'));
  }

  const v4InRanges = fc.oneof(
    fc.ipV4(),
    fc.tuple(fc.constantFrom(0, 10, 100, 127, 169, 172, 192, 198, 203, 224, 239, 240, 255), fc.nat(255), fc.nat(255), fc.nat(255)).map((o) => o.join('.')),
  );
  const v6InRanges = fc.oneof(
    fc.ipV6(),
    fc
      .tuple(fc.constantFrom('::', '::ffff:', '64:ff9b::', '64:ff9b:1::', '100::', '2001::', '2001:2::', '2001:db8::', '2002:', 'fc00::', 'fe80::', 'fec0::', 'ff02::', '3fff::', '5f00::'), fc.ipV4())
      .map(([p, v4]) => (p.endsWith(':') && p !== '2002:' ? `${p}${v4}` : `2002:${v4.split('.').map(Number).reduce((a, o, i) => a + (i % 2 ? o.toString(16).padStart(2, '0') : (i ? ':' : '') + o.toString(16)), '')}::1`)),
  );

  it('every address gets a class compatible with its ipaddr.js range', () => {
    fc.assert(
      fc.property(fc.oneof(v4InRanges, v6InRanges), (ip) => {
        const canonical = normalizeIp(ip);
        fc.pre(canonical !== null); // fc.ipV6 writes ::a.b.c.d, which ipaddr.js reads as mapped
        const parsed = ipaddr.parse(canonical!);
        const allowed = ALLOWED[parsed.range()];
        expect(allowed, `unknown ipaddr.js range ${parsed.range()}`).toBeDefined();
        const kind = classifyIp(canonical!);
        if (allowed === 'embedded') expect(kind).toBe(embeddedClass(parsed as ipaddr.IPv6));
        else expect(allowed).toContain(kind);
      }),
      runs(1000),
    );
  });
});
