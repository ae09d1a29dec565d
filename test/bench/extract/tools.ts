/**
 * The three extractors compared, each returning canonical addresses (the contract of
 * findIps), so the comparison is like for like: same input, same output shape.
 */
import { extractIPv4s, extractIPv6s, refang } from 'ioc-extractor';
import ipRegex from 'ip-regex';
import ipaddr from 'ipaddr.js';
import { findIps } from '../../../lib/ip';

/** ipaddr.js canonical text for a candidate, or null when it does not parse (validation). */
function canonical(candidate: string): string | null {
  const zone = candidate.indexOf('%');
  const address = zone < 0 ? candidate : candidate.slice(0, zone);
  if (!ipaddr.isValid(address)) return null;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') {
    // ipaddr.js also accepts `127.1` and `0x7f.0.0.1`; a fair validator keeps only four-part decimal.
    return ipaddr.IPv4.isValidFourPartDecimal(address) ? parsed.toString() : null;
  }
  const v6 = parsed as ipaddr.IPv6;
  return v6.isIPv4MappedAddress() ? `::ffff:${v6.toIPv4Address().toString()}` : v6.toRFC5952String();
}

function canonicalAll(candidates: Iterable<string>): string[] {
  const out: string[] = [];
  for (const c of candidates) {
    const ip = canonical(c);
    if (ip !== null) out.push(ip);
  }
  return out;
}

export interface Extractor {
  name: string;
  extract: (text: string) => string[];
}

export const EXTRACTORS: Extractor[] = [
  { name: 'lib/ip findIps', extract: (text) => findIps(text).map((m) => m.ip) },
  {
    name: 'ip-regex + ipaddr.js',
    extract: (text) => canonicalAll(text.match(ipRegex()) ?? []),
  },
  {
    name: 'ioc-extractor',
    // Its documented pipeline: refang, then extract; unsorted to skip work we do not need.
    extract: (text) => {
      const clean = refang(text);
      return canonicalAll([...extractIPv4s(clean, { sort: false }), ...extractIPv6s(clean, { sort: false })]);
    },
  },
];
