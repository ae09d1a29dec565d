import { describe, expect, it } from 'vitest';
import type { QuotaSnapshot } from '@/lib/lookup/types';
import { quotaView } from '@/lib/ui/quota-view';

const OK: QuotaSnapshot = { state: 'ok', used: 10, limit: 1000, unlimited: false, reserve: 100, pendingLocalCost: 0, refreshedAt: null, detail: null };

describe('quota view while lookups fail', () => {
  it('never says "OK" when lookups are failing, and names why', () => {
    expect(quotaView(OK, 0).label).toBe('OK');
    const view = quotaView(OK, 0, { kind: 'network', message: 'Could not reach the API.' });
    expect(view.state).toBe('failing');
    expect(view.label).toBe('Lookups failing');
    expect(view.meaning).toMatch(/network error/);
  });

  it('keeps the quota states that already say lookups are stopped', () => {
    expect(quotaView({ ...OK, state: 'exhausted' }, 0, { kind: 'server', message: 'x' }).label).toBe('Exhausted');
    expect(quotaView(OK, 0, { kind: 'quota-exhausted', message: 'Usage limit exceeded' }).label).toBe('OK');
  });
});
