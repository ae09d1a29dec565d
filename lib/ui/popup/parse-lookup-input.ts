/**
 * What the popup's "IP address or text" box holds: one IP (a detailed lookup), pasted text
 * (a log excerpt, a CSV column: every IP in it, looked up in bulk), or nothing usable (an
 * inline message, and nothing is sent: a malformed IP would still cost quota at the server).
 */
import { classifyIp, findIps, normalizeIp, toLookupForm } from '../../ip/index';
import type { IpClass } from '../../ip/types';

/** The protocol's limit for one `ui:lookup` message. */
export const MAX_LOOKUP_IPS = 10_000;

export interface FoundIp {
  ip: string;
  count: number;
  ipClass: IpClass;
}

export type ParsedLookupInput =
  | { kind: 'invalid'; message: string }
  | { kind: 'single'; ip: string; ipClass: IpClass; send: boolean }
  | {
      kind: 'text';
      /** Every distinct IP, in order of first appearance. */
      ips: FoundIp[];
      /** Occurrences, counting repeats. */
      occurrences: number;
      /** The IPs that will be sent (public ones, or all when private IPs may be sent). */
      toLookup: string[];
      /** Private, loopback, documentation...: listed, not sent. */
      skipped: FoundIp[];
      /** IPs beyond MAX_LOOKUP_IPS that are not looked up. */
      truncated: number;
    };

/** Looks like someone tried to type an address (digits, dots, colons, hex), not a word. */
const IP_ATTEMPT = /^[[\]0-9a-f:.%/]+$/i;

/** `::ffff:8.8.8.8` is looked up (and answered) as `8.8.8.8`: key rows the same way. */
function lookupForm(ip: string): string {
  return toLookupForm(ip) ?? ip;
}

export function parseLookupInput(input: string, options: { sendPrivate: boolean }): ParsedLookupInput {
  const text = input.trim();
  if (!text) return { kind: 'invalid', message: 'Enter an IP address, or paste text that contains IP addresses.' };

  const singleToken = !/\s|,|;/.test(text);
  // normalizeIp accepts one address with its wrapping: "[2001:db8::1]:443", "1.2.3[.]4", a URL.
  const direct = singleToken ? normalizeIp(text) : null;
  const matches = direct ? [] : findIps(text);
  const unique = new Map<string, number>();
  for (const m of matches) {
    const ip = lookupForm(m.ip);
    unique.set(ip, (unique.get(ip) ?? 0) + 1);
  }

  const single = direct ? lookupForm(direct) : singleToken && unique.size === 1 ? [...unique.keys()][0]! : null;
  if (single) {
    const ipClass = classifyIp(single);
    return { kind: 'single', ip: single, ipClass, send: ipClass === 'public' || options.sendPrivate };
  }

  if (unique.size === 0) {
    if (singleToken && IP_ATTEMPT.test(text) && /[.:]/.test(text)) {
      return { kind: 'invalid', message: `"${text.slice(0, 80)}" is not a valid IP address.` };
    }
    return { kind: 'invalid', message: 'No IP addresses found in this text.' };
  }

  const ips: FoundIp[] = [...unique].map(([ip, count]) => ({ ip, count, ipClass: classifyIp(ip) }));
  const sendable = ips.filter((f) => f.ipClass === 'public' || options.sendPrivate);
  const skipped = ips.filter((f) => !(f.ipClass === 'public' || options.sendPrivate));
  const toLookup = sendable.slice(0, MAX_LOOKUP_IPS).map((f) => f.ip);
  return {
    kind: 'text',
    ips,
    occurrences: matches.length,
    toLookup,
    skipped,
    truncated: sendable.length - toLookup.length,
  };
}
