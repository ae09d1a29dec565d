/**
 * Each IP bought once per team, across replicas:
 *
 *   look up the store ─► hit: answer
 *        │ miss
 *   claim the IP (SET NX PX lease) ─► held by another: wait for its "answered" message, and
 *        │ won                          poll too (pub/sub may drop one); claim gone without an
 *        │                              answer: claim it again (loop)
 *   look again (an answer may have landed) ─► reserve the worst case in the team ledger
 *   ─► mark "buying" ─► one upstream call (bulk, ≤100 IPs per HTTP request via lib/api), the
 *   lease extended while it runs and the call aborted if the lease is lost ─► store answers with
 *   their TTLs ─► settle the ledger ─► publish ─► release (compare-and-delete, owner only).
 *
 * A claim won over a vanished holder's "buying" mark (it died mid-call) may hide a purchase the
 * upstream billed: the ledger is reconciled with the free /account before buying again. A call
 * whose answer was lost (lib/api's lostAfterSend) is reconciled the same way, and its IPs are
 * not re-asked within this request (the no-blind-paid-retry rule): the analyst gets an error
 * row. Unless /account proves the call was not billed, its IPs join lib's lost-answer memory
 * (shared by replicas through the store): each is re-asked automatically at most once an hour,
 * and answered with the reason meanwhile, so a server that keeps losing answers is not paid
 * again by every analyst who asks.
 */
import { randomUUID } from 'node:crypto';
import { ApiError } from '../../lib/api/errors';
import type { IpInfo, Reputation } from '../../lib/api/types';
import type { Metrics } from './metrics';
import type { ClaimKind, Store, StoredAnswer, StoredInfo } from './store/types';
import type { TeamLedger } from './team-ledger';
import type { Upstream } from './upstream';
import type { CacheSource } from './wire';

export interface Ttls {
  foundMs: number;
  notFoundMs: number;
  detailedMs: number;
}

export type Resolved =
  | { ip: string; status: 'found'; data: Reputation; info?: IpInfo | null; fetchedAt: number; source: CacheSource }
  | { ip: string; status: 'not-found'; fetchedAt: number; source: CacheSource }
  | { ip: string; status: 'error'; error: ApiError };

export interface LookupOutcome {
  answers: Map<string, Resolved>;
  /** Units this request made the team spend (found IPs bought, detailed lookups found). */
  units: number;
  hits: number;
  coalesced: number;
}

export interface BuyOnceOptions {
  store: Store;
  upstream: Upstream;
  ledger: TeamLedger;
  ttls: Ttls;
  leaseMs: number;
  /** How often a waiter looks at the store even without a message. */
  pollMs?: number;
  /** Longest a request waits for another replica's purchase. */
  maxWaitMs?: number;
  metrics?: Metrics;
  now?: () => number;
}

/** What one purchase brought: per IP a stored answer, or an error; and its real cost. */
interface Purchase {
  answers: Map<string, { answer: StoredAnswer; info?: StoredInfo }>;
  errors: Map<string, ApiError>;
  spent: number;
}

export class BuyOnce {
  readonly owner = randomUUID();
  private readonly waiters = new Map<string, Set<() => void>>();
  private unsubscribe: (() => Promise<void>) | null = null;
  private readonly now: () => number;
  private readonly pollMs: number;
  private readonly maxWaitMs: number;

  constructor(private readonly options: BuyOnceOptions) {
    this.now = options.now ?? Date.now;
    this.pollMs = options.pollMs ?? 200;
    this.maxWaitMs = options.maxWaitMs ?? options.leaseMs * 2;
  }

  async start(): Promise<void> {
    this.unsubscribe = await this.options.store.subscribeAnswered((ips) => {
      for (const ip of ips) for (const wake of this.waiters.get(ip) ?? []) wake();
    });
  }

  async stop(): Promise<void> {
    await this.unsubscribe?.().catch(() => {});
    this.unsubscribe = null;
  }

  /**
   * The stored answers of `ips`, read ahead (the server starts this while it checks the token,
   * so a cached answer costs no round trip of its own); pass it to reputations().
   */
  peek(ips: readonly string[]): Promise<Map<string, StoredAnswer>> {
    return this.options.store.getAnswers(ips);
  }

  /**
   * Reputations of canonical, lookupable IPs (at most a bulk request's worth). `peeked`: a
   * read of the same IPs made just before (peek), used as the first look at the store.
   */
  reputations(ips: readonly string[], signal?: AbortSignal, peeked?: Map<string, StoredAnswer>): Promise<LookupOutcome> {
    const { store, ttls } = this.options;
    let ahead = peeked;
    return this.resolve('rep', ips, signal, {
      read: async (list) => {
        const stored = ahead ?? (await store.getAnswers(list));
        ahead = undefined;
        const found = new Map<string, { answer: StoredAnswer }>();
        for (const ip of list) {
          const answer = stored.get(ip);
          if (answer) found.set(ip, { answer });
        }
        return found;
      },
      buy: async (list, abort) => {
        const purchase: Purchase = { answers: new Map(), errors: new Map(), spent: 0 };
        const result = await this.options.upstream.bulk(list, abort);
        this.options.metrics?.upstreamCalls.inc({ endpoint: 'bulk' }, result.requests);
        const at = this.now();
        for (const item of result.items) {
          if (item.status === 'found') {
            purchase.spent++;
            const { ipInfo: _dropped, ...data } = item.data;
            purchase.answers.set(item.ip, { answer: { status: 'found', data, fetchedAt: at } });
          } else if (item.status === 'not-found') {
            purchase.answers.set(item.ip, { answer: { status: 'not-found', data: null, fetchedAt: at } });
          } else {
            purchase.errors.set(item.ip, new ApiError({ kind: item.kind, message: item.message }));
          }
        }
        const stored = [...purchase.answers].map(([ip, { answer }]) => ({
          ip,
          answer,
          ttlMs: answer.status === 'found' ? ttls.foundMs : ttls.notFoundMs,
        }));
        await store.putAnswers(stored);
        return purchase;
      },
    });
  }

  /** A detailed lookup of one IP: its reputation and its ipInfo (checkIP detailed=true, 1 unit if found). */
  detailed(ip: string, signal?: AbortSignal): Promise<LookupOutcome> {
    const { store, ttls } = this.options;
    return this.resolve('info', [ip], signal, {
      read: async ([one]) => {
        const [answers, info] = await Promise.all([store.getAnswers([one!]), store.getInfo(one!)]);
        const answer = answers.get(one!);
        // Details are fresh only with a reputation beside them (the reputation ages faster).
        return answer && info ? new Map([[one!, { answer, info }]]) : new Map();
      },
      buy: async ([one], abort) => {
        const purchase: Purchase = { answers: new Map(), errors: new Map(), spent: 0 };
        const result = await this.options.upstream.detailed(one!, abort);
        this.options.metrics?.upstreamCalls.inc({ endpoint: 'checkIP' });
        const at = this.now();
        if (result.status === 'found') {
          purchase.spent = 1;
          const { ipInfo, ...data } = result.data;
          const answer: StoredAnswer = { status: 'found', data, fetchedAt: at };
          const info: StoredInfo = { info: ipInfo ?? null, fetchedAt: at };
          await store.putAnswers([{ ip: one!, answer, ttlMs: ttls.foundMs }]);
          await store.putInfo(one!, info, ttls.detailedMs);
          purchase.answers.set(one!, { answer, info });
        } else {
          const answer: StoredAnswer = { status: 'not-found', data: null, fetchedAt: at };
          const info: StoredInfo = { info: null, fetchedAt: at };
          await store.putAnswers([{ ip: one!, answer, ttlMs: ttls.notFoundMs }]);
          await store.putInfo(one!, info, ttls.notFoundMs);
          purchase.answers.set(one!, { answer, info });
        }
        return purchase;
      },
    });
  }

  private async resolve(
    kind: ClaimKind,
    ips: readonly string[],
    signal: AbortSignal | undefined,
    how: {
      read: (ips: string[]) => Promise<Map<string, { answer: StoredAnswer; info?: StoredInfo }>>;
      buy: (ips: string[], signal: AbortSignal) => Promise<Purchase>;
    },
  ): Promise<LookupOutcome> {
    const { store, leaseMs, metrics } = this.options;
    const outcome: LookupOutcome = { answers: new Map(), units: 0, hits: 0, coalesced: 0 };
    const deadline = this.now() + this.maxWaitMs;
    let pending = [...new Set(ips)];
    let waited = false;
    const settleFrom = (found: Map<string, { answer: StoredAnswer; info?: StoredInfo }>, source: CacheSource) => {
      for (const [ip, { answer, info }] of found) {
        outcome.answers.set(ip, toResolved(ip, answer, info, source));
        if (source === 'hit') outcome.hits++;
        if (source === 'coalesced') outcome.coalesced++;
      }
      pending = pending.filter((ip) => !found.has(ip));
    };

    while (pending.length) {
      if (signal?.aborted) break;
      settleFrom(await how.read(pending), waited ? 'coalesced' : 'hit');
      if (!pending.length) break;
      const claims = await Promise.all(pending.map(async (ip) => [ip, await store.claim(kind, ip, this.owner, leaseMs)] as const));
      const won = claims.filter(([, c]) => c !== 'held').map(([ip]) => ip);
      const held = claims.filter(([, c]) => c === 'held').map(([ip]) => ip);
      if (won.length) {
        try {
          if (claims.some(([, c]) => c === 'won-stale')) {
            // A holder vanished mid-purchase: learn what it may have cost before buying again.
            metrics?.reconciliations.inc();
            await this.options.ledger.refresh();
          }
          // Someone may have answered between our read and our claim.
          const late = await how.read(won);
          settleFrom(late, waited ? 'coalesced' : 'hit');
          const toBuy = won.filter((ip) => !late.has(ip));
          if (toBuy.length) await this.buy(kind, toBuy, how.buy, outcome, signal);
          pending = pending.filter((ip) => !toBuy.includes(ip));
        } finally {
          await Promise.all(won.map((ip) => store.releaseClaim(kind, ip, this.owner).catch(() => false)));
        }
      }
      if (!pending.length) break;
      if (this.now() >= deadline) {
        for (const ip of pending) {
          outcome.answers.set(ip, { ip, status: 'error', error: new ApiError({ kind: 'timeout', message: 'Another gateway replica is still buying this IP; try again shortly.' }) });
        }
        break;
      }
      await this.waitFor(held, deadline, signal);
      waited = true;
    }
    return outcome;
  }

  private async buy(
    kind: ClaimKind,
    ips: string[],
    buy: (ips: string[], signal: AbortSignal) => Promise<Purchase>,
    outcome: LookupOutcome,
    signal: AbortSignal | undefined,
  ) {
    const { store, ledger, leaseMs, metrics } = this.options;
    // Lost answers: decided under the IPs' claims, on the state every replica shares.
    const memory = this.options.upstream.lostAnswers;
    await memory.sync();
    const heldBack = new Set<string>();
    const reasks: string[] = [];
    for (const ip of ips) {
      const verdict = memory.verdict(ip, null);
      if (verdict.kind === 'held') {
        heldBack.add(ip);
        outcome.answers.set(ip, { ip, status: 'error', error: new ApiError(verdict.error) });
      } else if (verdict.kind === 'reask') reasks.push(ip);
    }
    if (heldBack.size) {
      ips = ips.filter((ip) => !heldBack.has(ip));
      if (!ips.length) return memory.flush();
    }
    const fail = (error: ApiError) => {
      for (const ip of ips) if (!outcome.answers.has(ip)) outcome.answers.set(ip, { ip, status: 'error', error });
    };
    if (!(await ledger.reserve(ips.length))) {
      metrics?.refused.inc({ reason: 'team-reserve' });
      return fail(new ApiError({ kind: 'quota-exhausted', status: 403, message: 'API usage limit exceeded: the team quota is down to its reserve' }));
    }
    const usedBefore = (await store.getLedger().catch(() => null))?.usage ?? null;
    let spent = 0;
    let settled = false;
    const abort = new AbortController();
    const onAbort = () => abort.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    // Extend the lease well before it ends; losing it stops the call (another replica may buy).
    const keepAlive = setInterval(() => {
      void Promise.all(ips.map((ip) => store.extendClaim(kind, ip, this.owner, leaseMs))).then(
        (kept) => {
          if (kept.includes(false)) abort.abort(new ApiError({ kind: 'timeout', message: 'The purchase lost its claim and was stopped.' }));
        },
        () => abort.abort(new ApiError({ kind: 'timeout', message: 'The store stopped answering during the purchase.' })),
      );
    }, Math.max(50, Math.floor(leaseMs / 3)));
    try {
      await store.markBuying(kind, ips, this.owner);
      const purchase = await buy(ips, abort.signal);
      spent = purchase.spent;
      await ledger.settle(ips.length, spent);
      settled = true;
      metrics?.upstreamUnits.inc(spent);
      outcome.units += spent;
      for (const [ip, { answer, info }] of purchase.answers) outcome.answers.set(ip, toResolved(ip, answer, info, 'miss'));
      for (const [ip, error] of purchase.errors) outcome.answers.set(ip, { ip, status: 'error', error });
      for (const ip of purchase.answers.keys()) memory.answered(ip);
      await store.publishAnswered([...purchase.answers.keys()]).catch(() => {});
    } catch (error) {
      const apiError = error instanceof ApiError ? error : new ApiError({ kind: 'server', message: 'Failed to fetch IP details' });
      if (!settled) {
        if (!apiError.circuitOpen && (apiError.lostAfterSend || apiError.kind === 'rate-limited')) {
          // The upstream may have billed it: take the server's count (the lost-answer rule).
          await ledger.settle(ips.length, 0);
          settled = true;
          metrics?.reconciliations.inc();
          const after = (await ledger.refresh().catch(() => null))?.usage ?? null;
          const unbilled = usedBefore !== null && after !== null && after <= usedBefore;
          if (apiError.lostAfterSend && !unbilled) memory.lost(ips, null, apiError.toJSON());
        } else {
          await ledger.settle(ips.length, 0);
          settled = true;
        }
      }
      // A re-ask the circuit refused never left: it is still due. One that left was the one.
      if (!apiError.circuitOpen) for (const ip of reasks) memory.reasked(ip);
      fail(apiError);
    } finally {
      clearInterval(keepAlive);
      signal?.removeEventListener('abort', onAbort);
      await memory.flush();
    }
  }

  /** Until one of `ips` is answered (message), the poll interval passes, or the deadline. */
  private waitFor(ips: readonly string[], deadline: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        for (const ip of ips) this.waiters.get(ip)?.delete(done);
        resolve();
      };
      const timer = setTimeout(done, Math.max(1, Math.min(this.pollMs, deadline - this.now())));
      signal?.addEventListener('abort', done, { once: true });
      for (const ip of ips) {
        let set = this.waiters.get(ip);
        if (!set) this.waiters.set(ip, (set = new Set()));
        set.add(done);
      }
    }).finally(() => {
      for (const ip of ips) if (this.waiters.get(ip)?.size === 0) this.waiters.delete(ip);
    });
  }
}

function toResolved(ip: string, answer: StoredAnswer, info: StoredInfo | undefined, source: CacheSource): Resolved {
  if (answer.status === 'not-found' || !answer.data) return { ip, status: 'not-found', fetchedAt: answer.fetchedAt, source };
  return { ip, status: 'found', data: answer.data, ...(info ? { info: info.info } : {}), fetchedAt: answer.fetchedAt, source };
}
