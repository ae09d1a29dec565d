// @vitest-environment happy-dom
/**
 * The popup's quota meter through a team gateway: the analyst's budget and the team's pool each
 * on its own line, and the team reserve named as what stops automatic lookups.
 */
import { render } from 'preact';
import { describe, expect, it } from 'vitest';
import { QuotaMeter } from '@/components/quota-meter';
import type { TeamQuota } from '@/lib/api/types';
import { TEAM_RESERVE_TEXT } from '@/lib/ui/shared/quota-view';
import { quota } from '../ui/samples';

const NOW = Date.UTC(2025, 0, 15, 12, 0, 0);

function team(overrides: { analyst?: Partial<TeamQuota['analyst']>; team?: Partial<TeamQuota['team']> } = {}): TeamQuota {
  return {
    analyst: { usedToday: 12, dailyBudget: 50, day: '2025-01-15', ...overrides.analyst },
    team: { used: 4200, limit: 10000, reservePercent: 10, allowed: 9000, reserveReached: false, ...overrides.team },
  };
}

function meter(snapshot: ReturnType<typeof quota>): HTMLElement {
  const host = document.createElement('div');
  render(<QuotaMeter quota={snapshot} now={NOW} refreshing={false} onRefresh={() => {}} />, host);
  return host;
}

describe('QuotaMeter on a team', () => {
  it("shows the analyst's budget and the team's pool, each on its own line", () => {
    const host = meter(quota({ team: team() }));
    const lines = [...host.querySelectorAll('.quota-team li')].map((li) => li.textContent);
    expect(lines).toEqual(['Your budget: 12 of 50 units today', 'Team pool: 4,200 of 10,000 used, reserve 10% (automatic lookups stop at 9,000)']);
    expect(host.querySelector('.quota-state')!.textContent).toBe('OK');
  });

  it('says when the team reserve stops automatic lookups, outside the disclosure', () => {
    const host = meter(quota({ team: team({ team: { used: 9000, reserveReached: true } }) }));
    expect(host.querySelector('.quota-state')!.textContent).toBe(TEAM_RESERVE_TEXT.label);
    const meaning = host.querySelector(':scope section > .quota-meaning');
    expect(meaning?.textContent).toBe(TEAM_RESERVE_TEXT.meaning);
    expect(meaning?.textContent).toMatch(/stops automatic lookups/);
  });

  it('says an analyst without a budget has none, a spent budget, and an unlimited pool', () => {
    const none = meter(quota({ team: team({ analyst: { dailyBudget: null }, team: { limit: null, allowed: null } }) }));
    expect([...none.querySelectorAll('.quota-team li')].map((li) => li.textContent)).toEqual(['Your budget: none of your own (12 units today)', 'Team pool: 4,200 used (no limit)']);
    const spent = meter(quota({ team: team({ analyst: { usedToday: 50 } }) }));
    expect(spent.querySelector('.quota-team li')!.textContent).toMatch(/50 of 50 units today \(spent/);
  });

  it('shows no team lines without a gateway', () => {
    expect(meter(quota()).querySelector('.quota-team')).toBeNull();
  });
});
