/**
 * The team's quota, one ledger in the store for all replicas: the organisation's usage from the
 * free /account (read the documented way, lib/api's limitsFromAccount) plus what the gateway
 * bought since. A purchase reserves its worst case (every IP found) atomically before it
 * leaves and settles to what it really cost; a reserve share of the limit is never spent by
 * lookups, so the organisation keeps room for other uses of its key.
 */
import { limitsFromAccount } from '../../lib/api/account-limits';
import type { AccountInfo } from '../../lib/api/types';
import type { LedgerState, Store } from './store/types';
import type { Upstream } from './upstream';

/** The ledger is read from /account again after this long, so other spenders of the key show. */
export const LEDGER_REFRESH_MS = 5 * 60 * 1000;

export class TeamLedger {
  private refreshing: Promise<LedgerState> | null = null;
  lastAccount: AccountInfo | null = null;

  constructor(
    private readonly store: Store,
    private readonly upstream: Upstream,
    private readonly reservePercent: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** The units automatic buying may reach: the limit minus the reserve (null: no ceiling). */
  allowed(ledger: LedgerState | null): number | null {
    if (!ledger || ledger.limit === null) return null;
    return ledger.limit * (1 - this.reservePercent / 100);
  }

  /** Reads /account and replaces the ledger's usage with the server's count (reservations stay). */
  refresh(): Promise<LedgerState> {
    this.refreshing ??= (async () => {
      try {
        const account = await this.upstream.account();
        this.lastAccount = account;
        const limits = limitsFromAccount(account);
        await this.store.setLedgerFromAccount({
          usage: limits.used ?? 0,
          limit: limits.unlimited ? null : limits.limit,
          organizationId: account.organizationId,
          at: this.now(),
        });
        return (await this.store.getLedger())!;
      } finally {
        this.refreshing = null;
      }
    })();
    return this.refreshing;
  }

  async current(): Promise<LedgerState> {
    const ledger = await this.store.getLedger();
    if (ledger && this.now() - ledger.refreshedAt < LEDGER_REFRESH_MS) return ledger;
    return this.refresh();
  }

  /** true: `units` are reserved and must be settled. */
  async reserve(units: number): Promise<boolean> {
    if (units === 0) return true;
    const ledger = await this.current();
    return this.store.reserve(units, this.allowed(ledger));
  }

  settle(reserved: number, spent: number): Promise<void> {
    return this.store.settle(reserved, spent);
  }
}
