/**
 * The content script's side of lookups: asks each IP once, on-screen IPs before the rest, in
 * batches, and keeps the answers for the page. The background does caching, batching against
 * the API and quota accounting; this only avoids asking it the same thing twice.
 */
import { API_ERROR_KINDS, type ApiErrorData, type ApiErrorKind } from '../../api/errors';
import { RETRIABLE_FAILURES } from '../../lookup/recovery-watch';
import type { LookupResult } from '../../lookup/types';
import type { Reply } from '../../protocol';
import { compactMap } from '../occurrences/set-map';

export type PagePriority = 'visible' | 'background';

/**
 * Sends one batch; `null`-free: a failed send comes back as an error for the whole batch.
 * `answerNow`: the background answers what it knows without a call (its cache, and every
 * refusal such as the cap) and leaves out the IPs it queued for one, which are asked again.
 */
export type LookupSender = (
  ips: string[],
  priority: PagePriority,
  answerNow?: boolean,
) => Promise<Reply<LookupResult[]>>;

export interface LookupQueueOptions {
  send: LookupSender;
  onResults: (results: LookupResult[]) => void;
  /** IPs per message (the protocol allows 10,000; smaller batches show results sooner). */
  batchSize?: number;
  /** Coalesces requests made in the same burst (one scan slice, one IO callback). */
  defer?: (run: () => void) => void;
}

export class LookupQueue {
  private results = new Map<string, LookupResult>();
  private asked = new Set<string>();
  /**
   * Asked as background (near the screen) and not answered yet: if one comes on screen first it
   * is asked again as visible, once, so the background gives it an on-screen deadline (it lets
   * background IPs wait longer for company, see lib/lookup/batcher.ts).
   */
  private askedInBackground = new Set<string>();
  private readonly waiting: Record<PagePriority, string[]> = { visible: [], background: [] };
  private scheduled = false;
  private backgroundInFlight = false;
  private readonly inFlight = new Set<Promise<void>>();
  private stopped = false;
  /** Bumped by forget(): answers to batches sent before it are dropped. */
  private generation = 0;
  /**
   * Bumped by forgetWhere() (lookups work again): a batch sent before it may still come back
   * failed after it, since the recovery notice and the batch's answer travel apart; such an
   * answer is no longer true and its IPs are asked again instead of staying "failed" for good.
   */
  private retryRound = 0;
  private retryAgain: (result: LookupResult) => boolean = () => false;

  constructor(private readonly options: LookupQueueOptions) {}

  /**
   * Queues the IPs not asked yet, and asks again as visible those asked as background that have
   * no answer yet (they came on screen).
   */
  request(ips: Iterable<string>, priority: PagePriority): void {
    if (this.stopped) return;
    let added = false;
    for (const ip of ips) {
      if (!this.wouldAsk(ip, priority)) continue;
      this.asked.add(ip);
      if (priority === 'background') this.askedInBackground.add(ip);
      else this.askedInBackground.delete(ip);
      this.waiting[priority].push(ip);
      added = true;
    }
    if (added) this.schedule();
  }

  /** Whether request(ip, priority) would ask anything (callers skip building lists for nothing). */
  wouldAsk(ip: string, priority: PagePriority): boolean {
    return !this.asked.has(ip) || (priority === 'visible' && this.askedInBackground.has(ip));
  }

  resultOf(ip: string): LookupResult | undefined {
    return this.results.get(ip);
  }

  /** The IPs with an answer (some may have left the page: see prune). */
  answeredIps(): IterableIterator<string> {
    return this.results.keys();
  }

  wasAsked(ip: string): boolean {
    return this.asked.has(ip);
  }

  /** Stores a result obtained another way (the card's detailed lookup). */
  put(result: LookupResult): void {
    this.results.set(result.ip, result);
    this.asked.add(result.ip);
    this.askedInBackground.delete(result.ip);
    this.options.onResults([result]);
  }

  get pending(): number {
    return this.waiting.visible.length + this.waiting.background.length + this.inFlight.size;
  }

  /** Resolves when everything asked so far has an answer (tests, benchmarks). */
  async idle(): Promise<void> {
    while (this.scheduled || this.inFlight.size > 0 || this.waiting.visible.length || this.waiting.background.length) {
      if (this.inFlight.size > 0) await Promise.race(this.inFlight);
      else await new Promise((r) => setTimeout(r, 0));
    }
  }

  /**
   * Drops every answer and every ask, queued or in flight (the API server changed): IPs are
   * asked again when requested again. Returns the IPs that had an answer or were asked.
   */
  forget(): Set<string> {
    const ips = new Set([...this.asked, ...this.results.keys()]);
    this.generation++;
    this.results.clear();
    this.asked.clear();
    this.askedInBackground.clear();
    this.waiting.visible.length = 0;
    this.waiting.background.length = 0;
    return ips;
  }

  /**
   * Drops the answers `retry` picks (failures worth asking again), so their IPs are asked when
   * requested again. Returns those IPs.
   */
  forgetWhere(retry: (result: LookupResult) => boolean): Set<string> {
    this.retryRound++;
    this.retryAgain = retry;
    const ips = new Set<string>();
    for (const [ip, result] of this.results) {
      if (!retry(result)) continue;
      this.results.delete(ip);
      this.asked.delete(ip);
      ips.add(ip);
    }
    return ips;
  }

  /** IPs with an answer or asked (tests: the page's memory follows what it shows). */
  get size(): number {
    return Math.max(this.results.size, this.asked.size);
  }

  /**
   * Forgets answers to IPs `keep` rejects (no longer on the page), once more than `max` are
   * held: a console that shows new addresses for ever must not grow this map for ever.
   * Queued and in-flight IPs stay; a forgotten IP that comes back is asked again, and the
   * background answers it from its cache.
   */
  prune(keep: (ip: string) => boolean, max: number): void {
    if (this.results.size <= max && this.asked.size <= max) return;
    const waiting = new Set([...this.waiting.visible, ...this.waiting.background]);
    for (const ip of this.asked) {
      if (keep(ip) || waiting.has(ip)) continue;
      // Asked and not answered yet: in flight, keep it so it is not sent twice.
      if (!this.results.has(ip)) continue;
      this.asked.delete(ip);
      this.results.delete(ip);
    }
    for (const ip of this.results.keys()) if (!keep(ip) && !this.asked.has(ip)) this.results.delete(ip);
  }

  /** Resizes the per-IP maps to what they hold now, after a prune (see compactMap). */
  compact(): void {
    this.results = compactMap(this.results);
    this.asked = new Set(this.asked);
    this.askedInBackground = new Set(this.askedInBackground);
  }

  stop(): void {
    this.stopped = true;
    this.waiting.visible.length = 0;
    this.waiting.background.length = 0;
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    const defer = this.options.defer ?? ((run) => void Promise.resolve().then(run));
    defer(() => {
      this.scheduled = false;
      this.pump();
    });
  }

  /** Visible batches go at once; background batches one at a time so they never crowd them out. */
  private pump(): void {
    if (this.stopped) return;
    const size = this.options.batchSize ?? 200;
    while (this.waiting.visible.length) {
      this.launch(this.waiting.visible.splice(0, size), 'visible');
    }
    if (this.backgroundInFlight) return;
    const background = this.nextBackgroundBatch(size);
    if (background.length) {
      this.backgroundInFlight = true;
      this.launch(background, 'background', () => {
        this.backgroundInFlight = false;
        this.pump();
      });
    }
  }

  /** Up to `size` waiting background IPs, leaving out those asked as visible (or answered) since. */
  private nextBackgroundBatch(size: number): string[] {
    let batch: string[] = [];
    while (!batch.length && this.waiting.background.length) {
      batch = this.waiting.background.splice(0, size).filter((ip) => this.askedInBackground.has(ip));
    }
    return batch;
  }

  /**
   * Two asks, so that "pending" is true: the first is answered at once with all the
   * background knows without a call (cache hits, and refusals such as the cap, which used to
   * wait for the other IPs' call and sat "Looking up…" though never sent); the second waits
   * for the IPs it queued. A background batch frees its turn after the first ask: its IPs
   * left are queued in the background then, and the next batch's refusals come back at once.
   */
  private launch(ips: string[], priority: PagePriority, after?: () => void): void {
    const generation = this.generation;
    const round = this.retryRound;
    let release = after;
    const freeTurn = () => {
      const run = release;
      release = undefined;
      run?.();
    };
    const task = this.ask(ips, priority, true, generation, round)
      .then((queued) => {
        freeTurn();
        if (queued.length && !this.stopped && generation === this.generation) return this.ask(queued, priority, false, generation, round);
        return [];
      })
      .then(() => undefined)
      .finally(() => {
        this.inFlight.delete(task);
        freeTurn();
      });
    this.inFlight.add(task);
  }

  /** One message: applies its answers, and returns the IPs left for a second ask (answerNow only). */
  private async ask(ips: string[], priority: PagePriority, answerNow: boolean, generation: number, round: number): Promise<string[]> {
    const reply = await this.options.send(ips, priority, answerNow).catch(
      (error: unknown): Reply<LookupResult[]> => ({
        ok: false,
        error: { kind: 'internal', message: error instanceof Error ? error.message : String(error) },
      }),
    );
    if (this.stopped || generation !== this.generation) return [];
    const results: LookupResult[] = reply.ok ? [...reply.value] : [];
    const answered = new Set(results.map((r) => r.ip));
    const left = ips.filter((ip) => !answered.has(ip));
    const fresh = (all: LookupResult[]) => (round === this.retryRound ? all : this.askAgainIfStale(all, priority));
    if (answerNow && reply.ok) {
      if (results.length) this.apply(fresh(results));
      return left;
    }
    // No answer for an IP (failed message, or left out of the final reply) is an error, not
    // "pending" for ever: the mark turns grey and the card says why.
    const error: ApiErrorData = reply.ok
      ? { kind: 'bad-response', message: 'The extension gave no answer for this address.' }
      : { kind: asApiKind(reply.error.kind), message: reply.error.message };
    for (const ip of left) results.push({ ip, status: 'error', error });
    this.apply(fresh(results));
    return [];
  }

  /** Answers of a batch sent before the last recovery: failures are asked again, not kept. */
  private askAgainIfStale(results: LookupResult[], priority: PagePriority): LookupResult[] {
    const stale = results.filter((r) => this.retryAgain(r)).map((r) => r.ip);
    if (!stale.length) return results;
    for (const ip of stale) this.asked.delete(ip);
    this.request(stale, priority);
    const again = new Set(stale);
    return results.filter((r) => !again.has(r.ip));
  }

  private apply(results: LookupResult[]): void {
    for (const r of results) {
      this.results.set(r.ip, r);
      this.askedInBackground.delete(r.ip);
    }
    this.options.onResults(results);
  }
}

function asApiKind(kind: string): ApiErrorKind {
  return (API_ERROR_KINDS as readonly string[]).includes(kind) ? (kind as ApiErrorKind) : 'network';
}

/** A failed lookup worth asking again once lookups work again (forgetWhere), or once a key is set. */
export function isRetriable(result: LookupResult): boolean {
  if (result.status === 'error') return RETRIABLE_FAILURES.has(result.error.kind);
  return result.status === 'skipped' && result.reason === 'no-key';
}
