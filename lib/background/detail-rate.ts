/**
 * Detailed lookups asked by content scripts cost one quota unit each and skip the per-page cap
 * (they are the card's "Details" button: a click). A content script cannot prove to the
 * background that a person clicked, so the background limits them per tab: a burst of
 * `burst`, then one every `refillMs`, which no analyst clicking cards reaches and which stops a
 * compromised page from spending single lookups in bulk.
 */
import { ApiError } from '../api/errors';
import type { Clock } from '../lookup/clock';

export interface DetailRateOptions {
  clock: Clock;
  /** Lookups a tab may ask at once. Default 10. */
  burst?: number;
  /** One more allowed after this long. Default 6 s (10 a minute). */
  refillMs?: number;
  /** What is limited, for the refusal's sentence. Default "detailed lookups". */
  label?: string;
}

export class DetailRate {
  private readonly tabs = new Map<number, { tokens: number; at: number }>();
  private readonly burst: number;
  private readonly refillMs: number;

  constructor(private readonly options: DetailRateOptions) {
    this.burst = options.burst ?? 10;
    this.refillMs = options.refillMs ?? 6_000;
  }

  /** Takes one lookup for the tab, or throws a rate-limited ApiError that says when to retry. */
  take(tabId: number): void {
    const now = this.options.clock.now();
    const bucket = this.tabs.get(tabId) ?? { tokens: this.burst, at: now };
    const refilled = Math.min(this.burst, bucket.tokens + Math.max(0, now - bucket.at) / this.refillMs);
    if (refilled < 1) {
      const waitMs = Math.ceil((1 - refilled) * this.refillMs);
      this.tabs.set(tabId, { tokens: refilled, at: now });
      throw new ApiError({
        kind: 'rate-limited',
        message: `Too many ${this.options.label ?? 'detailed lookups'} from this tab (at most ${this.burst} at once, then one every ${Math.round(this.refillMs / 1000)} s). Try again in ${Math.ceil(waitMs / 1000)} s.`,
        retryAfterMs: waitMs,
      });
    }
    this.tabs.set(tabId, { tokens: refilled - 1, at: now });
    if (this.tabs.size > 1_000) this.tabs.delete(this.tabs.keys().next().value!);
  }

  /** The tab closed. */
  forget(tabId: number): void {
    this.tabs.delete(tabId);
  }
}
