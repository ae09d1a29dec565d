/**
 * Is this exactly one address (or CIDR block)? The API client checks with it, so a malformed
 * value never reaches the server (a 400 still costs quota). It uses lib/ip's strict parsers, the same rules as findIps: four decimal parts with no
 * leading zeros (ipaddr.js-style parsers accept `127.1`, `0x7f.1` and `3232235777`), RFC 4291
 * text forms for IPv6. Unlike normalizeIp it accepts no wrapping: callers send bare addresses.
 */
import { formatIpv6 } from './format-ipv6';
import { parseIpv4 } from './parse-ipv4';
import { parseIpv6 } from './parse-ipv6';

export function isValidIpv4(value: string): boolean {
  return parseIpv4(value) >= 0;
}

export function isValidIp(value: string): boolean {
  if (isValidIpv4(value)) return true;
  // A zone id (`fe80::1%eth0`) names an interface on this machine: meaningless to the service.
  if (!value.includes(':') || value.includes('%')) return false;
  return parseIpv6(value) !== null;
}

/**
 * The key two spellings of one address share (`2001:DB8::1` and `2001:db8:0::1`), used to
 * de-duplicate requests and to match the server's answers to them. Callers check validity first.
 */
export function ipKey(value: string): string {
  const trimmed = value.trim();
  if (isValidIpv4(trimmed)) return trimmed;
  const groups = parseIpv6(trimmed);
  return groups ? formatIpv6(groups) : trimmed.toLowerCase();
}

/** `a.b.c.d/n` or `v6/n`, with the strict address check; size limits are isSubnetTooLarge's. */
export function parseCidr(value: string): { address: string; prefix: number; version: 4 | 6 } | null {
  const match = /^([^/\s]+)\/(\d{1,3})$/.exec(value.trim());
  if (!match) return null;
  const address = match[1]!;
  const prefix = Number(match[2]);
  if (isValidIpv4(address)) return prefix <= 32 ? { address, prefix, version: 4 } : null;
  if (isValidIp(address)) return prefix <= 128 ? { address, prefix, version: 6 } : null;
  return null;
}

/**
 * The documented maximum is /24, "256 IP addresses"; larger blocks are a 400 that still costs.
 * For IPv6 the same 256 addresses is a /120.
 */
export function isSubnetTooLarge(cidr: { prefix: number; version: 4 | 6 }): boolean {
  return cidr.prefix < (cidr.version === 4 ? 24 : 120);
}
