import { describe, expect, it } from 'vitest';
import { QUOTA_TEXT, quotaView } from '@/lib/ui/shared/quota-view';
import { quota } from '../samples';

const NOW = Date.UTC(2025, 0, 15, 12, 0, 0);

describe('quotaView', () => {
  it('shows used of limit, the reserve position and when it was refreshed', () => {
    const v = quotaView(quota(), NOW);
    expect(v.usage).toBe('120 of 1,000 used');
    expect(v.usedPercent).toBe(12);
    expect(v.reserveAt).toBe(90);
    expect(v.reserveText).toContain('last 100 requests');
    expect(v.refreshed).toBe('Updated 2 minutes ago (2025-01-15 11:58:00 UTC)');
  });

  it('explains each state in terms of automatic lookups', () => {
    for (const state of ['ok', 'low', 'reserve-reached', 'exhausted', 'unknown'] as const) {
      const v = quotaView(quota({ state }), NOW);
      expect(v.label).toBe(QUOTA_TEXT[state].label);
      expect(v.meaning).toMatch(/automatic|lookups/i);
    }
    expect(new Set(Object.values(QUOTA_TEXT).map((t) => t.meaning)).size).toBe(5);
  });

  it('never shows NaN or an invalid date when the numbers are missing', () => {
    const v = quotaView(quota({ state: 'unknown', used: null, limit: null, reserve: null, refreshedAt: null }), NOW);
    expect(v.usage).toBe('Usage unknown');
    expect(v.usedPercent).toBeNull();
    expect(v.reserveAt).toBeNull();
    expect(v.refreshed).toBe('Never updated');
    const text = JSON.stringify(v);
    expect(text).not.toMatch(/NaN|Invalid Date|undefined/);
    expect(quotaView(quota({ unlimited: true, limit: null }), NOW).usage).toBe('120 used (no limit)');
    expect(quotaView(quota({ used: 1500 }), NOW).usedPercent).toBe(100);
  });

  it('says which limit applies: the key\'s own or the organisation\'s pool', () => {
    expect(quotaView(quota({ scope: 'key' }), NOW).scopeText).toBe("Limit: this key's own.");
    expect(quotaView(quota({ scope: 'organization' }), NOW).scopeText).toMatch(/organisation's pool, shared with its other keys/);
    expect(quotaView(quota({ scope: 'organization', unlimited: true, limit: null }), NOW).scopeText).toMatch(/unlimited/);
    expect(quotaView(quota({ scope: null }), NOW).scopeText).toBeNull();
  });
});

describe('quota view while lookups fail', () => {
  const OK = quota({ used: 10, refreshedAt: null });
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
