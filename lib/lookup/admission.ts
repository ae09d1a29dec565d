/**
 * "May this IP be sent to the API now?", answered in one place. The lookup service asks before
 * it queues (admit); the bulk send and the detailed lookups ask again just before they call
 * (refusalOf), as the key or the quota may have changed while an IP waited. The cache always
 * answers first, whatever these rules say: a cached answer sends nothing.
 *
 * The rules, in order:
 *   automatic lookups switched off ─► skipped 'automatic-off' (automatic lookups only)
 *   no API key                     ─► skipped 'no-key'
 *   the server rejected the key    ─► that error, until the key changes or verifies
 *   quota exhausted                ─► skipped 'quota-exhausted'
 *   asked by a worker that stopped ─► skipped 'interrupted' (automatic lookups only; the
 *   before its answer was kept        lost call may be paid already, see call-journal.ts)
 *   more than the per-page cap     ─► skipped 'page-cap' (automatic lookups only)
 *   more than the site's daily     ─► skipped 'site-cap' (automatic lookups only)
 *   ceiling
 */
import type { CallContext } from './call-context';
import type { PageCap } from './page-cap';
import { failed, skipped } from './results';
import type { LookupPriority, LookupResult } from './types';

/** What sending depends on at call time: a client, a key not rejected, quota left. */
export type SendState = Pick<CallContext, 'client' | 'keyError' | 'guard'>;

/** The answer for every IP while nothing may be sent, or null if sending is allowed. */
export function refusalOf(state: SendState): ((ip: string) => LookupResult) | null {
  const keyError = state.keyError();
  // No client with a reason (a gateway sign-in without a session) fails with that reason.
  if (!state.client()) return keyError ? (ip) => failed(ip, keyError) : (ip) => skipped(ip, 'no-key');
  if (keyError) return (ip) => failed(ip, keyError);
  if (state.guard.blocked) return (ip) => skipped(ip, 'quota-exhausted');
  return null;
}

export interface AdmissionRules {
  /** The policy's "look up the IPs found on pages" switch. */
  automaticAllowed(): boolean;
  state: SendState;
  pageCap: Pick<PageCap, 'admit'>;
  /** The quota refused the lookup: a chance to learn whether a new period began. */
  onQuotaBlocked(): void;
  /** Asked in a call whose worker stopped before its answer was kept (it may be paid already). */
  interrupted(ip: string): boolean;
}

/** Answers the IPs that must not be sent (through `answer`), returns the ones that may. */
export function admit(
  ips: string[],
  request: { priority: LookupPriority; source?: string; site?: string },
  rules: AdmissionRules,
  answer: (ip: string, result: LookupResult) => void,
): string[] {
  if (!ips.length) return ips;
  const all = (result: (ip: string) => LookupResult) => {
    for (const ip of ips) answer(ip, result(ip));
    return [];
  };
  const automatic = request.priority !== 'manual';
  if (automatic && !rules.automaticAllowed()) return all((ip) => skipped(ip, 'automatic-off'));
  const refused = refusalOf(rules.state);
  if (refused) {
    // Of these refusals only the quota's may lift by itself (a new billing period).
    if (!rules.state.keyError() && rules.state.guard.blocked) rules.onQuotaBlocked();
    return all(refused);
  }
  if (!automatic) return ips;
  const sendable: string[] = [];
  for (const ip of ips) {
    if (rules.interrupted(ip)) answer(ip, skipped(ip, 'interrupted'));
    else sendable.push(ip);
  }
  const { admitted, capped, overCeiling, pageCap, siteCap } = rules.pageCap.admit(request.source ?? 'unknown-page', sendable, request.site);
  // Said apart from private addresses all the way to the page: these are public and one click
  // away from a lookup, and the card names the cap that stopped them.
  const byCeiling = new Set(overCeiling);
  for (const ip of capped) {
    answer(ip, byCeiling.has(ip) ? skipped(ip, 'site-cap', siteCap) : skipped(ip, 'page-cap', pageCap));
  }
  return admitted;
}
