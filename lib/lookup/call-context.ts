/**
 * What a call to the API needs from the lookup service: the client of the moment, whether the
 * key was rejected, the quota guard, the cache, and where to report failures. Read through
 * functions because the service swaps client and key state when the settings change.
 */
import type { ApiError, ApiErrorData } from '../api/errors';
import type { ApiClient } from '../api/types';
import type { LookupCache } from './cache';
import type { LostAnswerMemory } from './lost-answer-memory';
import type { QuotaGuard } from './quota-guard';

export interface CallContext {
  client(): ApiClient | null;
  keyError(): ApiErrorData | null;
  guard: QuotaGuard;
  cache: LookupCache;
  /** Records the failure and applies what it means (quota exhausted, key rejected) to everything queued. */
  noteFailure(error: ApiError): void;
  /** A call was answered: lookups are not failing (pages re-ask what failed before). */
  noteSuccess(): void;
  /** Refreshes the ledger from the free /account; resolves false when it could not. */
  reconcile(): Promise<boolean>;
  /** Waits on the service's clock. */
  sleep(ms: number): Promise<void>;
  /** IPs whose paid answer was lost (bulk lookups record and consult it). */
  lostAnswers?: LostAnswerMemory;
}
