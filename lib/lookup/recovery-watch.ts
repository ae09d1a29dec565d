/**
 * Knows whether lookups are failing, and tells when the server answers again so that pages
 * re-ask the IPs that failed (they would otherwise stay "lookup failed" until a reload).
 *
 * While a transient failure lasts (timeout, network, 5xx, persistent 429, a redirect or a
 * wrong answer), it probes with the free /account call, backing off from `baseMs` to `maxMs`.
 * A rejected key is not probed: nothing changes until the key does, and a new key's first
 * successful call is the recovery. Any successful call ends the failure, probe or not.
 */
import type { ApiErrorKind } from '../api/errors';
import type { Clock, TimerHandle } from './clock';

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
]);
/** The ones that may end on their own: worth probing for. */
const PROBED: ReadonlySet<ApiErrorKind> = new Set<ApiErrorKind>(['timeout', 'network', 'server', 'rate-limited', 'bad-response']);

export interface RecoveryWatchOptions {
  clock: Clock;
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

  constructor(private readonly options: RecoveryWatchOptions) {
    this.delay = options.baseMs ?? 5_000;
  }

  get isFailing(): boolean {
    return this.failing;
  }

  failed(kind: ApiErrorKind): void {
    if (!RETRIABLE_FAILURES.has(kind)) return;
    this.failing = true;
    if (PROBED.has(kind) && this.timer === null) {
      const wait = this.delay;
      this.delay = Math.min(this.delay * 2, this.options.maxMs ?? 120_000);
      this.timer = this.options.clock.setTimeout(() => {
        this.timer = null;
        this.options.probe();
      }, wait);
    }
  }

  /** The settings changed: the next successful call is worth announcing (a new key works). */
  expectChange(): void {
    this.failing = true;
  }

  succeeded(): void {
    this.cancelProbe();
    this.delay = this.options.baseMs ?? 5_000;
    if (!this.failing) return;
    this.failing = false;
    this.options.onRecovered();
  }

  /** Another server: its predecessor's failures say nothing about it. */
  reset(): void {
    this.cancelProbe();
    this.failing = false;
    this.delay = this.options.baseMs ?? 5_000;
  }

  private cancelProbe(): void {
    if (this.timer !== null) this.options.clock.clearTimeout(this.timer);
    this.timer = null;
  }
}
