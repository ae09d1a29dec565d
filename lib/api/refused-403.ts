/**
 * A 403 whose text is none of the documented three ("Invalid API key", "Expired API key",
 * "Usage limit exceeded") proves nothing about the key: "Forbidden" may be the usage limit, and
 * "Your plan does not include bulk lookups" is about the plan. The free /account decides:
 *
 * - /account refuses the key too          → invalid-key
 * - /account shows the limit reached      → quota-exhausted
 * - /account accepts the key and shows room → refused: this request, not the key
 *
 * Every message quotes the server's text (sanitised and short, status-errors.ts).
 */
import { isExhausted, limitsFromAccount } from './account-limits';
import { ApiError } from './errors';
import type { AccountInfo } from './types';

export async function confirmRefusal(error: ApiError, account: () => Promise<AccountInfo>): Promise<ApiError> {
  if (error.kind !== 'refused') return error;
  const said = `the server said "${error.message}"`;
  const status = error.status ?? 403;
  let info: AccountInfo;
  try {
    info = await account();
  } catch (cause) {
    if (cause instanceof ApiError && (cause.kind === 'invalid-key' || cause.kind === 'refused')) {
      return new ApiError({ kind: 'invalid-key', status, message: `The API key was refused (${said}; /account refused it too).` });
    }
    // /account cannot tell: keep what we know, without calling the key invalid.
    return new ApiError({ kind: 'refused', status, message: `The request was refused (${said}).` });
  }
  if (isExhausted(limitsFromAccount(info))) {
    return new ApiError({ kind: 'quota-exhausted', status, message: `Usage limit reached (${said}).` });
  }
  return new ApiError({ kind: 'refused', status, message: `The request was refused although the key is valid (${said}).` });
}
