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

/** What the page asks of its queue (lookupQueue). */
export interface LookupQueue {
  /**
   * Queues the IPs not asked yet, and asks again as visible those asked as background that have
   * no answer yet (they came on screen).
   */
  request(ips: Iterable<string>, priority: PagePriority): void;
  /** Whether request(ip, priority) would ask anything (callers skip building lists for nothing). */
  wouldAsk(ip: string, priority: PagePriority): boolean;
  resultOf(ip: string): LookupResult | undefined;
  /** The IPs with an answer (some may have left the page: see prune). */
  answeredIps(): IterableIterator<string>;
  wasAsked(ip: string): boolean;
  /** Stores a result obtained another way (the card's detailed lookup). */
  put(result: LookupResult): void;
  /** IPs queued, and batches in flight. */
  readonly pending: number;
  /** Resolves when everything asked so far has an answer (tests, benchmarks). */
  idle(): Promise<void>;
  /**
   * Drops every answer and every ask, queued or in flight (the API server changed): IPs are
   * asked again when requested again. Returns the IPs that had an answer or were asked.
   */
  forget(): Set<string>;
  /**
   * Drops the answers `retry` picks (failures worth asking again), so their IPs are asked when
   * requested again. Returns those IPs.
   */
  forgetWhere(retry: (result: LookupResult) => boolean): Set<string>;
  /** IPs with an answer or asked (tests: the page's memory follows what it shows). */
  readonly size: number;
  /**
   * Forgets answers to IPs `keep` rejects (no longer on the page), once more than `max` are
   * held: a console that shows new addresses for ever must not grow this map for ever.
   * Queued and in-flight IPs stay; a forgotten IP that comes back is asked again, and the
   * background answers it from its cache.
   */
  prune(keep: (ip: string) => boolean, max: number): void;
  /** Resizes the per-IP maps to what they hold now, after a prune (see compactMap). */
  compact(): void;
  stop(): void;
}

/** A closure, not a class: its state's names are minified in the content script. */
export function lookupQueue(options: LookupQueueOptions): LookupQueue {
  let results = new Map<string, LookupResult>();
  let asked = new Set<string>();
  /**
   * Asked as background (near the screen) and not answered yet: if one comes on screen first it
   * is asked again as visible, once, so the background gives it an on-screen deadline (it lets
   * background IPs wait longer for company, see lib/lookup/batcher.ts).
   */
  let askedInBackground = new Set<string>();
  const waiting: Record<PagePriority, string[]> = { visible: [], background: [] };
  let scheduled = false;
  let backgroundInFlight = false;
  const inFlight = new Set<Promise<void>>();
  let stopped = false;
  /** Bumped by forget(): answers to batches sent before it are dropped. */
  let generation = 0;
  /**
   * Bumped by forgetWhere() (lookups work again): a batch sent before it may still come back
   * failed after it, since the recovery notice and the batch's answer travel apart; such an
   * answer is no longer true and its IPs are asked again instead of staying "failed" for good.
   */
  let retryRound = 0;
  let retryAgain: (result: LookupResult) => boolean = () => false;

  const wouldAsk = (ip: string, priority: PagePriority): boolean =>
    !asked.has(ip) || (priority === 'visible' && askedInBackground.has(ip));

  const request = (ips: Iterable<string>, priority: PagePriority): void => {
    if (stopped) return;
    let added = false;
    for (const ip of ips) {
      if (!wouldAsk(ip, priority)) continue;
      asked.add(ip);
      if (priority === 'background') askedInBackground.add(ip);
      else askedInBackground.delete(ip);
      waiting[priority].push(ip);
      added = true;
    }
    if (added) schedule();
  };

  const schedule = (): void => {
    if (scheduled) return;
    scheduled = true;
    const defer = options.defer ?? ((run) => void Promise.resolve().then(run));
    defer(() => {
      scheduled = false;
      pump();
    });
  };

  /** Visible batches go at once; background batches one at a time so they never crowd them out. */
  const pump = (): void => {
    if (stopped) return;
    const size = options.batchSize ?? 200;
    while (waiting.visible.length) launch(waiting.visible.splice(0, size), 'visible');
    if (backgroundInFlight) return;
    // Up to `size` waiting background IPs, leaving out those asked as visible (or answered) since.
    let background: string[] = [];
    while (!background.length && waiting.background.length) {
      background = waiting.background.splice(0, size).filter((ip) => askedInBackground.has(ip));
    }
    if (background.length) {
      backgroundInFlight = true;
      launch(background, 'background', () => {
        backgroundInFlight = false;
        pump();
      });
    }
  };

  /**
   * Two asks, so that "pending" is true: the first is answered at once with all the
   * background knows without a call (cache hits, and refusals such as the cap, which used to
   * wait for the other IPs' call and sat "Looking up…" though never sent); the second waits
   * for the IPs it queued. A background batch frees its turn after the first ask: its IPs
   * left are queued in the background then, and the next batch's refusals come back at once.
   */
  const launch = (ips: string[], priority: PagePriority, after?: () => void): void => {
    const batchGeneration = generation;
    const round = retryRound;
    let release = after;
    const freeTurn = () => {
      const run = release;
      release = undefined;
      run?.();
    };
    const task = ask(ips, priority, true, batchGeneration, round)
      .then((queued) => {
        freeTurn();
        if (queued.length && !stopped && batchGeneration === generation) return ask(queued, priority, false, batchGeneration, round);
        return [];
      })
      .then(() => undefined)
      .finally(() => {
        inFlight.delete(task);
        freeTurn();
      });
    inFlight.add(task);
  };

  /** One message: applies its answers, and returns the IPs left for a second ask (answerNow only). */
  const ask = async (ips: string[], priority: PagePriority, answerNow: boolean, batchGeneration: number, round: number): Promise<string[]> => {
    const reply = await options.send(ips, priority, answerNow).catch(
      (error: unknown): Reply<LookupResult[]> => ({
        ok: false,
        error: { kind: 'internal', message: error instanceof Error ? error.message : String(error) },
      }),
    );
    if (stopped || batchGeneration !== generation) return [];
    const got: LookupResult[] = reply.ok ? [...reply.value] : [];
    const answered = new Set(got.map((r) => r.ip));
    const left = ips.filter((ip) => !answered.has(ip));
    const fresh = (all: LookupResult[]) => (round === retryRound ? all : askAgainIfStale(all, priority));
    if (answerNow && reply.ok) {
      if (got.length) apply(fresh(got));
      return left;
    }
    // No answer for an IP (failed message, or left out of the final reply) is an error, not
    // "pending" for ever: the mark turns grey and the card says why.
    const error: ApiErrorData = reply.ok
      ? { kind: 'bad-response', message: 'The extension gave no answer for this address.' }
      : { kind: asApiKind(reply.error.kind), message: reply.error.message };
    for (const ip of left) got.push({ ip, status: 'error', error });
    apply(fresh(got));
    return [];
  };

  /** Answers of a batch sent before the last recovery: failures are asked again, not kept. */
  const askAgainIfStale = (all: LookupResult[], priority: PagePriority): LookupResult[] => {
    const stale = all.filter((r) => retryAgain(r)).map((r) => r.ip);
    if (!stale.length) return all;
    for (const ip of stale) asked.delete(ip);
    request(stale, priority);
    const again = new Set(stale);
    return all.filter((r) => !again.has(r.ip));
  };

  const apply = (got: LookupResult[]): void => {
    for (const r of got) {
      results.set(r.ip, r);
      askedInBackground.delete(r.ip);
    }
    options.onResults(got);
  };

  return {
    request,
    wouldAsk,
    resultOf: (ip) => results.get(ip),
    answeredIps: () => results.keys(),
    wasAsked: (ip) => asked.has(ip),
    put(result) {
      results.set(result.ip, result);
      asked.add(result.ip);
      askedInBackground.delete(result.ip);
      options.onResults([result]);
    },
    get pending() {
      return waiting.visible.length + waiting.background.length + inFlight.size;
    },
    async idle() {
      while (scheduled || inFlight.size > 0 || waiting.visible.length || waiting.background.length) {
        if (inFlight.size > 0) await Promise.race(inFlight);
        else await new Promise((r) => setTimeout(r, 0));
      }
    },
    forget() {
      const ips = new Set([...asked, ...results.keys()]);
      generation++;
      results.clear();
      asked.clear();
      askedInBackground.clear();
      waiting.visible.length = 0;
      waiting.background.length = 0;
      return ips;
    },
    forgetWhere(retry) {
      retryRound++;
      retryAgain = retry;
      const ips = new Set<string>();
      for (const [ip, result] of results) {
        if (!retry(result)) continue;
        results.delete(ip);
        asked.delete(ip);
        ips.add(ip);
      }
      return ips;
    },
    get size() {
      return Math.max(results.size, asked.size);
    },
    prune(keep, max) {
      if (results.size <= max && asked.size <= max) return;
      const queued = new Set([...waiting.visible, ...waiting.background]);
      for (const ip of asked) {
        if (keep(ip) || queued.has(ip)) continue;
        // Asked and not answered yet: in flight, keep it so it is not sent twice.
        if (!results.has(ip)) continue;
        asked.delete(ip);
        results.delete(ip);
      }
      for (const ip of results.keys()) if (!keep(ip) && !asked.has(ip)) results.delete(ip);
    },
    compact() {
      results = compactMap(results);
      asked = new Set(asked);
      askedInBackground = new Set(askedInBackground);
    },
    stop() {
      stopped = true;
      waiting.visible.length = 0;
      waiting.background.length = 0;
    },
  };
}

function asApiKind(kind: string): ApiErrorKind {
  return (API_ERROR_KINDS as readonly string[]).includes(kind) ? (kind as ApiErrorKind) : 'network';
}

/** A failed lookup worth asking again once lookups work again (forgetWhere), or once a key is set. */
export function isRetriable(result: LookupResult): boolean {
  if (result.status === 'error') return RETRIABLE_FAILURES.has(result.error.kind);
  return result.status === 'skipped' && result.reason === 'no-key';
}
