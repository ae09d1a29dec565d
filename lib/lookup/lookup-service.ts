/**
 * The lookup service: the one place that turns "what do we know about these IPs?" from every
 * tab, frame, the popup and the context menu into as few API calls as possible.
 *
 *   lookup(ips) ─► prepare (canonical, skip private/invalid, de-duplicate)
 *              ─► cache (memory LRU ─► IndexedDB)        answers what it can, always
 *              ─► admission (automatic off, no key, key rejected, quota exhausted, page cap)
 *              ─► batcher (coalesce, de-duplicate in flight, priority, quota budget, 429 pause)
 *              ─► checkIP/bulk ─► cache ─► every caller of every IP, exactly once
 *
 * The cache always answers, whatever the rules say: a cached answer costs nothing and sends
 * nothing. The rules only govern what may be sent. Detailed lookups (ipInfo) go one IP at a
 * time through checkIP?detailed=true, as the bulk endpoint has no details.
 *
 * Everything it needs is passed in (client source, policy source, stores, clock), so unit
 * tests and benchmarks run it without a browser.
 */
import { isOutage, type CircuitBreaker } from '../api/circuit';
import { ApiError, type ApiErrorData } from '../api/errors';
import type { AccountInfo, ApiClient, TestKeyResult } from '../api/types';
import { classifyIp } from '../ip';
import type { CidrBlock } from '../ip/cidr-block';
import type { LookupPolicy } from '../settings';
import { admit, refusalOf, type AdmissionRules } from './admission';
import { Batcher, type GateState, type QueuedIp } from './batcher';
import type { CallContext } from './call-context';
import { CallJournal, type CallJournalStore } from './call-journal';
import { LookupCache } from './cache';
import { isInfoFresh, resultFromRecord, type CacheTtls } from './cache-record';
import type { CacheStore } from './cache-store';
import { systemClock, type Clock, type TimerHandle } from './clock';
import { DetailedLookups } from './detailed-lookups';
import { PageCap, type PageCapLimits, type PageCapStore, type PageCapUsage } from './page-cap';
import { prepareIps } from './prepare-ips';
import { QuotaGuard } from './quota-guard';
import { costOfError, COST_OF_TEST_KEY } from './quota-costs';
import type { LedgerStore } from './quota-ledger';
import { QuotaRefresher } from './quota-refresher';
import { RecoveryWatch, type RecoveryStore } from './recovery-watch';
import { bookLostCall, isLostAnswer } from './lost-answer';
import { LostAnswerMemory } from './lost-answer-memory';
import { ProbeCandidates } from './probe-candidates';
import type { StoredValue } from './stored-value';
import { sendBulk } from './send-bulk';
import { lookupSubnet, type SubnetAnswer } from './subnet-lookup';
import { asApiError, failed, NO_KEY_ERROR, skipped } from './results';
import type { LookupPriority, LookupResult, LookupStatus, QuotaSnapshot } from './types';

/** A client for the current settings, with a fingerprint of its base URL + key for the ledger. */
export interface ClientHandle {
  client: ApiClient;
  identity: string;
}
/** What the settings say about the API: which server, and a client if a key is set. */
export interface ClientSetup {
  /** The API base URL: the cache holds the answers of this server only. */
  server: string;
  /** null: no API key is configured. */
  handle: ClientHandle | null;
  /**
   * Why there is no handle when "no key" would mislead: a team gateway's sign-in with no
   * session (`sign-in-again`). Every lookup fails with it, so pages say "Sign in again".
   */
  refusal?: ApiErrorData;
}
export type ClientSource = () => Promise<ClientSetup>;

export interface LookupOptions {
  priority: LookupPriority;
  /** The tab and site for the per-page cap (all frames together); automatic lookups only. */
  source?: string;
  /** The site of the tab's top page, for the daily cap per site (default: `source`). */
  site?: string;
  detailed?: boolean;
  /**
   * The analyst's explicit "Try again" (the popup states the cost first): an IP whose paid answer
   * was lost and already re-asked this hour is asked once more. Manual lookups only.
   */
  retryLost?: boolean;
  /**
   * The message client sent this lookup again after its channel closed (a stopped worker): not
   * the analyst asking again. An IP of the interrupted call is answered 'interrupted' (it may be
   * paid already) unless /account proves that call was not billed.
   */
  resent?: boolean;
  /**
   * Answer now with what is known without the API (the cache, and every refusal: private,
   * the cap, no key...), leaving out the IPs queued for a call; the caller asks for those again
   * (the second ask joins the queued call, and the cap does not count them twice). A page thus
   * never shows an IP "Looking up…" while it waits on other IPs' call only to be refused.
   */
  answerNow?: boolean;
}

export interface LookupServiceOptions {
  clientSource: ClientSource;
  /** Read again on policyChanged(); `initialPolicy` applies until the first read. */
  policySource: () => Promise<LookupPolicy>;
  initialPolicy: LookupPolicy;
  cacheStore: CacheStore;
  ledgerStore: LedgerStore;
  /** Where the per-page counts outlive the worker; memory only without one. */
  pageCapStore?: PageCapStore;
  /** Where the sites' daily counts outlive the browser (storage.local); in `pageCapStore` without one. */
  siteCapStore?: PageCapStore;
  /** Where the bulk calls in flight outlive the worker (see call-journal.ts); memory only without one. */
  journalStore?: CallJournalStore;
  clock?: Clock;
  batch?: {
    windowMs?: number;
    batchSize?: number;
    maxConcurrent?: number;
    backoffBaseMs?: number;
    backoffMaxMs?: number;
    maxConsecutiveRetries?: number;
    random?: () => number;
  };
  /** Refresh /account in the background when the ledger is older than this. Default 10 min. */
  quotaMaxAgeMs?: number;
  /** Least time between refreshes nobody asked for (starved queue, exhausted quota). Default 60 s. */
  quotaRecheckMs?: number;
  /** How long the first lookups with a new key wait for its limit. Default 5 s. */
  firstRefreshWaitMs?: number;
  memoryMaxEntries?: number;
  /** A detailed lookup that meets a 429 waits for the pause and tries again this many times. */
  detailedRetries?: number;
  /**
   * The API server changed (now, or while the worker was stopped): answers given out before
   * came from another server. Called once the cache is claimed for the new one, so whoever asks
   * again from then on gets the new server's answers.
   */
  onServerChanged?: () => void;
  /**
   * Lookups were failing (network, timeout, 5xx, 429, rejected key) and the server answers
   * again: pages re-ask the IPs that failed. Probes with /account back off from 5 s to 20 s
   * (under the 30 s a stopped worker would drop them).
   */
  onRecovered?: () => void;
  recoveryProbeMs?: { baseMs: number; maxMs: number };
  /** Where "lookups are failing" and the probe's back-off outlive the worker; memory only without one. */
  recoveryStore?: RecoveryStore;
  /**
   * The circuit breaker the clients of `clientSource` were built with (lib/api/circuit.ts):
   * the bulk endpoint's circuit gates the batcher, its probe re-opens it, and recovery is
   * announced only once every endpoint that failed has answered again. Without one, the client
   * sends unguarded and recovery is inferred from any answer (the behaviour before circuits).
   */
  circuit?: CircuitBreaker;
  /** Where the IPs whose paid answer was lost outlive the worker (lost-answer-memory.ts); memory only without one. */
  lostAnswerStore?: StoredValue;
  /** Longest an IP waits while the bulk endpoint's circuit is open before it is answered as failed. Default 30 s. */
  holdMs?: number;
  /** Where the bulk probe's candidate IPs outlive the worker (probe-candidates.ts); memory only without one. */
  probeCandidateStore?: StoredValue;
  /**
   * Asks to have `wake()` called at `at` (clock ms) even if the process stops meanwhile
   * (browser.alarms in the extension; null: no wake needed). Used for the bulk circuit's next
   * probe: an open circuit's wait (up to 5 minutes) outlasts an idle MV3 worker, whose timers
   * die with it, and no page asks again until recovery is announced.
   */
  scheduleWake?: (at: number | null) => void;
}

/** The endpoint whose circuit gates the batcher. */
export const BULK_ENDPOINT = '/checkIP/bulk';
/** The free endpoint: its own circuit says nothing about lookups, and probing it costs nothing. */
const ACCOUNT_ENDPOINT = '/account';

const MINUTE = 60_000;

function formatWait(ms: number): string {
  return ms >= 60_000 ? `${Math.ceil(ms / 60_000)} min` : `${Math.max(1, Math.ceil(ms / 1000))} s`;
}

function capLimitsOf(policy: LookupPolicy): PageCapLimits {
  return { perWindow: policy.perPageCap, perSiteDay: policy.siteDailyCap };
}

function ttlsOf(policy: LookupPolicy): CacheTtls {
  return {
    foundMs: policy.ttlFoundMinutes * MINUTE,
    notFoundMs: policy.ttlNotFoundMinutes * MINUTE,
    detailedMs: policy.ttlDetailedMinutes * MINUTE,
  };
}

export class LookupService {
  private readonly options: LookupServiceOptions;
  private readonly clock: Clock;
  private readonly cache: LookupCache;
  private readonly guard: QuotaGuard;
  private readonly refresher: QuotaRefresher;
  private readonly pageCap: PageCap;
  private readonly batcher: Batcher<LookupResult>;
  private readonly calls: CallContext;
  private readonly admission: AdmissionRules;
  private readonly detailed: DetailedLookups;
  private readonly journal: CallJournal;
  private readonly recovery: RecoveryWatch;
  private readonly lostAnswers: LostAnswerMemory;
  private readonly circuit: CircuitBreaker | null;
  /** IPs that failed because the bulk endpoint did: one of them is the half-open probe when nobody asks. */
  private readonly probeCandidates: ProbeCandidates;
  private probeTimer: TimerHandle | null = null;
  private probeTimerAt = Infinity;
  private lostLoad: Promise<void> | null = null;
  private circuitLoad: Promise<void> | null = null;
  private candidatesLoad: Promise<void> | null = null;
  private policy: LookupPolicy;
  private handle: ClientHandle | null = null;
  /** The API base URL of the current settings; null until they are first read. */
  private server: string | null = null;
  /** The server rejected the key (401/403 invalid): nothing is sent until it changes or verifies. */
  private keyError: ApiErrorData | null = null;
  private lastError: LookupStatus['lastError'] = null;
  private policyLoad: Promise<void> | null = null;
  private clientLoad: Promise<void> | null = null;
  /**
   * Which load is the newest. Settings can change again while a load is still reading them;
   * the older load must then not apply what it read after the newer one did.
   */
  private policyGeneration = 0;
  private clientGeneration = 0;
  private pageCapLoad: Promise<void> | null = null;
  private journalLoad: Promise<void> | null = null;
  private recoveryLoad: Promise<void> | null = null;
  private forceRefreshOnLoad = false;
  /** Lookups between their start and the moment their IPs are queued (tests wait on it). */
  private preparing = 0;

  constructor(options: LookupServiceOptions) {
    this.options = options;
    this.clock = options.clock ?? systemClock;
    this.policy = options.initialPolicy;
    this.cache = new LookupCache({
      store: options.cacheStore,
      clock: this.clock,
      ttls: ttlsOf(this.policy),
      maxEntries: this.policy.cacheMaxEntries,
      ...(options.memoryMaxEntries !== undefined ? { memoryMaxEntries: options.memoryMaxEntries } : {}),
    });
    this.guard = new QuotaGuard({
      clock: this.clock,
      store: options.ledgerStore,
      reservePercent: this.policy.reservePercent,
    });
    this.refresher = new QuotaRefresher({
      clock: this.clock,
      guard: this.guard,
      maxAgeMs: options.quotaMaxAgeMs ?? 10 * MINUTE,
      recheckMs: options.quotaRecheckMs ?? MINUTE,
      onAccount: () => {
        this.keyError = null;
        this.noteSuccess();
      },
      onError: (error) => this.noteFailure(error),
    });
    this.probeCandidates = new ProbeCandidates(options.probeCandidateStore);
    this.lostAnswers = new LostAnswerMemory({ clock: this.clock, ...(options.lostAnswerStore ? { store: options.lostAnswerStore } : {}) });
    this.circuit = options.circuit ?? null;
    this.circuit?.onChange((endpoint) => this.circuitChanged(endpoint));
    this.pageCap = new PageCap(capLimitsOf(this.policy), {
      clock: this.clock,
      ...(options.pageCapStore ? { store: options.pageCapStore } : {}),
      ...(options.siteCapStore ? { siteStore: options.siteCapStore } : {}),
    });
    this.calls = {
      client: () => this.handle?.client ?? null,
      keyError: () => this.keyError,
      guard: this.guard,
      cache: this.cache,
      noteFailure: (error) => this.noteFailure(error),
      noteSuccess: () => this.noteSuccess(),
      reconcile: () => (this.handle ? this.refreshNow(this.handle).then(() => true, () => false) : Promise.resolve(false)),
      sleep: (ms) => new Promise<void>((resolve) => this.clock.setTimeout(resolve, ms)),
      lostAnswers: this.lostAnswers,
    };
    this.admission = {
      automaticAllowed: () => this.policy.automatic,
      state: this.calls,
      pageCap: this.pageCap,
      onQuotaBlocked: () => this.refreshIfDue(),
      interrupted: (ip) => this.journal.isInterrupted(ip, this.guard.identity),
    };
    this.recovery = new RecoveryWatch({
      clock: this.clock,
      // Recovery is proven on the endpoint that failed: each endpoint whose circuit is not
      // closed is tested by its own half-open probe. /account's probe is a free refresh, and is
      // sent whenever /account was failing too (after a full outage its circuit would otherwise
      // stay half-open, the quota meter saying "failing", until the next scheduled refresh).
      probe: () => {
        const troubled = this.circuit?.troubled() ?? [];
        if (troubled.includes(BULK_ENDPOINT)) this.probeTroubled();
        if ((!this.circuit || troubled.includes(ACCOUNT_ENDPOINT) || !troubled.length) && this.handle) {
          this.refreshNow(this.handle).catch(() => undefined);
        }
      },
      onRecovered: () => this.options.onRecovered?.(),
      baseMs: options.recoveryProbeMs?.baseMs ?? 5_000,
      maxMs: options.recoveryProbeMs?.maxMs ?? 20_000,
      ...(options.recoveryStore ? { store: options.recoveryStore } : {}),
    });
    this.batcher = new Batcher<LookupResult>({
      clock: this.clock,
      // Page lookups trickle in while the analyst scrolls. An on-screen IP leaves within
      // 350 ms, which leaves about 150 ms of the 500 ms goal for the call, the reply and the
      // frame that marks it (measured: answer + paint median 50-115 ms, on a busy
      // machine). Within 1 s of the last call (a scroll under way) it always waits those
      // 350 ms for company, which is what the fewest calls that keep the goal do (test/bench/
      // feasible-calls.ts); after a quiet second (page load, a hover) it goes at once. IPs
      // near the screen wait up to 2 s, and leave earlier with any call that goes: on screen
      // before their answer, the page asks them again as visible (lib/page/lookups/lookup-queue.ts).
      // At 1 s a scrolled live tail sent one call of 2-6 near addresses after each render
      // (bench page, BENCH_PAGE_DEBUG: 6-7 such calls a run, most never on screen); at 2 s
      // they still come a second or more before they reach the screen at a reading scroll.
      // Such calls of near addresses alone leave at most once per 10 s for each page: at one per
      // 2 s, a scrolled React tail made 3-5 of them in 8 s and the 10 s after, for addresses
      // that never reached the screen; one that does reach it is asked again as on screen then.
      paceMs: 1_000,
      maxWaitMs: 350,
      backgroundWaitMs: 2_000,
      backgroundPaceMs: 10_000,
      ...options.batch,
      send: (ips, asked) => this.sendJournaled(ips, asked),
      fallback: (ip, error) => failed(ip, asApiError(error ?? new Error('No answer for this IP.')).toJSON()),
      budget: (priority) => this.guard.budget(priority),
      onStarved: (items) => this.onStarved(items),
      ...(this.circuit ? { gate: () => this.bulkGate() } : {}),
      ...(options.holdMs !== undefined ? { holdMs: options.holdMs } : {}),
    });
    this.journal = new CallJournal(options.journalStore);
    this.detailed = new DetailedLookups({
      context: this.calls,
      whenResumed: () => this.batcher.whenResumed(),
      pause: (ms) => this.batcher.pause(ms),
      recheckQuota: async () => {
        if (this.handle && this.refresher.mayRecheck()) await this.refreshNow(this.handle).catch(() => undefined);
      },
      retries: options.detailedRetries ?? 3,
    });
  }

  /**
   * One result per input, in input order (the same result for repeated inputs); with
   * `answerNow`, only those known without a call, in input order.
   */
  async lookup(inputs: readonly string[], options: LookupOptions): Promise<LookupResult[]> {
    this.preparing++;
    let queued = false;
    const markQueued = () => {
      if (!queued) this.preparing--;
      queued = true;
    };
    try {
      await this.ready();
      const { results, wanted } = prepareIps(inputs, this.policy.sendPrivate);
      const answer = (ip: string, result: LookupResult) => {
        for (const index of wanted.get(ip) ?? []) results[index] = result;
      };
      const detailed = options.detailed === true;
      const manual = options.priority === 'manual';
      const records = await this.cache.read([...wanted.keys()]);
      const misses: string[] = [];
      for (const ip of wanted.keys()) {
        const record = records.get(ip);
        if (record && this.cache.satisfies(record, detailed, manual)) {
          answer(ip, resultFromRecord(record));
          this.journal.answered(ip);
        } else misses.push(ip);
      }

      const admitted = admit(misses, options, this.admission, answer);
      const toSend = await this.holdLostAndInterrupted(admitted, options, answer);
      const pending: Promise<void>[] = [];
      for (const ip of toSend) {
        // An answer may have landed while the cache was read: use it rather than ask again.
        const fresh = this.cache.fresh(ip, detailed, manual);
        if (fresh) {
          answer(ip, resultFromRecord(fresh));
          continue;
        }
        const record = records.get(ip);
        const infoStillFresh = record !== undefined && isInfoFresh(record, ttlsOf(this.policy), this.clock.now());
        let promise: Promise<LookupResult>;
        if (detailed && !infoStillFresh) promise = this.detailed.lookup(ip);
        else {
          // Plain, or detailed whose details are still fresh: a bulk call refreshes the
          // reputation and the cache merges the kept details back in.
          promise = this.detailed.pending(ip) ?? this.batcher.enqueue(ip, options.priority, options.source);
        }
        pending.push(
          promise.then((result) => {
            answer(ip, result);
            // The server answered it (even with a row we cannot read, now cached): a hold from
            // a stopped worker's call is over, whichever path (bulk or detailed) asked.
            if (this.cache.fresh(ip, false)) {
              this.journal.answered(ip);
              this.lostAnswers.answered(ip);
              this.probeCandidates.delete(ip);
            } else if (result.status === 'error' && isOutage(result.error)) this.probeCandidates.note(ip);
          }),
        );
      }
      markQueued();
      if (options.answerNow) {
        // Nobody awaits these here; they settle the cache and the callers that ask again.
        void Promise.allSettled(pending);
        return results.filter((result): result is LookupResult => result !== undefined);
      }
      await Promise.all(pending);
      return results.map((result, i) => result ?? failed(inputs[i] ?? '', { kind: 'bad-response', message: 'No answer.' }));
    } finally {
      markQueued();
    }
  }

  /**
   * `/checkSubnet` for one block: a manual lookup (the analyst saw its worst-case cost), under
   * the same rules as any other, private and reserved blocks included. Throws ApiError.
   */
  async checkSubnet(block: CidrBlock): Promise<SubnetAnswer> {
    await this.ready();
    const kind = classifyIp(block.network);
    if (kind !== 'public' && !this.policy.sendPrivate) {
      throw new ApiError({
        kind: 'bad-request',
        message: `${block.cidr} is a ${kind} range, which is never sent to the API unless "Send private IPs" is on.`,
      });
    }
    return lookupSubnet(this.calls, block);
  }

  async status(): Promise<LookupStatus> {
    await this.ready().catch(() => undefined);
    this.refreshIfDue();
    return {
      quota: this.guard.snapshot(),
      queueLength: this.batcher.queueLength,
      inFlight: this.batcher.inFlightCount + this.detailed.size,
      cacheSize: await this.cache.size(),
      lastError: this.lastError ?? this.circuitFailure(),
      pausedUntil: this.batcher.pausedUntil,
    };
  }

  /** Calls the free /account with the stored settings and refreshes the ledger; throws ApiError. */
  async verifyKey(): Promise<AccountInfo> {
    await this.ready();
    if (!this.handle) throw new ApiError(this.keyError ?? NO_KEY_ERROR);
    return this.refreshNow(this.handle);
  }

  async refreshQuota(): Promise<QuotaSnapshot> {
    await this.verifyKey();
    return this.guard.snapshot();
  }

  /** test-key costs one request: charged to the ledger. */
  async testKey(): Promise<TestKeyResult> {
    await this.ready();
    const handle = this.handle;
    if (!handle) throw new ApiError(this.keyError ?? NO_KEY_ERROR);
    try {
      const result = await handle.client.testKey();
      this.guard.charge(COST_OF_TEST_KEY, handle.identity);
      // Unless the settings changed meanwhile: then the answer is about the old key.
      if (this.handle === handle) {
        this.keyError = null;
        this.noteSuccess();
      }
      return result;
    } catch (error) {
      const apiError = asApiError(error);
      // Its answer lost after sending: learn from /account what it cost (never re-asked: it
      // would cost again to tell what the lost one may already have told).
      if (isLostAnswer(apiError)) await bookLostCall(this.calls, COST_OF_TEST_KEY, handle.identity);
      else this.guard.charge(costOfError('test-key', apiError), handle.identity);
      if (this.handle === handle) this.noteFailure(apiError);
      throw apiError;
    }
  }

  /** The cap of a tab and site: used / cap, and the site's daily count (the popup shows them). */
  async pageCapUsage(source: string, site: string): Promise<PageCapUsage> {
    await this.ready();
    return this.pageCap.usage(source, site);
  }

  /**
   * "Look up the rest": IPs of a tab past its cap, looked up because the analyst clicked for
   * them. The tab's cap makes room for exactly these (PageCap.allowChosen); the site's daily
   * ceiling still holds (over it: 'site-cap'), and so does the quota reserve, as for any
   * lookup the page makes ('quota-reserve' past it). One result per input, in order.
   */
  async lookUpPastCap(ips: readonly string[], cap: { source: string; site: string }): Promise<LookupResult[]> {
    await this.ready();
    const { results, wanted } = prepareIps(ips, this.policy.sendPrivate);
    const { overCeiling, siteCap } = this.pageCap.allowChosen(cap.source, [...wanted.keys()], cap.site);
    const refused = new Set(overCeiling);
    const allowed = [...wanted.keys()].filter((ip) => !refused.has(ip));
    const answers = new Map<string, LookupResult>();
    if (allowed.length) {
      const looked = await this.lookup(allowed, { priority: 'visible', ...cap });
      allowed.forEach((ip, i) => answers.set(ip, looked[i] ?? failed(ip, { kind: 'bad-response', message: 'No answer.' })));
    }
    for (const ip of refused) answers.set(ip, skipped(ip, 'site-cap', siteCap));
    for (const [ip, indexes] of wanted) for (const i of indexes) results[i] = answers.get(ip);
    return results.map((result, i) => result ?? failed(ips[i] ?? '', { kind: 'bad-response', message: 'No answer.' }));
  }

  async clearCache(): Promise<{ cleared: number }> {
    return { cleared: await this.cache.clear() };
  }

  /**
   * The API key, base URL or auth header changed: new client, new ledger, refresh the quota.
   * A new base URL also drops the cached answers (see loadClient).
   */
  credentialsChanged(): void {
    this.clientLoad = null;
    this.forceRefreshOnLoad = true;
    this.keyError = null;
    // Pages may hold IPs that failed with the old settings: the first success re-asks them.
    this.recovery.expectChange();
    void this.ready().catch(() => undefined);
  }

  /** The lookup policy changed: new TTLs, cap, reserve and cache bound apply from now on. */
  policyChanged(): void {
    this.policyLoad = null;
    void this.ready().catch(() => undefined);
  }

  /** Resolves when nothing is queued or in flight and every write has landed (tests, benchmarks). */
  async whenIdle(): Promise<void> {
    for (;;) {
      await this.batcher.whenIdle();
      await this.detailed.whenIdle();
      if (this.batcher.queueLength === 0 && this.batcher.inFlightCount === 0 && this.detailed.size === 0) break;
    }
    await this.cache.flush();
    await this.guard.flush();
    await this.pageCap.flush();
    await this.journal.flush();
    await this.recovery.flush();
    await this.lostAnswers.flush();
    await this.probeCandidates.flush();
    await this.circuit?.flush();
  }

  /**
   * Woken by `scheduleWake` (a restarted worker, possibly): takes up the stored state, which
   * sends the bulk circuit's probe if it is due, and re-schedules what is not due yet.
   */
  async wake(): Promise<void> {
    await this.ready().catch(() => undefined);
    if (this.circuit) this.circuitChanged(BULK_ENDPOINT);
  }

  /** Synchronous counters for tests and benchmarks. */
  stats() {
    return {
      preparing: this.preparing,
      queueLength: this.batcher.queueLength,
      inFlight: this.batcher.inFlightCount + this.detailed.size,
      bulkCalls: this.batcher.sentCalls,
      pausedUntil: this.batcher.pausedUntil,
    };
  }

  // ----- set-up -----

  private async ready(): Promise<void> {
    if (!this.policyLoad) {
      const load: Promise<void> = this.loadPolicy(++this.policyGeneration).catch((error: unknown) => {
        // A failed older load must not forget a newer one that is still running.
        if (this.policyLoad === load) this.policyLoad = null;
        throw error;
      });
      this.policyLoad = load;
    }
    if (!this.clientLoad) {
      const load: Promise<void> = this.loadClient(++this.clientGeneration).catch((error: unknown) => {
        if (this.clientLoad === load) this.clientLoad = null;
        throw error;
      });
      this.clientLoad = load;
    }
    // Never rejects: unreadable counts start from zero.
    this.pageCapLoad ??= this.pageCap.restore();
    // Never rejects either: calls a stopped worker left open become interrupted IPs.
    this.journalLoad ??= this.journal.restore();
    // Never rejects: a stopped worker's "lookups are failing" and its probing carry on here.
    this.recoveryLoad ??= this.recovery.restore();
    // Never reject: nothing readable is nothing remembered.
    this.lostLoad ??= this.lostAnswers.restore();
    this.candidatesLoad ??= this.probeCandidates.restore();
    // After the candidates: a probe due at once needs one of them.
    this.circuitLoad ??= this.circuit
      ? Promise.all([this.circuit.restore(), this.candidatesLoad]).then(() => this.circuitChanged(BULK_ENDPOINT))
      : Promise.resolve();
    await Promise.all([this.policyLoad, this.clientLoad, this.pageCapLoad, this.journalLoad, this.recoveryLoad, this.lostLoad, this.circuitLoad]);
  }

  private async loadPolicy(generation: number): Promise<void> {
    const policy = await this.options.policySource();
    // Superseded while reading: the newer load applies newer settings; wait for it instead.
    if (generation !== this.policyGeneration) return this.policyLoad ?? undefined;
    this.policy = policy;
    this.cache.setTtls(ttlsOf(policy));
    this.cache.setMaxEntries(policy.cacheMaxEntries);
    this.pageCap.setLimits(capLimitsOf(policy));
    this.guard.setReservePercent(policy.reservePercent);
    this.batcher.kick();
  }

  private async loadClient(generation: number): Promise<void> {
    const { server, handle, refusal } = await this.options.clientSource();
    // Superseded while reading: the newer load applies newer settings; wait for it instead.
    if (generation !== this.clientGeneration) return this.clientLoad ?? undefined;
    // The ledger follows the identity (base URL + key): a new key or server has its own quota.
    await this.guard.use(handle?.identity ?? null);
    if (generation !== this.clientGeneration) return this.clientLoad ?? undefined;
    // The client and the cache's owner change in the same turn (see LookupCache.useOwner).
    this.handle = handle;
    // Not awaited: the cache's reads and writes wait for the store's claim themselves.
    const claimed = this.cache.useOwner(server);
    this.keyError = refusal ?? null;
    if (server !== this.server) this.serverChanged(server, claimed);
    const force = this.forceRefreshOnLoad;
    this.forceRefreshOnLoad = false;
    if (handle && (force || this.guard.refreshedAt === null)) {
      // Learn the limit before spending with a new key, but never hang lookups on it.
      const refreshed = this.refreshNow(handle).catch(() => undefined);
      let timer: TimerHandle | undefined;
      const giveUp = new Promise<void>((resolve) => (timer = this.clock.setTimeout(resolve, this.options.firstRefreshWaitMs ?? 5_000)));
      await Promise.race([refreshed, giveUp]);
      this.clock.clearTimeout(timer);
    }
    this.batcher.kick();
  }

  /**
   * What the old server told us is not about the new one: its rate-limit pause, its last error,
   * and its calls still in flight, which new lookups must not join. (Its cached answers go with
   * the cache's owner.) At the worker's first load only the store knows whether the server
   * changed while the worker was stopped: `claimed` says whether it held another's answers.
   */
  private serverChanged(server: string, claimed: Promise<boolean>): void {
    const first = this.server === null;
    this.server = server;
    void claimed.then((replaced) => {
      // A newer change has its own notice; this one would only ask twice.
      if ((replaced || !first) && this.server === server) this.options.onServerChanged?.();
    });
    if (first) return;
    this.lastError = null;
    this.recovery.reset();
    this.circuit?.reset();
    this.probeCandidates.clear();
    this.batcher.resumeNow();
    this.batcher.detachInFlight();
    this.detailed.detachInFlight();
  }

  // ----- calls -----

  /**
   * A bulk call, written down in the journal before it leaves and crossed out once its answers
   * are in the persistent cache: callers hear the answers only after that, so a stopped worker
   * loses no answer that came back, and its successor knows which calls got none.
   */
  private async sendJournaled(ips: string[], asked: ReadonlySet<string>) {
    const entry = this.journal.begin(this.guard.identity, ips, this.guard.refreshedAt !== null ? this.guard.snapshot().used : null);
    let answered: string[] = [];
    try {
      const result = await sendBulk(this.calls, ips, entry.written, asked);
      if (result.kind === 'done') {
        await this.cache.persisted();
        // Every IP the server answered, unreadable rows included: they are cached (and maybe
        // billed) like the others. Only per-row failures and cleared answers keep their hold.
        answered = ips.filter((ip) => this.cache.fresh(ip, false) !== undefined);
      }
      return result;
    } finally {
      void entry.end(answered);
    }
  }

  // ----- quota and failures -----

  private refreshNow(handle: ClientHandle): Promise<AccountInfo> {
    return this.refresher.refresh(handle.client).finally(() => this.batcher.kick());
  }

  private refreshIfDue(): void {
    if (this.handle && !this.refresher.busy && this.refresher.isDue()) {
      this.refreshNow(this.handle).catch(() => undefined);
    }
  }

  /**
   * Queued IPs the budget cannot cover, with nothing in flight that could free some. The
   * ledger may be stale (a new billing period, another client's usage): re-check it once,
   * then skip what still does not fit.
   */
  private onStarved(items: QueuedIp[]): void {
    if (this.refresher.busy) return; // its end kicks the batcher again
    if (this.handle && this.refresher.mayRecheck()) {
      this.refreshNow(this.handle).catch(() => undefined);
      return;
    }
    const manualRoom = this.guard.budget('manual') > 0;
    const reserve = items.filter((i) => i.priority !== 'manual' && manualRoom).map((i) => i.ip);
    this.batcher.settleQueued(reserve, (ip) => skipped(ip, 'quota-reserve'));
    this.batcher.settleQueued('all', (ip) => skipped(ip, 'quota-exhausted'));
  }

  /**
   * A call succeeded: lookups are not failing (any more), unless the bulk endpoint's circuit is
   * still not closed. /account answering says nothing about a bulk endpoint that times out or
   * answers 503: that one's own probe must answer before pages are told to ask again. The
   * converse holds too: once bulk answers, pages re-ask although /account's circuit (open in a
   * full outage) has not been probed yet: pages' lookups never go through /account.
   */
  private noteSuccess(): void {
    if (this.circuit && this.circuit.view(BULK_ENDPOINT).state !== 'closed') return;
    if (this.lastError && this.lastError.kind !== 'quota-exhausted') this.lastError = null;
    // /account failed with the rest: its probe (a free refresh) tells the quota meter now.
    if (this.circuit?.troubled().includes(ACCOUNT_ENDPOINT) && this.handle) this.refreshNow(this.handle).catch(() => undefined);
    this.recovery.succeeded();
  }

  // ----- the bulk endpoint's circuit -----

  /**
   * While an endpoint's circuit is not closed, lookups are failing, whatever the last call said:
   * a free /account that answers clears the last error, but says nothing about a bulk endpoint
   * that answers 503, and the quota meter must not say "OK" then.
   */
  private circuitFailure(): LookupStatus['lastError'] {
    for (const endpoint of this.circuit?.troubled() ?? []) {
      // /account failing alone leaves lookups working; its own failure is the last error.
      if (endpoint === ACCOUNT_ENDPOINT) continue;
      const reason = this.circuit!.view(endpoint).reason;
      if (reason) return { ...reason, at: this.clock.now() };
    }
    return null;
  }

  /** What the bulk circuit lets the batcher do now. */
  private bulkGate(): GateState {
    const view = this.circuit!.view(BULK_ENDPOINT);
    if (view.state === 'closed') return { state: 'open' };
    if (view.state === 'half-open' && view.retryAt === null) return { state: 'probe' };
    const reason = view.reason ?? { kind: 'server' as const, message: 'It failed just now.' };
    const waitMs = view.retryAt === null ? null : Math.max(0, view.retryAt - this.clock.now());
    const when = waitMs === null ? 'one request is checking it now' : `one small request checks it again in ${formatWait(waitMs)}`;
    const error = new ApiError({
      kind: reason.kind,
      ...(reason.status !== undefined ? { status: reason.status } : {}),
      message: `Not sent: the API's bulk lookups are failing (${reason.message.replace(/\.$/, '')}); ${when}, and failed IPs are asked again automatically once it answers.`,
      ...(waitMs !== null ? { retryAfterMs: waitMs } : {}),
      circuitOpen: true,
    });
    return { state: 'wait', until: view.retryAt, error };
  }

  /** The circuit changed: the batcher re-plans, the probe is scheduled, recovery may be announced. */
  private circuitChanged(endpoint: string): void {
    this.batcher.kick();
    if (endpoint !== BULK_ENDPOINT || !this.circuit) return;
    const view = this.circuit.view(BULK_ENDPOINT);
    // Closed by an answer: its caller announces the recovery once the answers are cached.
    if (view.state === 'closed') return this.options.scheduleWake?.(null);
    // A wake only for a wait: half-open with no probe out, the probe goes now or never (no
    // candidate: a page's next ask is the probe), and a wake for "now" would only repeat.
    this.options.scheduleWake?.(view.retryAt);
    const at = view.retryAt ?? this.clock.now();
    if (at >= this.probeTimerAt) return;
    if (this.probeTimer !== null) this.clock.clearTimeout(this.probeTimer);
    this.probeTimerAt = at;
    this.probeTimer = this.clock.setTimeout(() => {
      this.probeTimer = null;
      this.probeTimerAt = Infinity;
      this.probeTroubled();
    }, Math.max(0, at - this.clock.now()));
  }

  /**
   * The bulk circuit is half-open and nobody is asking: send its probe, one IP that failed with
   * it (the cheapest request that exercises the endpoint: at most one unit, for an answer a page
   * is waiting for). An IP whose lost answer was already re-asked this hour is never the probe.
   */
  private probeTroubled(): void {
    if (!this.circuit) return;
    const view = this.circuit.view(BULK_ENDPOINT);
    if (view.state === 'open') return this.circuitChanged(BULK_ENDPOINT);
    if (view.state !== 'half-open' || view.retryAt !== null) return;
    if (this.batcher.queueLength > 0 || this.batcher.inFlightCount > 0 || refusalOf(this.calls)) return;
    const identity = this.guard.identity;
    let candidate: string | undefined;
    for (const ip of this.probeCandidates) {
      const verdict = this.lostAnswers.verdict(ip, identity).kind;
      if (verdict === 'free') {
        candidate = ip;
        break;
      }
      if (verdict === 'reask') candidate ??= ip;
    }
    if (candidate === undefined) return;
    this.probeCandidates.delete(candidate);
    void this.lookup([candidate], { priority: 'background', source: 'circuit-probe' }).catch(() => undefined);
  }


  /**
   * The rules on IPs that may already have been paid, after admission: a lost answer re-asked
   * this hour is answered with its reason (unless the analyst's "Try again"), and an IP of a
   * call a stopped worker left open is, for a transport resend, answered 'interrupted' unless
   * /account proves that call was not billed.
   */
  private async holdLostAndInterrupted(
    ips: string[],
    options: LookupOptions,
    answer: (ip: string, result: LookupResult) => void,
  ): Promise<string[]> {
    const identity = this.guard.identity;
    const explicit = options.retryLost === true && options.priority === 'manual';
    const kept: string[] = [];
    for (const ip of ips) {
      const verdict = explicit ? null : this.lostAnswers.verdict(ip, identity);
      if (verdict?.kind === 'held') answer(ip, failed(ip, verdict.error));
      else kept.push(ip);
    }
    if (!options.resent || explicit) return kept;
    const interrupted = kept.filter((ip) => this.journal.isInterrupted(ip, identity));
    if (!interrupted.length) return kept;
    const proven = await this.provenUnbilled(interrupted);
    return kept.filter((ip) => {
      if (!interrupted.includes(ip) || proven.has(ip)) return true;
      answer(ip, skipped(ip, 'interrupted'));
      return false;
    });
  }

  /** Interrupted IPs whose call /account proves was not billed: the server's count has not grown since it left. */
  private async provenUnbilled(ips: string[]): Promise<Set<string>> {
    const handle = this.handle;
    if (!handle) return new Set();
    try {
      await this.refreshNow(handle);
    } catch {
      return new Set();
    }
    const used = this.guard.snapshot().used;
    return new Set(
      ips.filter((ip) => {
        const before = this.journal.usageBefore(ip);
        return before !== null && used !== null && used <= before;
      }),
    );
  }

  /** Remembers an API failure and applies what it means for everything else queued. */
  private noteFailure(error: ApiError): void {
    this.lastError = { ...error.toJSON(), at: this.clock.now() };
    this.recovery.failed(error.kind);
    if (error.kind === 'quota-exhausted') {
      this.guard.markExhausted(error.message);
      this.batcher.settleQueued('all', (ip) => skipped(ip, 'quota-exhausted'));
    } else if (error.kind === 'invalid-key' || error.kind === 'missing-key' || error.kind === 'refused' || error.kind === 'sign-in-again') {
      // A refusal /account could not explain repeats (and bills) on every call: stop until the
      // settings change or the key is verified again.
      const data = error.toJSON();
      this.keyError = data;
      this.batcher.settleQueued('all', (ip) => failed(ip, data));
    }
  }
}
