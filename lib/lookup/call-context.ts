/**
 * What a call to the API needs from the lookup service: the client of the moment, whether the
 * key was rejected, the quota guard, the cache, and where to report failures. Read through
 * functions because the service swaps client and key state when the settings change.
 */
import type { ApiError, ApiErrorData } from '../api/errors';
import type { ApiClient } from '../api/types';
import type { LookupCache } from './cache';
import type { QuotaGuard } from './quota-guard';
import { failed, skipped } from './results';
import type { LookupResult } from './types';

export interface CallContext {
  client(): ApiClient | null;
  keyError(): ApiErrorData | null;
  guard: QuotaGuard;
  cache: LookupCache;
  /** Records the failure and applies what it means (quota exhausted, key rejected) to everything queued. */
  noteFailure(error: ApiError): void;
  /** Refreshes the ledger from the free /account; resolves false when it could not. */
  reconcile(): Promise<boolean>;
  /** Waits on the service's clock. */
  sleep(ms: number): Promise<void>;
}

/** The answer for an IP that must not be sent right now, or null if it may be. */
export function refusal(context: CallContext, ip: string): LookupResult | null {
  if (!context.client()) return skipped(ip, 'no-key');
  const keyError = context.keyError();
  if (keyError) return failed(ip, keyError);
  if (context.guard.blocked) return skipped(ip, 'quota-exhausted');
  return null;
}
