import { describe, expect, it } from 'vitest';
import type { AccountInfo } from '../../../lib/api/types';
import { QuotaGuard } from '../../../lib/lookup/quota-guard';
import { createMemoryLedgerStore, limitsFromAccount } from '../../../lib/lookup/quota-ledger';
import { createManualClock } from './helpers/manual-clock';

function account(used: number, limit: number | null, org: Partial<NonNullable<AccountInfo['organization']>> | null = null): AccountInfo {
  return {
    organizationId: 'org',
    key: { uid: 'k', name: 'k', currentUsage: used, maxApiRequests: limit, createdAt: null },
    organization: org && {
      totalUsage: null,
      totalQuota: null,
      currentUsage: null,
      maxApiRequests: null,
      allocatedApiKeyQuota: null,
      availableApiKeyQuota: null,
      source: null,
      unlimited: false,
      ...org,
    },
  };
}

async function guardWith(used: number, limit: number, reservePercent = 10) {
  const store = createMemoryLedgerStore();
  const guard = new QuotaGuard({ clock: createManualClock(), store, reservePercent });
  await guard.use('key-a');
  guard.applyAccount(account(used, limit));
  return { guard, store };
}

describe('limitsFromAccount', () => {
  it("uses the key's own limit, else the organisation's available quota, else unlimited", () => {
    expect(limitsFromAccount(account(5, 100))).toEqual({ used: 5, limit: 100, unlimited: false, scope: 'key' });
    // No own limit: the organisation's pool, its usage (all keys) against its quota. The
    // documented example: 5,000,000 quota, nothing allocated, 5,000,000 "available", 1 used.
    expect(
      limitsFromAccount(account(1, null, { totalUsage: 1, totalQuota: 5_000_000, allocatedApiKeyQuota: 0, availableApiKeyQuota: 5_000_000 })),
    ).toEqual({ used: 1, limit: 5_000_000, unlimited: false, scope: 'organization' });
    // "available" is what is not allocated to keys with their own limit, not what remains.
    expect(
      limitsFromAccount(account(850, null, { totalUsage: 950, totalQuota: 1000, allocatedApiKeyQuota: 300, availableApiKeyQuota: 700 })),
    ).toEqual({ used: 950, limit: 1000, unlimited: false, scope: 'organization' });
    expect(limitsFromAccount(account(5, null, { unlimited: true }))).toMatchObject({ unlimited: true, scope: 'organization' });
  });
});

describe('QuotaGuard', () => {
  it('moves through ok, low, reserve-reached and exhausted as units are spent', async () => {
    const { guard } = await guardWith(700, 1000);
    expect(guard.state()).toBe('ok');
    guard.charge(150); // 150 left
    expect(guard.state()).toBe('low');
    guard.charge(60); // 90 left, reserve is 100
    expect(guard.state()).toBe('reserve-reached');
    guard.charge(90);
    expect(guard.state()).toBe('exhausted');
    expect(guard.snapshot()).toMatchObject({ used: 1000, limit: 1000, reserve: 100, pendingLocalCost: 300 });
  });

  it('keeps the reserve for manual lookups, counting calls in flight at their worst case', async () => {
    const { guard } = await guardWith(850, 1000);
    expect(guard.budget('visible')).toBe(50);
    expect(guard.budget('manual')).toBe(150);
    const release = guard.commit(40);
    expect(guard.budget('background')).toBe(10);
    guard.charge(12); // the call found 12 IPs
    release();
    release(); // twice is harmless
    expect(guard.budget('background')).toBe(38);
  });

  it('a 403 usage-limit blocks everything until /account shows room', async () => {
    const { guard } = await guardWith(10, 1000);
    guard.markExhausted('API usage limit exceeded');
    expect(guard.state()).toBe('exhausted');
    expect(guard.budget('manual')).toBe(0);
    guard.applyAccount(account(1000, 1000)); // still none left
    expect(guard.blocked).toBe(true);
    expect(guard.snapshot().detail).toBe('API usage limit exceeded');
    guard.applyAccount(account(0, 1000)); // a new billing period
    expect(guard.blocked).toBe(false);
    expect(guard.state()).toBe('ok');
  });

  it('persists the ledger per key, and starts a new one for another key', async () => {
    const { guard, store } = await guardWith(100, 1000);
    guard.charge(7);
    await guard.flush();
    const restarted = new QuotaGuard({ clock: createManualClock(), store, reservePercent: 10 });
    await restarted.use('key-a');
    expect(restarted.snapshot()).toMatchObject({ used: 107, limit: 1000, pendingLocalCost: 7 });
    const other = new QuotaGuard({ clock: createManualClock(), store, reservePercent: 10 });
    await other.use('key-b');
    expect(other.snapshot()).toMatchObject({ state: 'unknown', used: null, limit: null });
    expect(other.budget('background')).toBe(Infinity);
  });

  it('a key switch still reading the store does not override the switch made after it', async () => {
    const store = createMemoryLedgerStore();
    const loads: (() => void)[] = [];
    const slowStore = { ...store, load: () => new Promise<unknown>((resolve) => loads.push(() => resolve(undefined))) };
    const guard = new QuotaGuard({ clock: createManualClock(), store: slowStore, reservePercent: 10 });
    const first = guard.use('key-old');
    const second = guard.use('key-new');
    loads[1]!();
    await second;
    loads[0]!();
    await first;
    expect(guard.identity).toBe('key-new');
  });

  it('ignores a corrupted stored ledger', async () => {
    const store = createMemoryLedgerStore();
    store.value = { v: 1, identity: 'key-a', serverUsed: 'lots' };
    const guard = new QuotaGuard({ clock: createManualClock(), store, reservePercent: 10 });
    await guard.use('key-a');
    expect(guard.state()).toBe('unknown');
  });

  it('unlimited keys have no budget limit', async () => {
    const guard = new QuotaGuard({ clock: createManualClock(), store: createMemoryLedgerStore(), reservePercent: 10 });
    await guard.use('k');
    guard.applyAccount(account(5, null, { unlimited: true }));
    expect(guard.state()).toBe('ok');
    expect(guard.budget('background')).toBe(Infinity);
  });
});
