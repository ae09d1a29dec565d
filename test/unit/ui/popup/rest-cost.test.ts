import { describe, expect, it } from 'vitest';
import type { QuotaSnapshot } from '@/lib/lookup/types';
import { restCostText } from '@/lib/ui/popup/rest-cost';

const quota = (over: Partial<QuotaSnapshot>): QuotaSnapshot => ({
  state: 'ok',
  used: 100,
  limit: 1_000,
  unlimited: false,
  scope: 'key',
  reserve: 100,
  pendingLocalCost: 0,
  refreshedAt: 1,
  detail: null,
  ...over,
});

describe('the cost of "Look up the rest"', () => {
  it('states the units and the quota left with its reserve', () => {
    expect(restCostText(40, quota({}))).toBe('Up to 40 API units (cached answers are free). Quota left: 900, 100 of it kept in reserve.');
    expect(restCostText(1, quota({ reserve: 0 }))).toBe('Up to 1 API unit (cached answers are free). Quota left: 900.');
  });

  it('says when the reserve stops it, and never shows undefined for an unknown quota', () => {
    expect(restCostText(2_000, quota({ used: 850 }))).toBe(
      'Up to 2,000 API units (cached answers are free). Quota left: 150, 100 of it kept in reserve. Only 50 fit before the reserve; the rest stay past the cap.',
    );
    expect(restCostText(3, undefined)).toBe('Up to 3 API units (cached answers are free). Quota left: unknown (refresh the meter above).');
    expect(restCostText(3, quota({ unlimited: true, limit: null }))).toBe('Up to 3 API units (cached answers are free). No usage limit.');
  });
});
