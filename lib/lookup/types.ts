/**
 * What the lookup service answers for each IP. Shared by the background (which produces it),
 * the content script and the popup (which show it). Everything here is plain JSON so it can
 * cross the messaging boundary unchanged.
 */
import type { ApiErrorData } from '../api/errors';
import type { GatewayProvenance, Reputation, TeamQuota } from '../api/types';
import type { IpClass } from '../ip/types';

/** Who asked: page scans are automatic and respect the quota reserve; manual ones may use it. */
export type LookupPriority = 'manual' | 'visible' | 'background';

export type SkipReason =
  | Exclude<IpClass, 'public'> // private, loopback, documentation...
  | 'invalid' // not an IP address
  | 'quota-reserve' // automatic lookups stop at the reserve the user keeps
  | 'quota-exhausted' // the server said the usage limit is reached
  | 'page-cap' // the per-page cap on automatic lookups is reached (this tab and site, this hour)
  | 'site-cap' // the site's daily ceiling on automatic lookups is reached (all its tabs together)
  | 'interrupted' // asked just before the worker was stopped: may be paid already, not re-sent automatically
  | 'automatic-off' // the user turned automatic lookups off
  | 'no-key'; // no API key configured

export type LookupResult =
  /** `gateway`: where a team gateway's answer came from (fetchedAt: when it reached us). */
  | { ip: string; status: 'found'; data: Reputation; fetchedAt: number; gateway?: GatewayProvenance }
  | { ip: string; status: 'not-found'; fetchedAt: number; gateway?: GatewayProvenance }
  /** `limit`: for the cap's refusals, the cap that applied (lookups in its window), for display. */
  | { ip: string; status: 'skipped'; reason: SkipReason; limit?: number }
  | { ip: string; status: 'error'; error: ApiErrorData };

export type QuotaState = 'ok' | 'low' | 'reserve-reached' | 'exhausted' | 'unknown';

export interface QuotaSnapshot {
  state: QuotaState;
  /** Units used in the period (server count + local costs since the last refresh). */
  used: number | null;
  /** The limit that applies: the key's own, else the organisation's pool (its total quota). */
  limit: number | null;
  unlimited: boolean;
  /** Whose limit applies: the key's own or the organisation's pool; null until /account answered. */
  scope: 'key' | 'organization' | null;
  /** Units automatic lookups keep free (reserve % of the limit). */
  reserve: number | null;
  /** Local cost added since the last /account refresh. */
  pendingLocalCost: number;
  /** Epoch ms of the last /account refresh, null if never. */
  refreshedAt: number | null;
  /** Why the state is what it is (e.g. the server's 403 text), for display. */
  detail: string | null;
  /** Through a team gateway: the analyst's budget and the team's pool (absent: no gateway). */
  team?: TeamQuota | null;
}

export interface LookupStatus {
  quota: QuotaSnapshot;
  queueLength: number;
  inFlight: number;
  cacheSize: number;
  /** The most recent API error, with when it happened. */
  lastError: (ApiErrorData & { at: number }) | null;
  /** Epoch ms until which the queue is paused after a 429, or null. */
  pausedUntil: number | null;
}
