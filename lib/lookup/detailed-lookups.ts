/**
 * Detailed lookups (ipInfo: ASN, ISP, country), for the popup and the hover card's Details
 * button: the bulk endpoint has no details, so each IP is one checkIP?detailed=true, costing
 * 1 unless the IP is not in the database. Concurrent asks for the same IP share one call; a
 * 429 waits for the queue's pause and tries again a few times.
 */
import { refusalOf } from './admission';
import type { CallContext } from './call-context';
import { bookLostCall, isLostAnswer, LOST_ANSWER_BACKOFF_MS } from './lost-answer';
import { costOfCheckIp, costOfError } from './quota-costs';
import { asApiError, failed, skipped } from './results';
import type { LookupResult } from './types';

export interface DetailedLookupsOptions {
  context: CallContext;
  /** The batcher's pause: 429s on any endpoint stop all calls. */
  whenResumed(): Promise<void>;
  pause(ms: number): void;
  /** A chance to re-check the quota before giving up on an empty budget. */
  recheckQuota(): Promise<void>;
  retries: number;
}

export class DetailedLookups {
  private readonly inFlight = new Map<string, Promise<LookupResult>>();
  /** In flight to a server no longer configured (see detachInFlight). */
  private readonly detached = new Set<Promise<LookupResult>>();

  constructor(private readonly options: DetailedLookupsOptions) {}

  get size(): number {
    return this.inFlight.size + this.detached.size;
  }

  /** The call in flight for this IP, if any (plain lookups join it rather than ask again). */
  pending(ip: string): Promise<LookupResult> | undefined {
    return this.inFlight.get(ip);
  }

  lookup(ip: string): Promise<LookupResult> {
    const existing = this.inFlight.get(ip);
    if (existing) return existing;
    const promise: Promise<LookupResult> = this.run(ip).finally(() => {
      if (this.inFlight.get(ip) === promise) this.inFlight.delete(ip);
      this.detached.delete(promise);
    });
    this.inFlight.set(ip, promise);
    return promise;
  }

  /** The calls in flight answer their callers; new lookups of their IPs ask the new server. */
  detachInFlight(): void {
    for (const promise of this.inFlight.values()) this.detached.add(promise);
    this.inFlight.clear();
  }

  async whenIdle(): Promise<void> {
    await Promise.all([...this.inFlight.values(), ...this.detached]);
  }

  private async run(ip: string): Promise<LookupResult> {
    const { context } = this.options;
    let lostOnce = false;
    for (let attempt = 0; ; attempt++) {
      await this.options.whenResumed();
      const refused = refusalOf(context);
      if (refused) return refused(ip);
      if (context.guard.budget('manual') < 1) {
        await this.options.recheckQuota();
        if (context.guard.budget('manual') < 1) return skipped(ip, 'quota-exhausted');
      }
      const client = context.client();
      if (!client) return skipped(ip, 'no-key');
      const release = context.guard.commit(1);
      const generation = context.cache.generation;
      const identity = context.guard.identity;
      try {
        // Details are always the analyst's own ask (the card's, the popup's): a sighting.
        const single = await client.checkIp(ip, { detailed: true, asked: true });
        context.guard.charge(costOfCheckIp(single), identity);
        if (context.client() === client) context.noteSuccess();
        const from = single.gateway ? { gateway: single.gateway } : {};
        const answer =
          single.status === 'found'
            ? ({ ip, status: 'found', data: single.data, detailed: true, ...from } as const)
            : ({ ip, status: 'not-found', detailed: true, ...from } as const);
        return context.cache.answer(answer, generation);
      } catch (error) {
        const apiError = asApiError(error);
        // The settings changed during the call: what the old client met says nothing about the new one.
        const stale = context.client() !== client;
        // Not sent (the endpoint's circuit is open): nothing to book, nothing to retry now.
        if (apiError.circuitOpen) return failed(ip, apiError.toJSON());
        if (isLostAnswer(apiError)) {
          // Maybe billed: its cost comes from /account, and it is asked again once (lost-answer.ts).
          await bookLostCall(context, 1, identity);
          if (!lostOnce && !stale) {
            lostOnce = true;
            release();
            await context.sleep(LOST_ANSWER_BACKOFF_MS);
            continue;
          }
          if (!stale) context.noteFailure(apiError);
          return failed(ip, apiError.toJSON());
        }
        context.guard.charge(costOfError('checkIP', apiError), identity);
        if (!stale) context.noteFailure(apiError);
        if (apiError.kind === 'rate-limited' && attempt < this.options.retries) {
          if (!stale) this.options.pause(apiError.retryAfterMs ?? 1_000 * 2 ** attempt);
          continue;
        }
        if (apiError.kind === 'quota-exhausted') return skipped(ip, 'quota-exhausted');
        return failed(ip, apiError.toJSON());
      } finally {
        release();
      }
    }
  }
}
