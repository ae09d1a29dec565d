/**
 * What each call costs in quota units, per spec/ip-threat-api.md §8 and the public
 * documentation: checkIP 1 per request (a 404 "not in the database" is free), bulk 1 per IP
 * found, /account free, test-key 1, and every 4xx except 404 costs 1, whatever the endpoint
 * (so a 400 for a malformed IP is paid for: validate before sending).
 */
import { ApiError } from '../api/errors';
import type { BulkLookup, SingleLookup } from '../api/types';
import { isZeroHitClean } from '../api/zero-hit';

export type Endpoint = 'checkIP' | 'bulk' | 'subnet' | 'account' | 'test-key';

/**
 * Bulk: 1 per IP found. A zero-hit clean row (the documentation's answer for an IP with no
 * hits) is booked free: bulk bills "only the IPs found in the database" and such a row says the
 * IP has no record. Whether the service bills it is not documented; the next /account refresh
 * corrects the ledger either way.
 */
export function costOfBulk(result: BulkLookup): number {
  return result.items.filter((item) => item.status === 'found' && !isZeroHitClean(item.data)).length;
}

export function costOfCheckIp(result: SingleLookup): number {
  return result.status === 'found' ? 1 : 0;
}

export const COST_OF_TEST_KEY = 1;

/**
 * A failed call: 4xx other than 404 is counted by the server; 5xx, network, timeouts are
 * not (an answer lost after sending is learnt from /account: lost-answer.ts). 401 and 403 are left out: a missing or rejected key has no counter to charge, and a
 * key past its usage limit is blocked whatever we count.
 */
export function costOfError(endpoint: Endpoint, error: unknown): number {
  if (endpoint === 'account') return 0;
  if (!(error instanceof ApiError) || error.status === undefined) return 0;
  // A 403 for a key /account accepts (a plan refusal) is an ordinary billed 4xx.
  if (error.kind === 'refused') return 1;
  const { status } = error;
  return status >= 400 && status < 500 && status !== 404 && status !== 401 && status !== 403 ? 1 : 0;
}
