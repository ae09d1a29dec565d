/**
 * One checkIP/bulk call for the batcher: at most 100 IPs, its worst-case cost committed in the
 * quota guard while it runs, its real cost (the IPs found) charged when it returns, every
 * answer cached, and each failure turned into what the batcher should do with the batch.
 */
import { ApiError } from '../api/errors';
import { refusalOf } from './admission';
import type { SendResult } from './batcher';
import type { CallContext } from './call-context';
import { bookLostCall, isLostAnswer } from './lost-answer';
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
  asked: ReadonlySet<string> = new Set(),
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
  // The usage the server's count must not pass for /account to prove a lost call unbilled.
  const usedBefore = guard.refreshedAt !== null ? guard.snapshot().used : null;
  const lostAnswers = context.lostAnswers;
  // The settings changed during the call: what the old client met says nothing about the new one.
  const noteFailure = (error: ApiError) => {
    if (context.client() === client) context.noteFailure(error);
  };
  try {
    await journaled;
    // An IP whose earlier answer was lost takes its one automatic re-ask of the hour now.
    if (lostAnswers) for (const ip of ips) if (lostAnswers.verdict(ip, identity).kind === 'reask') lostAnswers.reasked(ip);
    // `asked` reaches a team gateway only (the client knows): its sightings count what analysts asked.
    const bulk = await (asked.size ? client.checkIpBulk(ips, { asked }) : client.checkIpBulk(ips));
    guard.charge(costOfBulk(bulk), identity);
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
        const from = item.gateway ? { gateway: item.gateway } : {};
        const answer =
          item.status === 'found'
            ? ({ ip: item.ip, status: 'found', data: item.data, detailed: false, ...from } as const)
            : ({ ip: item.ip, status: 'not-found', detailed: false, ...from } as const);
        outcomes.set(item.ip, cache.answer(answer, generation));
      }
      if (item.status !== 'error' || item.unreadable) lostAnswers?.answered(item.ip);
    }
    // Only now, with the answers cached and no longer held as lost: a recovery announced by
    // this success makes pages ask again, and they must find these answers.
    if (bulk.failure) noteFailure(new ApiError(bulk.failure));
    else if (context.client() === client) context.noteSuccess();
    return { kind: 'done', outcomes };
  } catch (error) {
    const apiError = asApiError(error);
    // Nothing was sent: the endpoint's circuit is open (or its one probe is out). The IPs go
    // back to the queue, where the batcher's gate holds them or answers them with the reason.
    if (apiError.circuitOpen) return { kind: 'retry-later', delayMs: null, error: apiError };
    if (isLostAnswer(apiError)) {
      // Maybe billed: its cost comes from /account. Never asked again in a loop: the IPs are
      // remembered, and re-asked automatically at most once an hour (lost-answer-memory.ts).
      const billing = await bookLostCall(context, ips.length, identity, usedBefore);
      noteFailure(apiError);
      if (billing === 'unbilled') {
        const data = { ...apiError.toJSON(), message: `${apiError.message} /account shows it was not billed.` };
        delete data.lostAfterSend;
        return all((ip) => failed(ip, data));
      }
      lostAnswers?.lost(ips, identity, apiError.toJSON());
      const data = { ...apiError.toJSON(), message: `${apiError.message} The server may have billed it; it is asked again once, automatically, when the endpoint answers again.` };
      return all((ip) => {
        // Its re-ask was this call: say it is held, and why.
        const verdict = lostAnswers?.verdict(ip, identity);
        return failed(ip, verdict?.kind === 'held' ? verdict.error : data);
      });
    }
    // Any other failure by the cost model (a 429: 1).
    guard.charge(costOfError('bulk', apiError), identity);
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
