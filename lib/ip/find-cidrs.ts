/**
 * Finds CIDR blocks (`203.0.113.0/24`, `2001:db8::/120`, `203.0.113[.]0/24`) in free text and
 * reads one typed into the popup. The address part is found by findIps, so blocks get the same
 * precision as addresses (no versions, no dates, no `10/24` fractions, no `1.2.3.0.5/24`);
 * what follows is the suffix check:
 * - `/` then a prefix length written as a number (`/0`–`/32`, `/0`–`/128`; no leading zero);
 * - nothing glued after it (`/24a`, `/24.5`, `/24/7`, `/24:80` are something else);
 * - the prefix is shorter than the address (`/32` and `/128` name one host: an address);
 * - no host bits after the prefix. `203.0.113.7/24` is an interface address (`ip addr`), and
 *   Cisco ASA writes `address/port` (`10.1.1.20/22`): both are hosts, left to the IP marks.
 */
import { colonStartingAt, dotStartingAt, isGlueAt } from './boundaries';
import { blockOf, type CidrBlock } from './cidr-block';
import { forEachIp } from './find-ips';
import { normalizeIp } from './normalize';
import type { IpMatch } from './types';

export interface CidrMatch extends CidrBlock {
  /** Offsets of the whole block text, suffix included (end exclusive). */
  start: number;
  end: number;
}

const SLASH = 47;

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

/** Length of a prefix written right at `at` (1 to 3 digits, no leading zero), or 0. */
function prefixDigits(text: string, at: number): number {
  let n = 0;
  while (n < 4 && isDigit(text.charCodeAt(at + n))) n++;
  if (n === 0 || n > 3) return 0;
  if (n > 1 && text.charCodeAt(at) === 48) return 0;
  return n;
}

/** Something after the prefix that makes it part of a longer token. */
function isGluedAfter(text: string, end: number): boolean {
  if (isGlueAt(text, end)) return true;
  const dot = dotStartingAt(text, end);
  if (dot > 0 && isGlueAt(text, end + dot)) return true;
  const next = text.charCodeAt(end);
  if (next === SLASH && isDigit(text.charCodeAt(end + 1))) return true;
  const colon = colonStartingAt(text, end);
  return colon > 0 && isDigit(text.charCodeAt(end + colon));
}

/**
 * The block whose address is `ip` (a findIps match in `text`), or null when no block suffix
 * follows it. Lets a caller that already has the addresses find the blocks without a second scan.
 */
export function cidrAfter(text: string, ip: IpMatch): CidrMatch | null {
  if (text.charCodeAt(ip.end) !== SLASH) return null;
  const digits = prefixDigits(text, ip.end + 1);
  if (digits === 0) return null;
  const end = ip.end + 1 + digits;
  if (isGluedAfter(text, end)) return null;
  const prefix = Number(text.slice(ip.end + 1, end));
  if (prefix >= (ip.version === 4 ? 32 : 128)) return null;
  const block = blockOf(ip.ip, prefix);
  if (!block || block.hostBits) return null;
  return { cidr: block.cidr, network: block.network, prefix, version: block.version, start: ip.start, end };
}

/** Calls `onMatch` for each block in order; matches never overlap. */
export function forEachCidr(text: string, onMatch: (match: CidrMatch) => void): void {
  // Most text has no slash at all: no block, and no need to look for addresses.
  if (!text.includes('/')) return;
  forEachIp(text, (ip) => {
    const block = cidrAfter(text, ip);
    if (block) onMatch(block);
  });
}

export function findCidrs(text: string): CidrMatch[] {
  const matches: CidrMatch[] = [];
  forEachCidr(text, (m) => matches.push(m));
  return matches;
}

/**
 * One block typed or pasted into the popup: lenient about wrapping and defang (as normalizeIp),
 * strict about the address, and accepting host bits (`203.0.113.7/24` means "the /24 that holds
 * 203.0.113.7"; `address` keeps the host). `/32` and `/128` are blocks of one here: typed with a
 * slash, the analyst asked about a block. Null when the text is no block.
 */
export function parseCidrInput(input: string): (CidrBlock & { address: string; hostBits: boolean }) | null {
  const text = input.trim();
  const slash = text.lastIndexOf('/');
  if (slash <= 0) return null;
  const suffix = text.slice(slash + 1).replace(/["'>),;.\s]+$/, '');
  if (!/^(?:0|[1-9]\d{0,2})$/.test(suffix)) return null;
  // The address part goes through normalizeIp: defang, quotes, brackets (not ports or URLs:
  // a `/` there would be a path).
  const head = text.slice(0, slash);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(head) || head.includes('/')) return null;
  const address = normalizeIp(head);
  if (!address) return null;
  const block = blockOf(address, Number(suffix));
  if (!block) return null;
  return { ...block, address };
}
