/**
 * The lookup engine's question: may this address go to the API? Only `public` ones, unless
 * the user turned on `sendPrivate` (settings' lookupPolicy), which sends every valid address.
 */
import { classifyIp } from './classify';
import { normalizeIp } from './normalize';
import type { IpClass } from './types';

export interface LookupPolicyForIp {
  sendPrivate: boolean;
}

/** Why not to send `ip`, or null to send it. `invalid` when it is not an address at all. */
export function lookupSkipReason(ip: string, policy: LookupPolicyForIp): Exclude<IpClass, 'public'> | 'invalid' | null {
  if (normalizeIp(ip) === null) return 'invalid';
  const kind = classifyIp(ip);
  return kind === 'public' || policy.sendPrivate ? null : kind;
}

export function isLookupable(ip: string, policy: LookupPolicyForIp): boolean {
  return lookupSkipReason(ip, policy) === null;
}

/**
 * `::ffff:8.8.8.8` as `8.8.8.8`: the same host, and the form reputation data is keyed by.
 * Other addresses come back canonical; invalid input comes back null.
 */
export function toLookupForm(ip: string): string | null {
  const canonical = normalizeIp(ip);
  if (canonical?.startsWith('::ffff:') && canonical.includes('.')) return canonical.slice(7);
  return canonical;
}
