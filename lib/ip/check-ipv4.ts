/**
 * Decides whether an IPv4-shaped candidate is an address: strict four-part decimal, nothing
 * glued on either side, and no version context.
 */
import { NOT_PLAIN, PLAIN_REFUSED } from './candidate-scan';
import { dotStartingAt, isDottedBefore, isGlueAt, isGlueBefore } from './boundaries';
import { formatIpv4, parseIpv4 } from './parse-ipv4';
import type { IpMatch } from './types';
import { isVersionContext } from './version-context';

/**
 * `plain`: what nextCandidate found reading a plain dotted candidate (`plainCandidate`), so
 * it is not parsed twice; NOT_PLAIN to parse here.
 */
export function checkIpv4(text: string, start: number, raw: string, plain = NOT_PLAIN): IpMatch | null {
  if (plain === PLAIN_REFUSED) return null;
  const end = start + raw.length;
  if (isGlueBefore(text, start) || isGlueAt(text, end)) return null;
  if (isDottedBefore(text, start)) return null;
  // `1.2.3.4.5`: a dot (or `[.]`) that joins the candidate to more of a number. A dot before
  // a space is a sentence end.
  const dotAfter = dotStartingAt(text, end);
  if (dotAfter > 0 && isGlueAt(text, end + dotAfter)) return null;
  const defanged = plain === NOT_PLAIN && !isPlainDotted(raw);
  const value = plain === NOT_PLAIN ? parseIpv4(text, start, end, defanged) : 0;
  if (value < 0) return null;
  if (isVersionContext(text, start)) return null;
  // Without defang and leading zeros the text is already canonical.
  return { ip: defanged ? formatIpv4(value) : raw, version: 4, start, end };
}

function isPlainDotted(raw: string): boolean {
  for (let i = 0; i < raw.length; i++) {
    const code = raw.charCodeAt(i);
    if (code !== 46 && (code < 48 || code > 57)) return false;
  }
  return true;
}
