/**
 * Why an address is or is not sent to the API: `public`, or the special-purpose range it is
 * in. Addresses that carry an IPv4 address (mapped, NAT64, 6to4) take the class of that IPv4.
 */
import { embeddedIpv4 } from './format-ipv6';
import { normalizeIp } from './normalize';
import { parseIpv4 } from './parse-ipv4';
import { parseIpv6 } from './parse-ipv6';
import { GLOBAL_UNICAST, IPV4_RANGES, IPV6_EMBEDDING_IPV4, IPV6_RANGES, SIX_TO_FOUR } from './special-ranges';
import type { IpClass } from './types';

interface V4Row { base: number; mask: number; kind: IpClass }
interface V6Row { groups: number[]; length: number; kind: IpClass }

const v4Rows: V4Row[] = IPV4_RANGES.map(([prefix, length, kind]) => ({
  base: parseIpv4(prefix),
  mask: length === 0 ? 0 : (0xffffffff << (32 - length)) >>> 0,
  kind,
}));

const v6 = (prefix: string) => parseIpv6(prefix)!;
const v6Rows: V6Row[] = IPV6_RANGES.map(([prefix, length, kind]) => ({ groups: v6(prefix), length, kind }));
const embedding = IPV6_EMBEDDING_IPV4.map(([prefix, length]) => ({ groups: v6(prefix), length }));
const sixToFour = { groups: v6(SIX_TO_FOUR[0]), length: SIX_TO_FOUR[1] };
const globalUnicast = { groups: v6(GLOBAL_UNICAST[0]), length: GLOBAL_UNICAST[1] };

function classifyIpv4(value: number): IpClass {
  for (const row of v4Rows) if (((value & row.mask) >>> 0) === row.base) return row.kind;
  return 'public';
}

function inPrefix(groups: readonly number[], prefix: { groups: readonly number[]; length: number }): boolean {
  let bits = prefix.length;
  for (let i = 0; bits > 0; i++, bits -= 16) {
    const mask = bits >= 16 ? 0xffff : (0xffff << (16 - bits)) & 0xffff;
    if ((groups[i]! & mask) !== prefix.groups[i]) return false;
  }
  return true;
}

function classifyIpv6(groups: readonly number[]): IpClass {
  for (const prefix of embedding) if (inPrefix(groups, prefix)) return classifyIpv4(embeddedIpv4(groups));
  if (inPrefix(groups, sixToFour)) return classifyIpv4(embeddedIpv4(groups, 1));
  for (const row of v6Rows) if (inPrefix(groups, row)) return row.kind;
  return inPrefix(groups, globalUnicast) ? 'public' : 'reserved';
}

/**
 * Takes a canonical address (or anything normalizeIp accepts). Throws a TypeError for text that
 * is not an address: callers decide what invalid input means for them (see lookupSkipReason).
 */
export function classifyIp(ip: string): IpClass {
  const canonical = normalizeIp(ip);
  if (canonical === null) throw new TypeError(`Not an IP address: ${JSON.stringify(ip.slice(0, 64))}`);
  if (!canonical.includes(':')) return classifyIpv4(parseIpv4(canonical));
  return classifyIpv6(parseIpv6(canonical)!);
}
