/**
 * Decides whether an IPv6-shaped candidate is an address: RFC 4291 syntax, nothing glued on
 * either side, and not one of the look-alikes (code, EUI-64). Reads past a `label:` prefix.
 */
import {
  colonEndingAt,
  colonStartingAt,
  dotStartingAt,
  isDottedBefore,
  isGlueAt,
  isGlueBefore,
  isHexDigit,
  labelPrefixLength,
} from './boundaries';
import { stickyCandidateRegex } from './candidate-pattern';
import { formatIpv6 } from './format-ipv6';
import { looksLikeCode, looksLikeEui64 } from './ipv6-lookalikes';
import { parseIpv6 } from './parse-ipv6';
import type { IpMatch } from './types';

const stickyPattern = stickyCandidateRegex();

export function checkIpv6(text: string, start: number, raw: string): IpMatch | null {
  const match = validateIpv6(text, start, raw, false);
  if (match) return match;
  const label = labelPrefixLength(text, start, raw);
  if (label === 0) return null;
  // Re-read from after the label: the first reading spent one of its bounded groups on it.
  stickyPattern.lastIndex = start + label;
  const again = stickyPattern.exec(text);
  if (again === null || !again[0].includes(':')) return null;
  return validateIpv6(text, start + label, again[0], true);
}

function validateIpv6(text: string, start: number, raw: string, afterLabel: boolean): IpMatch | null {
  let end = start + raw.length;
  let groups = parseCandidateIpv6(raw);
  // "at 2001:db8::1: denied": a colon that ends a phrase is not the address's.
  if (groups === null && colonEndingAt(raw, raw.length) === 1 && raw.charCodeAt(raw.length - 2) !== 58) {
    end -= 1;
    raw = raw.slice(0, -1);
    groups = parseCandidateIpv6(raw);
  }
  if (groups === null) return null;
  if (!hasIpv6Boundaries(text, start, end, afterLabel)) return null;
  if (looksLikeCode(text, start, end, raw) || looksLikeEui64(raw)) return null;
  return { ip: formatIpv6(groups), version: 6, start, end };
}

function parseCandidateIpv6(raw: string): number[] | null {
  const zone = raw.indexOf('%');
  let address = zone < 0 ? raw : raw.slice(0, zone);
  if (address.includes('[')) address = address.replaceAll('[:]', ':');
  return parseIpv6(address);
}

function hasIpv6Boundaries(text: string, start: number, end: number, afterLabel: boolean): boolean {
  if (isGlueBefore(text, start) || isGlueAt(text, end)) return false;
  // More groups or colons on either side: a longer hex-and-colon run (hashes, fingerprints).
  if (!afterLabel && colonEndingAt(text, start) > 0) return false;
  const colonAfter = colonStartingAt(text, end);
  if (colonAfter > 0) {
    const next = text.charCodeAt(end + colonAfter);
    if (isHexDigit(next) || next === 58 || next === 91 || next === 46) return false;
  }
  if (isDottedBefore(text, start)) return false;
  const dotAfter = dotStartingAt(text, end);
  if (dotAfter > 0 && isGlueAt(text, end + dotAfter)) return false;
  return true;
}
