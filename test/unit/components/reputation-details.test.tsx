// @vitest-environment happy-dom
import { render } from 'preact';
import { afterEach, describe, expect, it } from 'vitest';
import { ReputationDetails } from '@/components/reputation-details';
import type { LookupResult } from '@/lib/lookup/types';
import { DEFAULT_THRESHOLDS } from '@/lib/severity';

const NOW = Date.parse('2026-11-22T12:00:00Z');
let host: HTMLElement;

function show(result: LookupResult) {
  host = document.createElement('div');
  document.body.append(host);
  render(<ReputationDetails result={result} thresholds={DEFAULT_THRESHOLDS} now={NOW} />, host);
  return host;
}

afterEach(() => {
  render(null, host);
  host.remove();
});

describe('ReputationDetails', () => {
  it('shows every field of a found IP with its network details', () => {
    const el = show({
      ip: '185.220.101.1',
      status: 'found',
      fetchedAt: NOW,
      data: {
        ip: '185.220.101.1',
        score: 95,
        threatLevel: 'CRITICAL',
        reputation: 'known attacker',
        totalHits: 1234,
        lastAttack: '2026-11-19T12:00:00.000Z',
        whitelisted: false,
        whitelist: null,
        description: 'Tor exit node',
        ipInfo: { asn: 'AS60729', as_name: 'Stiftung Erneuerbare Freiheit', country: 'Germany', country_code: 'DE' },
      },
    });
    const text = el.textContent!;
    expect(text).toContain('Critical');
    expect(text).toContain('95 / 100');
    expect(text).toContain('known attacker');
    expect(text).toContain('1,234');
    expect(text).toContain('3 days ago');
    expect(text).toContain('2026-11-19 12:00:00 UTC');
    expect(text).toContain('AS60729');
    expect(text).toContain('Germany');
    expect(text).not.toMatch(/undefined|Invalid Date|NaN/);
  });

  it('shows one level, the badge\'s: a score of 55 is High even when the bulk answer said MEDIUM', () => {
    const el = show({
      ip: '45.155.205.233',
      status: 'found',
      fetchedAt: NOW,
      data: {
        ip: '45.155.205.233', score: 55, threatLevel: 'MEDIUM', reputation: 'suspicious', totalHits: 12, lastAttack: null,
        whitelisted: false, whitelist: null, description: null,
      },
    });
    expect(el.querySelector('.sev-badge')!.textContent).toBe('High');
    expect(el.textContent).not.toMatch(/medium|threat level/i);
  });

  it('renders API text as text, never as HTML', () => {
    const el = show({
      ip: '93.184.216.66',
      status: 'found',
      fetchedAt: NOW,
      data: {
        ip: '93.184.216.66', score: 40, threatLevel: null, reputation: '<img src=x onerror=alert(1)>',
        totalHits: 2, lastAttack: null, whitelisted: false, whitelist: null, description: '<script>alert(1)</script>',
      },
    });
    expect(el.querySelector('img, script')).toBeNull();
    expect(el.textContent).toContain('<img src=x onerror=alert(1)>');
    expect(el.textContent).toContain('unknown');
  });

  it('shows whitelist information and "never" for a whitelisted IP', () => {
    const el = show({
      ip: '1.1.1.1', status: 'found', fetchedAt: NOW,
      data: {
        ip: '1.1.1.1', score: 0, threatLevel: null, reputation: null, totalHits: 0, lastAttack: null,
        whitelisted: true, whitelist: { entry: {}, description: 'Cloudflare DNS', note: null, value: null }, description: 'Cloudflare DNS',
      },
    });
    expect(el.textContent).toContain('Whitelisted');
    expect(el.textContent).toContain('Cloudflare DNS');
    expect(el.textContent).toContain('never');
  });

  it('explains not-found, skipped and error results', () => {
    expect(show({ ip: '9.9.9.9', status: 'not-found', fetchedAt: NOW }).textContent).toContain('Not in the threat database');
    render(null, host); host.remove();
    expect(show({ ip: '10.0.0.1', status: 'skipped', reason: 'private' }).textContent).toContain('Private address');
    render(null, host); host.remove();
    const el = show({ ip: '9.9.9.8', status: 'error', error: { kind: 'server', message: 'Internal server error', status: 500 } });
    expect(el.querySelector('[role=alert]')?.textContent).toContain('Internal server error');
  });
  it('says an IP past the cap was not looked up, which cap stopped it, and where to look it up', () => {
    const text = show({ ip: '9.9.9.9', status: 'skipped', reason: 'page-cap', limit: 40 }).textContent ?? '';
    expect(text).toContain('Past the cap');
    expect(text).toContain('Not looked up: this page reached its cap of 40 automatic lookups this hour. Look up the rest from the toolbar popup.');
    expect(text).not.toContain('Not looked up (');
  });
});
