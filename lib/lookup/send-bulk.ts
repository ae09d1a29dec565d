/**
 * One checkIP/bulk call for the batcher: at most 100 IPs, its worst-case cost committed in the
 * quota guard while it runs, its real cost (the IPs found) charged when it returns, every
 * answer cached, and each failure turned into what the batcher should do with the batch.
 */
import { ApiError } from '../api/errors';
import type { SendResult } from './batcher';
import type { CallContext } from './call-context';
import { refusal } from './call-context';
import { costOfBulk, costOfError } from './quota-costs';
import { asApiError, failed, skipped } from './results';
import type { LookupResult } from './types';

export async function sendBulk(context: CallContext, ips: string[]): Promise<SendResult<LookupResult>> {
  const all = (result: (ip: string) => LookupResult): SendResult<LookupResult> => ({
    kind: 'done',
    outcomes: new Map(ips.map((ip) => [ip, result(ip)])),
  });
  const client = context.client();
  if (!client || context.keyError() || context.guard.blocked) return all((ip) => refusal(context, ip)!);

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
    const bulk = await client.checkIpBulk(ips);
    guard.charge(costOfBulk(bulk), identity);
    if (bulk.failure) noteFailure(new ApiError(bulk.failure));
    else if (context.client() === client) context.noteSuccess();
    const outcomes = new Map<string, LookupResult>();
    for (const item of bulk.items) {
      if (item.status === 'error') {
        // The server failed this IP inside a 200: say so, cache nothing.
        outcomes.set(item.ip, failed(item.ip, bulk.failure ?? { kind: 'server', message: item.message }));
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
    guard.charge(costOfError('bulk', apiError), identity);
    noteFailure(apiError);
    // Rate limited after the client's own retries: the batcher requeues and pauses everything.
    if (apiError.kind === 'rate-limited') {
      return { kind: 'retry-later', delayMs: apiError.retryAfterMs ?? null, error: apiError };
    }
    if (apiError.kind === 'quota-exhausted') return all((ip) => skipped(ip, 'quota-exhausted'));
    const data = apiError.toJSON();
    return all((ip) => failed(ip, data));
  } finally {
    release();
  }
}
