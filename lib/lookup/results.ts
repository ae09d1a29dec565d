/** Small constructors for LookupResult, and the one place unknown failures become ApiErrors. */
import { ApiError, type ApiErrorData } from '../api/errors';
import { redactSecrets } from '../api/redact';
import type { LookupResult, SkipReason } from './types';

export function skipped(ip: string, reason: SkipReason, limit?: number): LookupResult {
  return limit === undefined ? { ip, status: 'skipped', reason } : { ip, status: 'skipped', reason, limit };
}

export function failed(ip: string, error: ApiErrorData): LookupResult {
  return { ip, status: 'error', error };
}

/** The API client throws ApiError; anything else is a bug or a dead connection, shown as such. */
export function asApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  // Not our words: cleaned of anything that looks like a credential before it is shown.
  const message = redactSecrets(error instanceof Error ? error.message : String(error));
  return new ApiError({ kind: 'network', message: message || 'The lookup failed.' }, { cause: error });
}

export const NO_KEY_ERROR: ApiErrorData = {
  kind: 'missing-key',
  message: 'No API key is set. Add one in the options page.',
};
