/**
 * The batcher: turns lookups of single IPs from many callers into few bulk calls.
 *
 * - Coalescing: IPs wait up to `windowMs` for company; a full batch (`batchSize`, the API's
 *   100-IP limit) leaves at once.
 * - De-duplication: an IP queued or in flight is never queued again; every caller of that IP
 *   gets the one answer.
 * - Priority: manual before visible before background, FIFO within each.
 * - Concurrency: at most `maxConcurrent` calls at a time.
 * - Adaptive size: while a call is in flight, or one left less than `paceMs` ago, a partial
 *   batch is not sent; it grows until the call answers and the pace allows, the batch is full,
 *   or one of its IPs reaches its deadline (manual lookups never wait). A fast server thus
 *   gets at most one partial call per `paceMs`, a slow one one per answer. IPs that trickle in
 *   while a page scrolls then go in a few large calls instead of one small call per window
 *   (benchmark: 497 IPs took 47-51 calls where 5 would do), and each call counts against the
 *   service's rate limits.
 * - Deadlines: an IP may wait `maxWaitMs` if on screen (visible), `backgroundWaitMs` if not
 *   (near the screen, or anywhere on the page). Background IPs wait for company even when
 *   nothing is in flight: nobody looks at them yet, and the next on-screen IP's call takes
 *   them along. A background IP asked again as visible (it came on screen) takes the
 *   visible deadline from then, so it is never later than one that was on screen at once.
 *   While a call is in flight, only an on-screen IP's deadline sends another call: overdue
 *   background IPs go when that call answers. A call of background IPs alone leaves at most
 *   once per `backgroundPaceMs` for each page (the `group` they were queued with): on a page
 *   that keeps bringing a few addresses near the screen (a scrolled live tail), each wait would
 *   otherwise end in a call of its own, for addresses that mostly never reach the screen; per
 *   page, so that such a tail does not hold back another tab's.
 * - Budget: before each batch it asks how many IPs each priority may still send (the quota
 *   guard); what does not fit waits for calls in flight to settle, and if nothing is in
 *   flight it is handed to `onStarved` (which skips it or refreshes the quota first).
 * - Rate limits: a send that answers `retry-later` puts its IPs back at the front of the
 *   queue and pauses everything (Retry-After or exponential backoff). Callers just wait: each
 *   is answered exactly once.
 * - Gate (the endpoint's circuit, lib/api/circuit.ts): while it says `wait`, nothing is sent,
 *   and an IP queued longer than `holdMs` is answered with the gate's error (a mark must not
 *   stay "Looking up…" for the minutes a failing endpoint may take); while it says `probe`,
 *   one call of one IP goes, alone, and the rest wait for its outcome.
 */
import type { Clock, TimerHandle } from './clock';
import type { LookupPriority } from './types';

export type SendResult<O> =
  | { kind: 'done'; outcomes: Map<string, O> }
  /** Rate limited: requeue at the front and pause (Retry-After when known). */
  | { kind: 'retry-later'; delayMs: number | null; error?: unknown };

/** What the endpoint's circuit allows now. */
export type GateState =
  | { state: 'open' }
  /** Half-open: one call of one IP, with nothing else in flight. */
  | { state: 'probe' }
  /** Nothing may be sent before `until` (null: until a probe in flight ends). */
  | { state: 'wait'; until: number | null; error: unknown };

export interface QueuedIp {
  ip: string;
  priority: LookupPriority;
}

export interface BatcherOptions<O> {
  clock: Clock;
  /** Must reserve its budget synchronously (before its first await): the next batch is formed right after. */
  send: (ips: string[], asked: ReadonlySet<string>) => Promise<SendResult<O>>;
  /** The answer for an IP the send left out, or for every IP when send throws. */
  fallback: (ip: string, error?: unknown) => O;
  budget?: (priority: LookupPriority) => number;
  onStarved?: (items: QueuedIp[]) => void;
  windowMs?: number;
  /** Longest a visible IP waits for company (keeps on-screen marks prompt). */
  maxWaitMs?: number;
  /** Longest a background IP waits for company, even with nothing in flight (default: maxWaitMs). */
  backgroundWaitMs?: number;
  /** Least time between two calls of background IPs alone, per group (default 0: none). */
  backgroundPaceMs?: number;
  /** After a call leaves, partial batches grow this long too (0: only while calls are in flight). */
  paceMs?: number;
  batchSize?: number;
  maxConcurrent?: number;
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  /** Longest pause honoured, even if Retry-After asks for more. */
  maxPauseMs?: number;
  /** After this many rate-limited sends in a row, a batch is answered with `fallback` instead of requeued. */
  maxConsecutiveRetries?: number;
  random?: () => number;
  gate?: () => GateState;
  /** Longest an IP waits while the gate is shut before it is answered with the gate's error. Default 30 s. */
  holdMs?: number;
}

interface Entry<O> {
  ip: string;
  /** Whose lookup it is (a page), for the pace of background calls; the first caller's. */
  group: string | undefined;
  priority: LookupPriority;
  resolve: (outcome: O) => void;
  promise: Promise<O>;
  /** Clock ms by which it leaves, in a partial batch if need be (see `waitOf`). */
  deadline: number;
  /** Clock ms when it was first queued (a requeue keeps it): the gate's hold counts from here. */
  queuedAt: number;
}

const PRIORITIES: readonly LookupPriority[] = ['manual', 'visible', 'background'];

export class Batcher<O> {
  private readonly queues: Record<LookupPriority, Map<string, Entry<O>>> = {
    manual: new Map(),
    visible: new Map(),
    background: new Map(),
  };
  private readonly inFlight = new Map<string, Entry<O>>();
  /** In flight to a server no longer configured: they answer their callers, nobody joins them. */
  private readonly detached = new Set<Entry<O>>();
  private calls = 0;
  private windowTimer: TimerHandle | null = null;
  private growTimer: TimerHandle | null = null;
  /** When growTimer fires (an earlier deadline replaces it). */
  private growTimerAt = Infinity;
  private lastDispatchAt = -Infinity;
  /** Per group, when its IPs last left in a call of background IPs alone (within the pace). */
  private backgroundOnlyAt = new Map<string | undefined, number>();
  private windowElapsed = false;
  private pumpScheduled = false;
  private resumeTimer: TimerHandle | null = null;
  private gateTimer: TimerHandle | null = null;
  private gateTimerAt = Infinity;
  private consecutiveRetries = 0;
  private idleWaiters: Array<() => void> = [];
  private resumeWaiters: Array<() => void> = [];
  /** Epoch ms until which nothing is sent, or null. */
  pausedUntil: number | null = null;
  /** Calls made (for status and benchmarks). */
  sentCalls = 0;

  private readonly options: Required<Omit<BatcherOptions<O>, 'onStarved' | 'backgroundWaitMs' | 'gate'>> &
    Pick<BatcherOptions<O>, 'onStarved' | 'gate'> & { backgroundWaitMs: number };

  constructor(options: BatcherOptions<O>) {
    this.options = {
      budget: () => Infinity,
      windowMs: 25,
      maxWaitMs: 250,
      paceMs: 0,
      backgroundPaceMs: 0,
      batchSize: 100,
      maxConcurrent: 3,
      backoffBaseMs: 1_000,
      backoffMaxMs: 60_000,
      maxPauseMs: 15 * 60_000,
      maxConsecutiveRetries: 8,
      random: Math.random,
      holdMs: 30_000,
      ...options,
      backgroundWaitMs: options.backgroundWaitMs ?? options.maxWaitMs ?? 250,
    };
  }

  get queueLength(): number {
    return this.queues.manual.size + this.queues.visible.size + this.queues.background.size;
  }

  /** IPs in calls not yet answered. */
  get inFlightCount(): number {
    return this.inFlight.size + this.detached.size;
  }

  /** Queues an IP (or joins the lookup already queued / in flight) and resolves with its outcome. */
  enqueue(ip: string, priority: LookupPriority, group?: string): Promise<O> {
    const flying = this.inFlight.get(ip);
    if (flying) return flying.promise;
    for (const p of PRIORITIES) {
      const queued = this.queues[p].get(ip);
      if (!queued) continue;
      if (rank(priority) < rank(p)) {
        // A more urgent caller: move it up (manual jumps the queue), with that caller's deadline.
        this.queues[p].delete(ip);
        queued.priority = priority;
        queued.deadline = Math.min(queued.deadline, this.options.clock.now() + this.waitOf(priority));
        this.queues[priority].set(ip, queued);
        this.schedulePump();
      }
      return queued.promise;
    }
    let resolve!: (outcome: O) => void;
    const promise = new Promise<O>((r) => (resolve = r));
    let settled = false;
    const entry: Entry<O> = {
      ip,
      group,
      priority,
      promise,
      deadline: this.options.clock.now() + this.waitOf(priority),
      queuedAt: this.options.clock.now(),
      resolve: (outcome) => {
        if (settled) return; // exactly once, whatever happens
        settled = true;
        resolve(outcome);
      },
    };
    if (this.queueLength === 0 && !this.windowElapsed) this.startWindow();
    this.queues[priority].set(ip, entry);
    this.schedulePump();
    return promise;
  }

  /** Answers queued IPs without sending them (quota exhausted, key rejected, starved...). */
  settleQueued(ips: Iterable<string> | 'all', outcome: (ip: string) => O): number {
    const wanted = ips === 'all' ? null : new Set(ips);
    let n = 0;
    for (const p of PRIORITIES) {
      for (const [ip, entry] of this.queues[p]) {
        if (wanted && !wanted.has(ip)) continue;
        this.queues[p].delete(ip);
        entry.resolve(outcome(ip));
        n++;
      }
    }
    this.afterChange();
    return n;
  }

  queued(): QueuedIp[] {
    return PRIORITIES.flatMap((p) => [...this.queues[p].values()].map(({ ip, priority }) => ({ ip, priority })));
  }

  /** Re-evaluates the queue (after the budget changed). */
  kick(): void {
    this.schedulePump();
  }

  /** Pauses sending for `ms` (a 429 seen elsewhere); the longest pause wins. */
  pause(ms: number): void {
    const until = this.options.clock.now() + Math.min(ms, this.options.maxPauseMs);
    if (this.pausedUntil === null || until > this.pausedUntil) {
      this.pausedUntil = until;
      if (this.resumeTimer !== null) this.options.clock.clearTimeout(this.resumeTimer);
      this.resumeTimer = this.options.clock.setTimeout(() => this.resume(), until - this.options.clock.now());
    }
  }

  /**
   * Ends a pause now and forgets the run of 429s: the server that asked for them is no longer
   * the one called.
   */
  resumeNow(): void {
    this.consecutiveRetries = 0;
    if (this.pausedUntil === null) return;
    if (this.resumeTimer !== null) this.options.clock.clearTimeout(this.resumeTimer);
    this.resume();
  }

  /**
   * The calls in flight went to a server that is no longer the one configured: they still answer
   * their own callers, but new lookups of the same IPs are queued for the new server instead of
   * joining them, and a 429 they meet neither pauses nor requeues anything.
   */
  detachInFlight(): void {
    for (const entry of this.inFlight.values()) this.detached.add(entry);
    this.inFlight.clear();
  }

  /** Resolves at once if not paused, else when the pause ends. */
  whenResumed(): Promise<void> {
    if (this.pausedUntil === null) return Promise.resolve();
    return new Promise((resolve) => this.resumeWaiters.push(resolve));
  }

  /** Resolves when nothing is queued or in flight. */
  whenIdle(): Promise<void> {
    if (this.queueLength === 0 && this.inFlightCount === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private resume(): void {
    this.resumeTimer = null;
    this.pausedUntil = null;
    const waiters = this.resumeWaiters;
    this.resumeWaiters = [];
    waiters.forEach((w) => w());
    this.schedulePump();
  }

  private startWindow(): void {
    if (this.windowTimer !== null) return;
    this.windowTimer = this.options.clock.setTimeout(() => {
      this.windowTimer = null;
      this.windowElapsed = true;
      this.schedulePump();
    }, this.options.windowMs);
  }

  /** One pump per turn of the event loop, so a caller's whole list is queued before batches form. */
  private schedulePump(): void {
    if (this.pumpScheduled) return;
    this.pumpScheduled = true;
    queueMicrotask(() => {
      this.pumpScheduled = false;
      this.pump();
    });
  }

  private pump(): void {
    const gate = this.options.gate?.() ?? { state: 'open' };
    if (gate.state === 'wait') {
      this.holdShut(gate.until, gate.error);
      this.afterChange();
      return;
    }
    if (this.pausedUntil !== null) return;
    let starved = false;
    while (this.calls < this.options.maxConcurrent && this.queueLength > 0) {
      if (gate.state === 'probe') {
        // The probe goes alone: with a call in flight its outcome is still to come.
        if (this.calls > 0) break;
        const batch = this.form().slice(0, 1);
        if (!batch.length) starved = true;
        else this.dispatch(batch);
        break;
      }
      if (!this.windowElapsed && this.queueLength < this.options.batchSize) break;
      if (this.shouldGrow()) break;
      const batch = this.form();
      if (!batch.length) {
        starved = true;
        break;
      }
      this.dispatch(batch);
    }
    if (starved && this.calls === 0 && this.options.onStarved) this.options.onStarved(this.queued());
    this.afterChange();
  }

  /**
   * Whether the partial batch waits for more company: while a call to the current server is in
   * flight (its answer wakes the pump) or the pace holds, or while it holds background IPs
   * only; never for manual lookups, and never past the earliest deadline of its IPs. While a
   * call is in flight only an on-screen IP's deadline sends another: background IPs past
   * theirs wait for that answer (nobody looks at them yet), then leave at once.
   */
  private shouldGrow(): boolean {
    if (this.queueLength >= this.options.batchSize || this.queues.manual.size > 0) return false;
    const now = this.options.clock.now();
    // Calls detached from an old server do not count: their answers are not this server's.
    const flying = this.inFlight.size > 0;
    const busy = flying || now - this.lastDispatchAt < this.options.paceMs;
    if (!busy && this.queues.visible.size > 0) return false;
    // Nothing may be sent anyway: let the pump find it starved now rather than at the deadline.
    if (!busy && this.options.budget('background') < 1) return false;
    const due = this.earliestDeadline(flying);
    if (due <= now) return false;
    if (due < this.growTimerAt) {
      if (this.growTimer !== null) this.options.clock.clearTimeout(this.growTimer);
      this.growTimerAt = due;
      this.growTimer = this.options.clock.setTimeout(() => {
        this.growTimer = null;
        this.growTimerAt = Infinity;
        this.schedulePump();
      }, due - now);
    }
    return true;
  }

  /**
   * The gate is shut: answer with its error the IPs that waited `holdMs`, and come back when the
   * next one would, or when the gate opens (`until`; a probe's end kicks the pump itself).
   */
  private holdShut(until: number | null, error: unknown): void {
    const now = this.options.clock.now();
    let nextExpiry = Infinity;
    for (const p of PRIORITIES) {
      for (const [ip, entry] of this.queues[p]) {
        const expires = entry.queuedAt + this.options.holdMs;
        if (expires <= now) {
          this.queues[p].delete(ip);
          entry.resolve(this.options.fallback(ip, error));
        } else nextExpiry = Math.min(nextExpiry, expires);
      }
    }
    const wake = Math.min(nextExpiry, until ?? Infinity);
    if (wake === Infinity || wake >= this.gateTimerAt) return;
    if (this.gateTimer !== null) this.options.clock.clearTimeout(this.gateTimer);
    this.gateTimerAt = wake;
    this.gateTimer = this.options.clock.setTimeout(() => {
      this.gateTimer = null;
      this.gateTimerAt = Infinity;
      this.schedulePump();
    }, Math.max(0, wake - now));
  }

  private waitOf(priority: LookupPriority): number {
    if (priority === 'manual') return 0;
    return priority === 'visible' ? this.options.maxWaitMs : this.options.backgroundWaitMs;
  }

  /**
   * Background IPs are in deadline order (one wait, FIFO); visible ones are not (an upgraded IP
   * keeps an earlier deadline), but a partial visible queue is under one batch: read them all.
   */
  private earliestDeadline(visibleOnly: boolean): number {
    let due = visibleOnly ? Infinity : this.backgroundDue();
    for (const entry of this.queues.visible.values()) if (entry.deadline < due) due = entry.deadline;
    return due;
  }

  /**
   * When the first background IP may leave: its deadline, or later while its group's pace holds.
   * In deadline order, so the walk stops at the first deadline past the best found (a partial
   * batch: under `batchSize` IPs).
   */
  private backgroundDue(): number {
    let due = Infinity;
    for (const entry of this.queues.background.values()) {
      if (entry.deadline >= due) break;
      const paced = (this.backgroundOnlyAt.get(entry.group) ?? -Infinity) + this.options.backgroundPaceMs;
      due = Math.min(due, Math.max(entry.deadline, paced));
    }
    return due;
  }

  /** The next batch: by priority, within each priority's budget (one unit per IP, worst case). */
  private form(): Entry<O>[] {
    const batch: Entry<O>[] = [];
    const budgets = new Map(PRIORITIES.map((p) => [p, this.options.budget(p)]));
    for (const p of PRIORITIES) {
      for (const entry of this.queues[p].values()) {
        if (batch.length >= this.options.batchSize) return batch;
        // Taking any IP uses one unit of every budget (they share the same quota).
        if (batch.length >= (budgets.get(p) ?? 0)) break;
        batch.push(entry);
      }
    }
    return batch;
  }

  private dispatch(batch: Entry<O>[]): void {
    for (const entry of batch) {
      this.queues[entry.priority].delete(entry.ip);
      this.inFlight.set(entry.ip, entry);
    }
    this.calls++;
    this.sentCalls++;
    this.lastDispatchAt = this.options.clock.now();
    if (batch.every((e) => e.priority === 'background')) this.noteBackgroundOnly(batch);
    const ips = batch.map((e) => e.ip);
    // The IPs someone asked for on purpose (the rest were on a page), for a team gateway's sightings.
    const asked = new Set(batch.filter((e) => e.priority === 'manual').map((e) => e.ip));
    let sending: Promise<SendResult<O>>;
    try {
      sending = this.options.send(ips, asked);
    } catch (error) {
      sending = Promise.reject(error);
    }
    sending
      .then(
        (result) => this.complete(batch, result),
        (error: unknown) => this.complete(batch, null, error),
      )
      .finally(() => {
        this.calls--;
        this.schedulePump();
      });
  }

  /** A call of background IPs alone left: their groups' pace starts now (stale groups go). */
  private noteBackgroundOnly(batch: Entry<O>[]): void {
    const now = this.lastDispatchAt;
    for (const [group, at] of this.backgroundOnlyAt) if (at + this.options.backgroundPaceMs <= now) this.backgroundOnlyAt.delete(group);
    if (this.options.backgroundPaceMs > 0) for (const entry of batch) this.backgroundOnlyAt.set(entry.group, now);
  }

  private complete(batch: Entry<O>[], result: SendResult<O> | null, error?: unknown): void {
    // detachInFlight() moves whole batches: one entry tells for all.
    const detached = batch.length > 0 && this.detached.has(batch[0]!);
    for (const entry of batch) {
      if (detached) this.detached.delete(entry);
      else this.inFlight.delete(entry.ip);
    }
    if (result?.kind === 'retry-later' && detached) {
      for (const entry of batch) entry.resolve(this.options.fallback(entry.ip, result.error));
      return;
    }
    if (result?.kind === 'retry-later') {
      this.consecutiveRetries++;
      this.pause(result.delayMs ?? this.backoff());
      if (this.consecutiveRetries <= this.options.maxConsecutiveRetries) {
        this.requeueAtFront(batch);
        return;
      }
      // The server keeps refusing: answer rather than keep callers waiting forever.
      for (const entry of batch) entry.resolve(this.options.fallback(entry.ip, result.error));
      return;
    }
    this.consecutiveRetries = 0;
    for (const entry of batch) {
      const outcome = result?.outcomes.get(entry.ip);
      entry.resolve(outcome !== undefined ? outcome : this.options.fallback(entry.ip, error));
    }
  }

  private requeueAtFront(batch: Entry<O>[]): void {
    for (const p of PRIORITIES) {
      const back = batch.filter((e) => e.priority === p);
      if (!back.length) continue;
      const rest = [...this.queues[p]];
      this.queues[p].clear();
      for (const e of back) this.queues[p].set(e.ip, e);
      for (const [ip, e] of rest) this.queues[p].set(ip, e);
    }
    // They already waited their window.
    this.windowElapsed = true;
  }

  /** Exponential backoff with jitter (between half and all of the step), capped. */
  private backoff(): number {
    const step = Math.min(this.options.backoffMaxMs, this.options.backoffBaseMs * 2 ** (this.consecutiveRetries - 1));
    return Math.round(step / 2 + (step / 2) * this.options.random());
  }

  private afterChange(): void {
    if (this.queueLength === 0) {
      this.windowElapsed = false;
      if (this.windowTimer !== null) {
        this.options.clock.clearTimeout(this.windowTimer);
        this.windowTimer = null;
      }
      if (this.growTimer !== null) {
        this.options.clock.clearTimeout(this.growTimer);
        this.growTimer = null;
        this.growTimerAt = Infinity;
      }
      if (this.gateTimer !== null) {
        this.options.clock.clearTimeout(this.gateTimer);
        this.gateTimer = null;
        this.gateTimerAt = Infinity;
      }
    }
    if (this.queueLength === 0 && this.inFlightCount === 0 && this.idleWaiters.length) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      waiters.forEach((w) => w());
    }
  }
}

function rank(priority: LookupPriority): number {
  return PRIORITIES.indexOf(priority);
}
