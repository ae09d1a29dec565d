/**
 * Knows whether lookups are failing, and tells when the server answers again so that pages
 * re-ask the IPs that failed (they would otherwise stay "lookup failed" until a reload).
 *
 * While a transient failure lasts (timeout, network, 5xx, persistent 429, a redirect or a
 * wrong answer), it probes with the free /account call, backing off from `baseMs` to `maxMs`.
 * A rejected key is not probed: nothing changes until the key does, and a new key's first
 * successful call is the recovery. Any successful call ends the failure, probe or not.
 *
 * The state is kept in `store` (storage.session) as it changes: MV3 stops an idle worker, and a
 * restarted one must still know that lookups were failing (so the first success re-asks the
 * pages' failed IPs) and go on probing where the stopped one left off.
 */
import type { ApiErrorKind } from '../api/errors';
import type { Clock, TimerHandle } from './clock';
import { loadOrNothing, type StoredValue } from './stored-value';

/** Failures a page shows as "lookup failed" and re-asks after recovery. */
export const RETRIABLE_FAILURES: ReadonlySet<ApiErrorKind> = new Set<ApiErrorKind>([
  'timeout',
  'network',
  'server',
  'rate-limited',
  'bad-response',
  'not-found',
  'invalid-key',
  'missing-key',
  'sign-in-again',
]);
/** The ones that may end on their own: worth probing for. */
const PROBED: ReadonlySet<ApiErrorKind> = new Set<ApiErrorKind>(['timeout', 'network', 'server', 'rate-limited', 'bad-response']);

/** Where the state outlives the worker (storage.session in the browser). */
export type RecoveryStore = StoredValue;

interface Stored {
  v: 1;
  failing: boolean;
  /** A probe was due when this was written. */
  probing: boolean;
  delayMs: number;
}

/**
 * Checked by hand, not with zod: the content script imports RETRIABLE_FAILURES from this file,
 * and zod must stay out of the page (scripts/check-architecture.ts).
 */
function parseStored(raw: unknown): Stored | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const r = raw as Record<string, unknown>;
  const delay = r.delayMs;
  if (r.v !== 1 || typeof r.failing !== 'boolean' || typeof r.probing !== 'boolean') return null;
  if (typeof delay !== 'number' || !Number.isInteger(delay) || delay <= 0 || delay > 3_600_000) return null;
  return { v: 1, failing: r.failing, probing: r.probing, delayMs: delay };
}

export interface RecoveryWatchOptions {
  clock: Clock;
  store?: RecoveryStore;
  /** Calls the free /account; its outcome reaches succeeded() / failed() through the service. */
  probe: () => void;
  onRecovered: () => void;
  baseMs?: number;
  maxMs?: number;
}

export class RecoveryWatch {
  private failing = false;
  private timer: TimerHandle | null = null;
  private delay: number;
  /** Something happened in this run: what an earlier run stored is older. */
  private changed = false;
  private restored: Promise<void> | null = null;
  private saving: Promise<void> = Promise.resolve();

  constructor(private readonly options: RecoveryWatchOptions) {
    this.delay = options.baseMs ?? 5_000;
  }

  /**
   * Takes up what a stopped worker left: still failing, and probing again if it was. Never
   * rejects (nothing readable: not failing, as before persistence).
   */
  restore(): Promise<void> {
    this.restored ??= (async () => {
      const stored = parseStored(await loadOrNothing(this.options.store));
      if (!stored || this.changed || !stored.failing) return;
      this.failing = true;
      this.delay = Math.min(stored.delayMs, this.options.maxMs ?? 120_000);
      if (stored.probing) this.scheduleProbe();
    })();
    return this.restored;
  }

  /** Resolves when every write so far has landed (tests). */
  flush(): Promise<void> {
    return this.saving;
  }

  get isFailing(): boolean {
    return this.failing;
  }

  failed(kind: ApiErrorKind): void {
    if (!RETRIABLE_FAILURES.has(kind)) return;
    const was = this.failing;
    this.failing = true;
    if (PROBED.has(kind) && this.timer === null) this.scheduleProbe();
    else if (!was) this.save();
  }

  /** The settings changed: the next successful call is worth announcing (a new key works). */
  expectChange(): void {
    this.failing = true;
    this.save();
  }

  succeeded(): void {
    this.cancelProbe();
    this.delay = this.options.baseMs ?? 5_000;
    if (!this.failing) return;
    this.failing = false;
    this.save();
    this.options.onRecovered();
  }

  /** Another server: its predecessor's failures say nothing about it. */
  reset(): void {
    this.cancelProbe();
    const was = this.failing;
    this.failing = false;
    this.delay = this.options.baseMs ?? 5_000;
    if (was) this.save();
  }

  private scheduleProbe(): void {
    const wait = this.delay;
    this.delay = Math.min(this.delay * 2, this.options.maxMs ?? 120_000);
    this.timer = this.options.clock.setTimeout(() => {
      this.timer = null;
      this.options.probe();
    }, wait);
    this.save();
  }

  /** One write at a time, of the state when it starts; a failed write changes nothing here. */
  private save(): void {
    this.changed = true;
    const store = this.options.store;
    if (!store) return;
    this.saving = this.saving
      .then(() =>
        store.save({
          v: 1,
          failing: this.failing,
          probing: this.timer !== null,
          delayMs: this.delay,
        } satisfies Stored),
      )
      .catch(() => undefined);
  }

  private cancelProbe(): void {
    if (this.timer !== null) this.options.clock.clearTimeout(this.timer);
    this.timer = null;
  }
}
