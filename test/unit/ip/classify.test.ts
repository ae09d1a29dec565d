import { describe, expect, it } from 'vitest';
import { classifyIp, isLookupable, lookupSkipReason, toLookupForm } from '../../../lib/ip';
import type { IpClass } from '../../../lib/ip';

/** Each range by its first and last address, plus a neighbour just outside where useful. */
const IPV4: [string, IpClass][] = [
  ['0.0.0.0', 'unspecified'],
  ['0.0.0.1', 'reserved'],
  ['0.255.255.255', 'reserved'],
  ['1.0.0.0', 'public'],
  ['9.255.255.255', 'public'],
  ['10.0.0.0', 'private'],
  ['10.255.255.255', 'private'],
  ['11.0.0.0', 'public'],
  ['100.63.255.255', 'public'],
  ['100.64.0.0', 'shared'],
  ['100.127.255.255', 'shared'],
  ['100.128.0.0', 'public'],
  ['127.0.0.1', 'loopback'],
  ['127.255.255.255', 'loopback'],
  ['169.254.0.0', 'link-local'],
  ['169.254.169.254', 'link-local'],
  ['169.255.0.0', 'public'],
  ['172.15.255.255', 'public'],
  ['172.16.0.0', 'private'],
  ['172.31.255.255', 'private'],
  ['172.32.0.0', 'public'],
  ['192.0.0.0', 'reserved'],
  ['192.0.0.9', 'public'],
  ['192.0.0.10', 'public'],
  ['192.0.0.255', 'reserved'],
  ['192.0.2.0', 'documentation'],
  ['192.0.2.255', 'documentation'],
  ['192.0.3.0', 'public'],
  ['192.31.196.1', 'public'], // AS112, globally reachable
  ['192.88.99.1', 'reserved'],
  ['192.167.255.255', 'public'],
  ['192.168.0.0', 'private'],
  ['192.168.255.255', 'private'],
  ['192.169.0.0', 'public'],
  ['198.17.255.255', 'public'],
  ['198.18.0.0', 'benchmarking'],
  ['198.19.255.255', 'benchmarking'],
  ['198.20.0.0', 'public'],
  ['198.51.100.7', 'documentation'],
  ['203.0.113.255', 'documentation'],
  ['203.0.114.0', 'public'],
  ['223.255.255.255', 'public'],
  ['224.0.0.0', 'multicast'],
  ['239.255.255.255', 'multicast'],
  ['240.0.0.0', 'reserved'],
  ['255.255.255.254', 'reserved'],
  ['255.255.255.255', 'broadcast'],
  ['8.8.8.8', 'public'],
];

const IPV6: [string, IpClass][] = [
  ['::', 'unspecified'],
  ['::1', 'loopback'],
  ['::2', 'reserved'],
  ['::1.2.3.4', 'reserved'], // deprecated IPv4-compatible
  ['::ffff:8.8.8.8', 'public'],
  ['::ffff:10.0.0.1', 'private'],
  ['::ffff:127.0.0.1', 'loopback'],
  ['64:ff9b::8.8.8.8', 'public'],
  ['64:ff9b::192.168.1.1', 'private'],
  ['64:ff9b:1::1', 'reserved'],
  ['100::1', 'reserved'],
  ['2001::1', 'reserved'], // Teredo, inside IETF protocol assignments
  ['2001:1::1', 'public'],
  ['2001:1::4', 'reserved'],
  ['2001:2::1', 'benchmarking'],
  ['2001:3::1', 'public'],
  ['2001:4:112::1', 'public'],
  ['2001:20::1', 'public'],
  ['2001:1ff::1', 'reserved'],
  ['2001:200::1', 'public'],
  ['2001:db8::1', 'documentation'],
  ['2001:db8:ffff::1', 'documentation'],
  ['2001:db9::1', 'public'],
  ['2002:0808:0808::1', 'public'], // 6to4 of 8.8.8.8
  ['2002:c0a8:0101::1', 'private'], // 6to4 of 192.168.1.1
  ['2606:4700:4700::1111', 'public'],
  ['3fff::1', 'documentation'],
  ['3fff:fff::1', 'documentation'],
  ['3fff:1000::1', 'public'],
  ['4000::1', 'reserved'], // outside 2000::/3
  ['5f00::1', 'reserved'],
  ['fc00::1', 'private'],
  ['fd12:3456::1', 'private'],
  ['fe80::1', 'link-local'],
  ['febf::1', 'link-local'],
  ['fec0::1', 'reserved'],
  ['ff02::1', 'multicast'],
];

describe('classifyIp', () => {
  it.each(IPV4)('%s is %s', (ip, kind) => expect(classifyIp(ip)).toBe(kind));
  it.each(IPV6)('%s is %s', (ip, kind) => expect(classifyIp(ip)).toBe(kind));

  it('accepts any text normalizeIp accepts', () => {
    expect(classifyIp(' 10[.]0[.]0[.]1:443 ')).toBe('private');
    expect(classifyIp('[FE80::1%eth0]:22')).toBe('link-local');
  });

  it('throws a TypeError for text that is not an address', () => {
    expect(() => classifyIp('127.1')).toThrow(TypeError);
    expect(() => classifyIp('not an ip')).toThrow(/Not an IP address/);
  });
});

describe('lookup helpers', () => {
  it('sends only public addresses unless private ones are allowed', () => {
    expect(isLookupable('8.8.8.8', { sendPrivate: false })).toBe(true);
    expect(isLookupable('10.0.0.1', { sendPrivate: false })).toBe(false);
    expect(isLookupable('10.0.0.1', { sendPrivate: true })).toBe(true);
    expect(isLookupable('nope', { sendPrivate: true })).toBe(false);
  });

  it('gives the reason not to send', () => {
    expect(lookupSkipReason('8.8.8.8', { sendPrivate: false })).toBeNull();
    expect(lookupSkipReason('100.64.0.1', { sendPrivate: false })).toBe('shared');
    expect(lookupSkipReason('2001:db8::1', { sendPrivate: false })).toBe('documentation');
    expect(lookupSkipReason('1.2.3', { sendPrivate: false })).toBe('invalid');
  });

  it('looks IPv4-mapped addresses up as IPv4', () => {
    expect(toLookupForm('::ffff:8.8.8.8')).toBe('8.8.8.8');
    expect(toLookupForm('2001:DB8::1')).toBe('2001:db8::1');
    expect(toLookupForm('x')).toBeNull();
  });
});
