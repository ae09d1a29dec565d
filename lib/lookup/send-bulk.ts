/**
 * One checkIP/bulk call for the batcher: at most 100 IPs, its worst-case cost committed in the
 * quota guard while it runs, its real cost (the IPs found) charged when it returns, every
 * answer cached, and each failure turned into what the batcher should do with the batch.
 */
import { ApiError } from '../api/errors';
import type { ApiClient, BulkLookup } from '../api/types';
import { refusalOf } from './admission';
import type { SendResult } from './batcher';
import type { CallContext } from './call-context';
import { bookLostCall, isLostAnswer, LOST_ANSWER_BACKOFF_MS } from './lost-answer';
import { costOfBulk, costOfError } from './quota-costs';
import { asApiError, failed, skipped } from './results';
import type { LookupResult } from './types';

/**
 * `journaled`: resolves once the call is written down in the call journal (see
 * call-journal.ts); the request leaves only then, so a restarted worker knows it was asked.
 */
export async function sendBulk(
  context: CallContext,
  ips: string[],
  journaled: Promise<void> = Promise.resolve(),
): Promise<SendResult<LookupResult>> {
  const all = (result: (ip: string) => LookupResult): SendResult<LookupResult> => ({
    kind: 'done',
    outcomes: new Map(ips.map((ip) => [ip, result(ip)])),
  });
  // The key or the quota may have changed while the batch waited.
  const refused = refusalOf(context);
  if (refused) return all(refused);
  const client = context.client()!;

  const { guard, cache } = context;
  // Synchronously, before the first await: the batcher forms its next batch right after.
  const release = guard.commit(ips.length);
  const generation = cache.generation;
  const identity = guard.identity;
  // The settings changed during the call: what the old client met says nothing about the new one.
  const noteFailure = (error: ApiError) => {
    if (context.client() === client) context.noteFailure(error);
  };
  try {
    await journaled;
    const bulk = await askOnceMore(context, client, ips, identity);
    guard.charge(costOfBulk(bulk), identity);
    if (bulk.failure) noteFailure(new ApiError(bulk.failure));
    else if (context.client() === client) context.noteSuccess();
    const outcomes = new Map<string, LookupResult>();
    for (const item of bulk.items) {
      if (item.status === 'error' && item.unreadable) {
        // The server sent a row we cannot read, and may have billed it: remembered (as the
        // failure it is, never as "not in database") so automatic lookups do not buy it again.
        const error = { kind: item.kind, message: item.message };
        outcomes.set(item.ip, cache.answer({ ip: item.ip, status: 'unreadable', error, detailed: false }, generation));
      } else if (item.status === 'error') {
        // This IP alone has no usable answer (failed inside a 200, missing): say so, cache
        // nothing, it is worth asking again; the other rows of the chunk stand.
        outcomes.set(item.ip, failed(item.ip, { kind: item.kind, message: item.message }));
      } else {
        const answer =
          item.status === 'found'
            ? ({ ip: item.ip, status: 'found', data: item.data, detailed: false } as const)
            : ({ ip: item.ip, status: 'not-found', detailed: false } as const);
        outcomes.set(item.ip, cache.answer(answer, generation));
      }
    }
    return { kind: 'done', outcomes };
  } catch (error) {
    const apiError = asApiError(error);
    // A lost answer was booked in askOnceMore; any other failure by the cost model (a 429: 1).
    if (!isLostAnswer(apiError)) guard.charge(costOfError('bulk', apiError), identity);
    noteFailure(apiError);
    // Rate limited (the client does not retry a billed 429): the batcher requeues and pauses
    // everything. A Retry-After shorter than MIN_PAUSE_MS (`0`) is no reason to ask again at
    // once: the batcher's own exponential backoff applies instead.
    if (apiError.kind === 'rate-limited') {
      const asked = apiError.retryAfterMs;
      return { kind: 'retry-later', delayMs: asked !== undefined && asked >= MIN_PAUSE_MS ? asked : null, error: apiError };
    }
    if (apiError.kind === 'quota-exhausted') return all((ip) => skipped(ip, 'quota-exhausted'));
    const data = apiError.toJSON();
    return all((ip) => failed(ip, data));
  } finally {
    release();
  }
}

/** The shortest pause after a 429 taken from the server's Retry-After. */
export const MIN_PAUSE_MS = 1_000;

/**
 * The bulk call, and when its answer was lost after sending: its cost learnt from /account,
 * then one more ask after a backoff (lost-answer.ts). A second loss is booked and thrown.
 */
async function askOnceMore(context: CallContext, client: ApiClient, ips: string[], identity: string | null): Promise<BulkLookup> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await client.checkIpBulk(ips);
    } catch (error) {
      const apiError = asApiError(error);
      if (!isLostAnswer(apiError)) throw apiError;
      await bookLostCall(context, ips.length, identity);
      if (attempt >= 1 || context.client() !== client) throw apiError;
      await context.sleep(LOST_ANSWER_BACKOFF_MS);
    }
  }
}
