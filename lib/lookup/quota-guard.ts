/**
 * The quota guard: decides how many more IPs may be sent now, for manual and for automatic
 * lookups, so that page scans never eat into the reserve the user keeps and nothing is sent
 * once the server has said the usage limit is reached.
 *
 * Budgets are worst-case: a bulk call of n IPs may cost n units (if all are found), so n
 * units are committed while it is in flight and the real cost is charged when it returns.
 * That is what makes "never spend the reserve" hold even with calls running in parallel.
 */
import type { AccountInfo } from '../api/types';
import type { Clock } from './clock';
import {
  emptyLedger,
  limitsFromAccount,
  parseLedger,
  type LedgerStore,
  type QuotaLedger,
} from './quota-ledger';
import type { LookupPriority, QuotaSnapshot, QuotaState } from './types';

export interface QuotaGuardOptions {
  clock: Clock;
  store: LedgerStore;
  reservePercent: number;
  onError?: (error: unknown) => void;
}

/** "low" is shown when what is left is within this share of the limit above the reserve. */
const LOW_MARGIN = 0.1;

export class QuotaGuard {
  private ledger: QuotaLedger | null = null;
  private useCalls = 0;
  private committed = 0;
  private reservePercent: number;
  private saving: Promise<void> = Promise.resolve();
  private readonly clock: Clock;
  private readonly store: LedgerStore;
  private readonly onError: (error: unknown) => void;

  constructor(options: QuotaGuardOptions) {
    this.clock = options.clock;
    this.store = options.store;
    this.reservePercent = options.reservePercent;
    this.onError = options.onError ?? ((error) => console.warn('[ip-lens] quota ledger:', error));
  }

  get identity(): string | null {
    return this.ledger?.identity ?? null;
  }

  get refreshedAt(): number | null {
    return this.ledger?.refreshedAt ?? null;
  }

  /** Switches to the ledger of this key: the persisted one if it matches, else a new one. */
  async use(identity: string | null): Promise<void> {
    // Only the latest call may set the ledger: an older one still reading the store must not
    // put back the ledger of a key that was replaced meanwhile.
    const call = ++this.useCalls;
    if (identity === null) {
      this.ledger = null;
      return;
    }
    if (this.ledger?.identity === identity) return;
    let stored: QuotaLedger | null = null;
    try {
      stored = parseLedger(await this.store.load());
    } catch (error) {
      this.onError(error);
    }
    if (call !== this.useCalls) return;
    this.ledger = stored?.identity === identity ? stored : emptyLedger(identity);
  }

  setReservePercent(percent: number): void {
    this.reservePercent = percent;
  }

  /** A fresh /account answer replaces the estimate; a block is lifted only if it shows room. */
  applyAccount(account: AccountInfo): void {
    if (!this.ledger) return;
    const limits = limitsFromAccount(account);
    const next: QuotaLedger = {
      ...this.ledger,
      serverUsed: limits.used,
      limit: limits.limit,
      unlimited: limits.unlimited,
      scope: limits.scope,
      localCost: 0,
      refreshedAt: this.clock.now(),
      team: account.team ?? null,
    };
    const room = next.unlimited || next.limit === null || remainingOf(next) > 0;
    if (room) {
      next.blocked = false;
      next.detail = null;
    }
    this.ledger = next;
    this.persist();
  }

  /**
   * `identity`: the ledger the call was made under. A call that returns after the key or server
   * changed cost the old quota, not this one.
   */
  charge(units: number, identity: string | null = this.identity): void {
    if (!this.ledger || units <= 0 || identity !== this.ledger.identity) return;
    this.ledger = { ...this.ledger, localCost: this.ledger.localCost + units };
    this.persist();
  }

  /** The server answered 403 usage-limit: stop everything until a refresh shows room. */
  markExhausted(detail: string): void {
    if (!this.ledger) return;
    this.ledger = { ...this.ledger, blocked: true, detail };
    this.persist();
  }

  /** Reserves the worst-case cost of a call about to start; returns the release function. */
  commit(units: number): () => void {
    this.committed += units;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.committed -= units;
    };
  }

  /** How many more IPs (worst case one unit each) may be sent now at this priority. */
  budget(priority: LookupPriority): number {
    const ledger = this.ledger;
    if (!ledger) return Infinity;
    if (ledger.blocked) return 0;
    if (ledger.unlimited || ledger.limit === null) return Infinity;
    const keep = priority === 'manual' ? 0 : this.reserveOf(ledger);
    return Math.max(0, remainingOf(ledger) - keep - this.committed);
  }

  get blocked(): boolean {
    return this.ledger?.blocked ?? false;
  }

  state(): QuotaState {
    const ledger = this.ledger;
    if (!ledger) return 'unknown';
    if (ledger.blocked) return 'exhausted';
    if (ledger.unlimited) return 'ok';
    if (ledger.limit === null) return 'unknown';
    const remaining = remainingOf(ledger);
    const reserve = this.reserveOf(ledger);
    if (remaining <= 0) return 'exhausted';
    if (remaining <= reserve) return 'reserve-reached';
    if (remaining <= reserve + ledger.limit * LOW_MARGIN) return 'low';
    return 'ok';
  }

  snapshot(): QuotaSnapshot {
    const ledger = this.ledger;
    const state = this.state();
    if (!ledger) {
      return {
        state,
        used: null,
        limit: null,
        unlimited: false,
        scope: null,
        reserve: null,
        pendingLocalCost: 0,
        refreshedAt: null,
        detail: null,
      };
    }
    return {
      state,
      used: ledger.serverUsed === null ? (ledger.localCost || null) : ledger.serverUsed + ledger.localCost,
      limit: ledger.limit,
      unlimited: ledger.unlimited,
      scope: ledger.scope,
      reserve: ledger.limit === null || ledger.unlimited ? null : this.reserveOf(ledger),
      pendingLocalCost: ledger.localCost,
      refreshedAt: ledger.refreshedAt,
      detail: ledger.detail,
      team: ledger.team,
    };
  }

  /** Resolves when the ledger's latest state has been written. */
  async flush(): Promise<void> {
    await this.saving;
  }

  private reserveOf(ledger: QuotaLedger): number {
    return ledger.limit === null ? 0 : Math.ceil((ledger.limit * this.reservePercent) / 100);
  }

  private persist(): void {
    const copy = this.ledger;
    if (!copy) return;
    this.saving = this.saving.then(() => this.store.save(copy)).catch(this.onError);
  }
}

function remainingOf(ledger: QuotaLedger): number {
  return (ledger.limit ?? 0) - (ledger.serverUsed ?? 0) - ledger.localCost;
}
