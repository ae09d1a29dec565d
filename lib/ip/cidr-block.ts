/**
 * CIDR blocks as values: the network a prefix keeps of an address, its size, the addresses
 * `/checkSubnet` scans, and the largest block the API accepts. Bit arithmetic on the strict
 * parsers' output (a 32-bit number for IPv4, eight 16-bit groups for IPv6), no dependency.
 */
import { formatIpv6 } from './format-ipv6';
import { formatIpv4, parseIpv4 } from './parse-ipv4';
import { parseIpv6 } from './parse-ipv6';

export interface CidrBlock {
  /** Canonical `network/prefix`, e.g. `203.0.113.0/24`, `2001:db8::/120`. */
  cidr: string;
  /** The network address, canonical (RFC 5952 for IPv6). */
  network: string;
  prefix: number;
  version: 4 | 6;
}

/**
 * The documented limit: "at most /24", 256 addresses. For IPv6 the same 256 addresses is a
 * /120 (lib/api/validate-ip.ts's isSubnetTooLarge applies the same rule before sending).
 */
export const API_MAX_BLOCK = { 4: 24, 6: 120 } as const;
export const API_MAX_ADDRESSES = 256;

export const BITS = { 4: 32, 6: 128 } as const;

function v4Mask(prefix: number): number {
  return prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
}

/** The groups with every bit after `prefix` cleared. */
function maskGroups(groups: readonly number[], prefix: number): number[] {
  return groups.map((g, i) => {
    const kept = Math.max(0, Math.min(16, prefix - i * 16));
    return kept === 0 ? 0 : g & ((0xffff << (16 - kept)) & 0xffff);
  });
}

/**
 * The block of `prefix` bits that holds `address` (a bare, valid address), or null when the
 * address or prefix is invalid. `hostBits` says whether the address had bits set after the
 * prefix (`203.0.113.7/24` names a host and its network; `203.0.113.0/24` only the network).
 */
export function blockOf(address: string, prefix: number): (CidrBlock & { hostBits: boolean }) | null {
  if (!Number.isInteger(prefix) || prefix < 0) return null;
  const v4 = address.includes(':') ? -1 : parseIpv4(address);
  if (v4 >= 0) {
    if (prefix > 32) return null;
    const network = (v4 & v4Mask(prefix)) >>> 0;
    const text = formatIpv4(network);
    return { cidr: `${text}/${prefix}`, network: text, prefix, version: 4, hostBits: network !== v4 };
  }
  const groups = address.includes(':') ? parseIpv6(address) : null;
  if (!groups || prefix > 128) return null;
  const masked = maskGroups(groups, prefix);
  const text = formatIpv6(masked);
  return { cidr: `${text}/${prefix}`, network: text, prefix, version: 6, hostBits: masked.some((g, i) => g !== groups[i]) };
}

/** Addresses in the block; past 2^53 it is only a lower bound, which is all callers compare. */
export function blockSize(block: Pick<CidrBlock, 'prefix' | 'version'>): number {
  return 2 ** (BITS[block.version] - block.prefix);
}

/** Whether `/checkSubnet` accepts the block (larger ones are a 400 that still costs a unit). */
export function isWithinApiLimit(block: Pick<CidrBlock, 'prefix' | 'version'>): boolean {
  return block.prefix >= API_MAX_BLOCK[block.version];
}

/** `/24` or `/120`: the largest block the API scans, for this address family. */
export function apiLimitLabel(version: 4 | 6): string {
  return `/${API_MAX_BLOCK[version]}`;
}

/**
 * The addresses `/checkSubnet` reports on. The documented example answers a /24 with
 * `total_ips: 254`: the network and broadcast addresses are not scanned in blocks larger
 * than two addresses. Only for blocks within the API's limit (at most 256 addresses).
 */
export function scannedAddresses(block: CidrBlock): string[] {
  const size = blockSize(block);
  if (!isWithinApiLimit(block)) return [];
  const offsets = size > 2 ? Array.from({ length: size - 2 }, (_, i) => i + 1) : Array.from({ length: size }, (_, i) => i);
  if (block.version === 4) {
    const base = parseIpv4(block.network);
    return offsets.map((o) => formatIpv4(base + o));
  }
  const groups = parseIpv6(block.network)!;
  return offsets.map((o) => {
    const copy = [...groups];
    copy[7] = groups[7]! + o; // at most 256 addresses: only the last group changes
    return formatIpv6(copy);
  });
}

/** Whether `ip` (canonical) lies in the block. */
export function blockContains(block: CidrBlock, ip: string): boolean {
  const holder = blockOf(ip, block.prefix);
  return holder !== null && holder.version === block.version && holder.network === block.network;
}
