// @vitest-environment happy-dom
/**
 * A team gateway's answer as the analyst reads it: the card's (ReputationDetails') two lines,
 * the popup's Team column and its sort, and the export's team fields. Nothing of it for the
 * public API's answers.
 */
import { render } from 'preact';
import { afterEach, describe, expect, it } from 'vitest';
import { IpList } from '@/components/ip-list';
import { ReputationDetails } from '@/components/reputation-details';
import type { GatewayProvenance } from '@/lib/api/types';
import type { LookupResult } from '@/lib/lookup/types';
import { DEFAULT_THRESHOLDS } from '@/lib/severity';
import { provenanceText, sightingsText } from '@/lib/team-text';
import { createDetailsStore } from '@/lib/ui/popup/details-store';
import { rowsToCsv, rowsToJson } from '@/lib/ui/shared/export-rows';
import { sortRows } from '@/lib/ui/shared/ip-rows';
import { button, click, mount } from '../ui/dom';
import { createFakeServices } from '../ui/fake-services';
import { found } from '../ui/samples';

const NOW = Date.parse('2026-11-29T12:00:00Z');
const MIN = 60_000;
const HOUR = 60 * MIN;

function gateway(overrides: Partial<GatewayProvenance> = {}, sightings: Partial<NonNullable<GatewayProvenance['sightings']>> = {}): GatewayProvenance {
  return {
    cache: 'hit',
    ageMs: 3 * HOUR,
    sightings: {
      count: 4,
      firstSeen: new Date(NOW - 2 * 24 * HOUR).toISOString(),
      lastSeen: new Date(NOW - 10 * MIN).toISOString(),
      newToTeam: false,
      byYou: false,
      names: null,
      ...sightings,
    },
    ...overrides,
  };
}

function withGateway(result: LookupResult, from: GatewayProvenance): LookupResult {
  return result.status === 'found' || result.status === 'not-found' ? { ...result, fetchedAt: NOW, gateway: from } : result;
}

describe('team text', () => {
  it('says where the answer came from, its age growing with the time since', () => {
    expect(provenanceText(gateway(), NOW, NOW)).toBe("From your team's cache, 3 h old");
    expect(provenanceText(gateway(), NOW - HOUR, NOW)).toBe("From your team's cache, 4 h old");
    expect(provenanceText(gateway({ cache: 'miss', ageMs: 0 }), NOW, NOW + 5_000)).toBe('Looked up now');
    expect(provenanceText(gateway({ cache: 'coalesced', ageMs: 0 }), NOW - 2 * HOUR, NOW)).toBe('Looked up 2 h ago');
  });

  it('says who on the team looked before, or that it is new', () => {
    expect(sightingsText(gateway().sightings!, NOW)).toBe('Seen by 4 analysts on your team · first 2 days ago · last 10 min ago');
    expect(sightingsText(gateway({}, { newToTeam: true, count: 0, firstSeen: null, lastSeen: null }).sightings!, NOW)).toBe('New to your team');
    const one = gateway({}, { count: 1, firstSeen: new Date(NOW - 5 * MIN).toISOString(), lastSeen: new Date(NOW - 5 * MIN).toISOString(), byYou: true, names: ['alice'] });
    expect(sightingsText(one.sightings!, NOW)).toBe('Seen by 1 analyst on your team (you included): alice · last 5 min ago');
  });
});

describe('the card (ReputationDetails)', () => {
  let host: HTMLElement;
  afterEach(() => {
    render(null, host);
    host.remove();
  });
  const show = (result: LookupResult) => {
    host = document.createElement('div');
    document.body.append(host);
    render(<ReputationDetails result={result} thresholds={DEFAULT_THRESHOLDS} now={NOW} />, host);
    return host;
  };

  it('shows the provenance and the sightings of a team answer, names as text', () => {
    const el = show(withGateway(found('45.1.1.1'), gateway({}, { names: ['<b>eve</b>'] })));
    expect(el.querySelector('.rep-provenance')?.textContent).toBe("From your team's cache, 3 h old");
    expect(el.querySelector('.rep-sightings')?.textContent).toBe('Seen by 4 analysts on your team: <b>eve</b> · first 2 days ago · last 10 min ago');
    expect(el.querySelector('.rep-sightings b')).toBeNull();
  });

  it('marks an IP new to the team, on not-found answers too', () => {
    const el = show({ ip: '45.1.1.2', status: 'not-found', fetchedAt: NOW, gateway: gateway({ cache: 'miss', ageMs: 0 }, { newToTeam: true, count: 0, firstSeen: null, lastSeen: null }) });
    expect(el.querySelector('.rep-provenance')?.textContent).toBe('Looked up now');
    expect(el.querySelector('.rep-new')?.textContent).toBe('New to your team');
  });

  it('shows nothing of it for the public API', () => {
    expect(show(found('45.1.1.3')).querySelector('.rep-team')).toBeNull();
  });
});

describe('the popup list and its exports', () => {
  const rows = [
    { ip: '45.0.0.1', count: 1, result: withGateway(found('45.0.0.1', { score: 90 }), gateway({}, { count: 1 })) },
    { ip: '45.0.0.2', count: 1, result: withGateway(found('45.0.0.2', { score: 10 }), gateway({}, { count: 5 })) },
    { ip: '45.0.0.3', count: 1, result: withGateway(found('45.0.0.3', { score: 50 }), gateway({ cache: 'miss', ageMs: 0 }, { count: 0, newToTeam: true, firstSeen: null, lastSeen: null })) },
  ];

  it('shows a Team column that sorts by analysts, most first', async () => {
    const s = createFakeServices();
    const root = await mount(<IpList rows={rows} thresholds={DEFAULT_THRESHOLDS} details={createDetailsStore(s)} caption="IPs" source="x" fileLabel="x" now={NOW} />, s);
    const teamCells = () => [...root.querySelectorAll('tbody td.col-team')].map((td) => td.textContent);
    expect(teamCells()).toEqual(['1 analyst', 'New', '5 analysts']);
    expect(root.querySelector('tbody td.col-team')?.getAttribute('title')).toContain('Seen by 1 analyst on your team');
    await click(button(root, 'Team'));
    expect(teamCells()).toEqual(['5 analysts', '1 analyst', 'New']);
    expect(sortRows(rows, { column: 'team', direction: 'asc' }, DEFAULT_THRESHOLDS).map((r) => r.ip)).toEqual(['45.0.0.3', '45.0.0.1', '45.0.0.2']);
  });

  it('has no Team column, and the same export, for the public API', async () => {
    const s = createFakeServices();
    const plain = rows.map(({ ip, count }) => ({ ip, count, result: found(ip) }));
    const root = await mount(<IpList rows={plain} thresholds={DEFAULT_THRESHOLDS} details={createDetailsStore(s)} caption="IPs" source="x" fileLabel="x" now={NOW} />, s);
    expect(root.querySelector('.col-team')).toBeNull();
    expect(rowsToCsv(plain, DEFAULT_THRESHOLDS).split('\r\n')[0]).not.toContain('team');
  });

  it('exports where each answer came from and the team sightings (CSV and JSON)', () => {
    const csv = rowsToCsv(rows, DEFAULT_THRESHOLDS).split('\r\n');
    expect(csv[0]).toContain('gateway_cache,answered_upstream_at,team_analysts,new_to_team,team_first_seen,team_last_seen,team_analyst_names');
    const json = JSON.parse(rowsToJson(rows, DEFAULT_THRESHOLDS, { source: 'x', exportedAt: NOW })) as { items: Record<string, unknown>[] };
    expect(json.items[0]).toMatchObject({
      gateway_cache: 'hit',
      answered_upstream_at: new Date(NOW - 3 * HOUR).toISOString(),
      team_analysts: 1,
      new_to_team: false,
      team_last_seen: new Date(NOW - 10 * MIN).toISOString(),
      team_analyst_names: null,
    });
    expect(json.items[2]).toMatchObject({ gateway_cache: 'miss', team_analysts: 0, new_to_team: true });
  });
});
