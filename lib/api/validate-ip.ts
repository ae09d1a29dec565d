/**
 * The client's own IP check, so a malformed value never reaches the server (a 400 still costs
 * quota). Deliberately independent of lib/ip: the API layer must be safe whoever calls it.
 */
import ipaddr from 'ipaddr.js';

// ipaddr.js accepts `127.1`, `0x7f.1` and `3232235777` as IPv4; the service does not promise
// to, and a SIEM page that shows them almost never means an address. Four decimal parts, no
// leading zeros (which some parsers read as octal).
const OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
const IPV4 = new RegExp(`^${OCTET}(?:\\.${OCTET}){3}$`);

export function isValidIpv4(value: string): boolean {
  return IPV4.test(value);
}

export function isValidIp(value: string): boolean {
  if (isValidIpv4(value)) return true;
  // A zone id (`fe80::1%eth0`) names an interface on this machine: meaningless to the service.
  if (!value.includes(':') || value.includes('%')) return false;
  // An embedded IPv4 tail (`::ffff:1.2.3.4`) must pass the same strict check.
  const tail = value.slice(value.lastIndexOf(':') + 1);
  if (tail.includes('.') && !isValidIpv4(tail)) return false;
  return ipaddr.IPv6.isValid(value);
}

/**
 * The key two spellings of one address share (`2001:DB8::1` and `2001:db8:0::1`), used to
 * de-duplicate requests and to match the server's answers to them. Callers check validity first.
 */
export function ipKey(value: string): string {
  const trimmed = value.trim();
  if (isValidIpv4(trimmed)) return trimmed;
  try {
    return ipaddr.IPv6.parse(trimmed).toNormalizedString();
  } catch {
    return trimmed.toLowerCase();
  }
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
