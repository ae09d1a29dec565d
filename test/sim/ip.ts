/**
 * The simulator's own notion of a valid IP and of a CIDR block. Kept apart from lib/api on
 * purpose: the server judging input independently is what lets contract tests catch a client
 * that lets a malformed value through.
 */
import ipaddr from 'ipaddr.js';

const OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
const IPV4 = new RegExp(`^${OCTET}(?:\\.${OCTET}){3}$`);

/** Canonical text of a valid IP (RFC 5952 for IPv6), or null when the server would say 400. */
export function canonicalIp(value: string): string | null {
  const text = value.trim();
  if (IPV4.test(text)) return text;
  if (!text.includes(':') || text.includes('%')) return null;
  const tail = text.slice(text.lastIndexOf(':') + 1);
  if (tail.includes('.') && !IPV4.test(tail)) return null;
  if (!ipaddr.IPv6.isValid(text)) return null;
  return ipaddr.IPv6.parse(text).toRFC5952String();
}

export interface SubnetScan {
  cidr: string;
  network: string;
  broadcast: string;
  /** The addresses scanned: usable hosts (no network/broadcast) for blocks larger than /31. */
  hosts: string[];
}

export type SubnetParse = { ok: true; scan: SubnetScan } | { ok: false; reason: 'invalid' | 'too-large' };

/** IPv4 blocks up to /24 (the documented limit); IPv6 up to /120, the same 256 addresses. */
export function parseSubnet(value: string): SubnetParse {
  const match = /^([^/\s]+)\/(\d{1,3})$/.exec(value.trim());
  if (!match) return { ok: false, reason: 'invalid' };
  const address = canonicalIp(match[1]!);
  const prefix = Number(match[2]);
  if (!address) return { ok: false, reason: 'invalid' };
  const parsed = ipaddr.parse(address);
  const bits = parsed.kind() === 'ipv4' ? 32 : 128;
  if (prefix > bits) return { ok: false, reason: 'invalid' };
  if (bits - prefix > 8) return { ok: false, reason: 'too-large' };

  const bytes = parsed.toByteArray();
  const size = 2 ** (bits - prefix);
  const last = bytes.length - 1;
  const base = bytes[last]! & ~(size - 1) & 0xff;
  const at = (offset: number) => {
    const copy = [...bytes];
    copy[last] = base + offset;
    const ip = ipaddr.fromByteArray(copy);
    return ip.kind() === 'ipv6' ? (ip as ipaddr.IPv6).toRFC5952String() : ip.toString();
  };
  const usable = size > 2 ? Array.from({ length: size - 2 }, (_, i) => at(i + 1)) : Array.from({ length: size }, (_, i) => at(i));
  return {
    ok: true,
    scan: { cidr: `${at(0)}/${prefix}`, network: at(0), broadcast: at(size - 1), hosts: usable },
  };
}
