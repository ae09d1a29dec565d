/**
 * A team gateway's additive /account field: read into AccountInfo.team when well formed, dropped
 * (the account still read) when not, absent from the public API's answers; kept by the quota
 * guard and its persisted ledger so the popup's meter can show it.
 */
import { describe, expect, it } from 'vitest';
import { normalizeAccount } from '../../../lib/api/normalize';
import { accountSchema } from '../../../lib/api/schemas';
import { QuotaGuard } from '../../../lib/lookup/quota-guard';
import { createMemoryLedgerStore, parseLedger } from '../../../lib/lookup/quota-ledger';
import { createManualClock } from '../lookup/helpers/manual-clock';

const WIRE = {
  organization_id: 'org-1',
  api_key: { uid: 'u', name: 'alice', current_usage: 3, max_api_requests: 50, created_at: null },
  organization_quota: { total_usage: 900, total_quota: 1000, current_usage: 900, max_api_requests: 1000, unlimited: false },
};
const GATEWAY = {
  analyst: { name: 'alice', used_today: 3, daily_budget: 50, day: '2026-03-10' },
  team: { used: 900, limit: 1000, reserve_percent: 10, allowed: 900, reserve_reached: true },
};
const TEAM = {
  analyst: { usedToday: 3, dailyBudget: 50, day: '2026-03-10' },
  team: { used: 900, limit: 1000, reservePercent: 10, allowed: 900, reserveReached: true },
};

describe("the gateway's team fields on /account", () => {
  it('are read when well formed, and absent for the public API', () => {
    expect(normalizeAccount(accountSchema.parse({ ...WIRE, gateway: GATEWAY })).team).toEqual(TEAM);
    const plain = normalizeAccount(accountSchema.parse(WIRE));
    expect('team' in plain).toBe(false);
  });

  it('are dropped when malformed, and the rest of the account is still read', () => {
    for (const bad of [null, 'yes', { analyst: {} }, { ...GATEWAY, team: { ...GATEWAY.team, used: -1 } }]) {
      const account = normalizeAccount(accountSchema.parse({ ...WIRE, gateway: bad }));
      expect(account.team).toBeUndefined();
      expect(account.key).toMatchObject({ currentUsage: 3, maxApiRequests: 50 });
    }
  });

  it('reach the quota snapshot and survive a saved ledger; an older ledger without them still loads', async () => {
    const store = createMemoryLedgerStore();
    const guard = new QuotaGuard({ clock: createManualClock(), store, reservePercent: 10 });
    await guard.use('key-a');
    guard.applyAccount({ ...normalizeAccount(accountSchema.parse({ ...WIRE, gateway: GATEWAY })) });
    expect(guard.snapshot().team).toEqual(TEAM);
    await guard.flush();
    const saved = (await store.load()) as Record<string, unknown>;
    expect(parseLedger(saved)?.team).toEqual(TEAM);
    const { team: _team, ...older } = saved;
    expect(parseLedger(older)?.team).toBeNull();
    expect(parseLedger({ ...saved, team: { nonsense: true } })?.team).toBeNull();
  });
});
