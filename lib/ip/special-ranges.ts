/**
 * The IANA special-purpose address registries, as the reasons not to send an address to a
 * reputation API. Most specific first: the first matching row wins.
 * https://www.iana.org/assignments/iana-ipv4-special-registry/
 * https://www.iana.org/assignments/iana-ipv6-special-registry/
 */
import type { IpClass } from './types';

export type RangeRow = readonly [prefix: string, length: number, kind: IpClass];

export const IPV4_RANGES: readonly RangeRow[] = [
  ['0.0.0.0', 32, 'unspecified'],
  ['0.0.0.0', 8, 'reserved'], // "this network"
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'shared'], // carrier-grade NAT, RFC 6598
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  // Inside 192.0.0.0/24, the registry marks these two anycast services globally reachable.
  ['192.0.0.9', 32, 'public'],
  ['192.0.0.10', 32, 'public'],
  ['192.0.0.0', 24, 'reserved'], // IETF protocol assignments
  ['192.0.2.0', 24, 'documentation'], // TEST-NET-1
  ['192.88.99.0', 24, 'reserved'], // deprecated 6to4 relay anycast
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'], // TEST-NET-2
  ['203.0.113.0', 24, 'documentation'], // TEST-NET-3
  ['224.0.0.0', 4, 'multicast'],
  ['255.255.255.255', 32, 'broadcast'],
  ['240.0.0.0', 4, 'reserved'],
];

/** Rows that embed an IPv4 address in the last 32 bits: classified by that address. */
export const IPV6_EMBEDDING_IPV4: readonly (readonly [prefix: string, length: number])[] = [
  ['::ffff:0:0', 96], // IPv4-mapped
  ['64:ff9b::', 96], // NAT64 well-known prefix, RFC 6052
];

export const IPV6_RANGES: readonly RangeRow[] = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['::', 8, 'reserved'], // includes deprecated IPv4-compatible ::a.b.c.d
  ['64:ff9b:1::', 48, 'reserved'], // local-use NAT64, RFC 8215
  ['100::', 64, 'reserved'], // discard-only
  ['100:0:0:1::', 64, 'reserved'], // dummy prefix, RFC 9780
  // Inside 2001::/23, globally reachable per the registry:
  ['2001:1::1', 128, 'public'], // port control protocol anycast
  ['2001:1::2', 128, 'public'], // TURN anycast
  ['2001:1::3', 128, 'public'], // DNS-SD SRP anycast
  ['2001:3::', 32, 'public'], // AMT
  ['2001:4:112::', 48, 'public'], // AS112-v6
  ['2001:20::', 28, 'public'], // ORCHIDv2
  ['2001:30::', 28, 'public'], // drone remote ID
  ['2001:2::', 48, 'benchmarking'],
  ['2001:db8::', 32, 'documentation'],
  ['2001::', 23, 'reserved'], // IETF protocol assignments, Teredo
  ['3fff::', 20, 'documentation'],
  ['5f00::', 16, 'reserved'], // SRv6 SIDs
  ['fc00::', 7, 'private'], // unique local
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'reserved'], // deprecated site-local
  ['ff00::', 8, 'multicast'],
];

/** 6to4 (RFC 3056) carries the site's IPv4 address in bits 16 to 48. */
export const SIX_TO_FOUR: readonly [prefix: string, length: number] = ['2002::', 16];

/** Everything outside 2000::/3 that no row above names is unassigned or reserved by IANA. */
export const GLOBAL_UNICAST: readonly [prefix: string, length: number] = ['2000::', 3];
