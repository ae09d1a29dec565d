/**
 * Keeps the quota ledger close to the server's count with the free /account call: once when
 * a key is first used, again when the ledger is older than `maxAgeMs`, and on demand (the
 * popup, a starved queue, an exhausted quota hoping for a new billing period). Concurrent
 * requests share one call; automatic re-checks are spaced by `recheckMs`.
 */
import type { AccountInfo, ApiClient } from '../api/types';
import type { Clock } from './clock';
import type { QuotaGuard } from './quota-guard';
import type { ApiError } from '../api/errors';
import { asApiError } from './results';

export interface QuotaRefresherOptions {
  clock: Clock;
  guard: QuotaGuard;
  maxAgeMs: number;
  recheckMs: number;
  onAccount: (account: AccountInfo) => void;
  onError: (error: ApiError) => void;
}

export class QuotaRefresher {
  private running: Promise<AccountInfo> | null = null;
  private runningClient: ApiClient | null = null;
  private lastAttempt = -Infinity;

  constructor(private readonly options: QuotaRefresherOptions) {}

  get busy(): boolean {
    return this.running !== null;
  }

  /** Calls /account now (or joins the call in progress); rejects with an ApiError. */
  refresh(client: ApiClient): Promise<AccountInfo> {
    // Join the call in progress only if it asks the same client (not one from before a key change).
    if (this.running && this.runningClient === client) return this.running;
    this.lastAttempt = this.options.clock.now();
    const identity = this.options.guard.identity;
    this.runningClient = client;
    const call: Promise<AccountInfo> = client
      .account()
      .then(
        (account) => {
          // The key may have changed while we asked: that answer is for the old ledger.
          if (this.options.guard.identity === identity) {
            this.options.guard.applyAccount(account);
            this.options.onAccount(account);
          }
          return account;
        },
        (error: unknown) => {
          const apiError = asApiError(error);
          this.options.onError(apiError);
          throw apiError;
        },
      )
      .finally(() => {
        if (this.running === call) {
          this.running = null;
          this.runningClient = null;
        }
      });
    this.running = call;
    return call;
  }

  /** A re-check is allowed (the last attempt is older than `recheckMs`). */
  mayRecheck(): boolean {
    return this.options.clock.now() - this.lastAttempt >= this.options.recheckMs;
  }

  /** Whether the ledger is old enough (or blocked) to refresh without being asked. */
  isDue(): boolean {
    if (!this.mayRecheck()) return false;
    const at = this.options.guard.refreshedAt;
    return at === null || this.options.guard.blocked || this.options.clock.now() - at >= this.options.maxAgeMs;
  }
}
