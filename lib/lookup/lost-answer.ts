/**
 * A paid call whose answer was lost after it was sent (a timeout, a reset, a gateway's 5xx) may
 * have been billed, and asking again pays again. So it is never retried in a loop: the cost is
 * learnt from the free /account (the ledger then equals the server's count, lost call
 * included), or, when /account cannot answer either, booked at its worst case until the next
 * refresh corrects it; then the call is asked again once, after a backoff.
 */
import type { ApiError } from '../api/errors';
import type { CallContext } from './call-context';

/** Wait before the one re-ask: long enough for a flapping gateway, short for the analyst. */
export const LOST_ANSWER_BACKOFF_MS = 2_000;

export function isLostAnswer(error: ApiError): boolean {
  return error.lostAfterSend === true;
}

/**
 * Books what the lost call cost. `usedBefore`: the ledger's usage when the call left (null when
 * unknown). Says 'unbilled' only when /account proves it: the server's count did not grow at all
 * since then (any call billed meanwhile, ours or another's, leaves it 'maybe-billed').
 */
export async function bookLostCall(
  context: CallContext,
  worstCase: number,
  identity: string | null,
  usedBefore: number | null = null,
): Promise<'unbilled' | 'maybe-billed'> {
  const reconciled = await context.reconcile();
  if (!reconciled) {
    context.guard.charge(worstCase, identity);
    return 'maybe-billed';
  }
  const after = context.guard.snapshot().used;
  return usedBefore !== null && after !== null && after <= usedBefore && context.guard.identity === identity ? 'unbilled' : 'maybe-billed';
}
