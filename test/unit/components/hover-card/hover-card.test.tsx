// @vitest-environment happy-dom
import { render } from 'preact';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { canAskDetails } from '@/components/hover-card/card-actions';
import { HoverCard } from '@/components/hover-card/hover-card';
import type { CardEntry } from '@/lib/page/card/card-store';
import type { PivotChoice } from '@/lib/pivots';
import type { LookupResult } from '@/lib/lookup/types';
import { DEFAULT_THRESHOLDS } from '@/lib/severity';

const xss: LookupResult = {
  ip: '93.184.216.66',
  status: 'found',
  fetchedAt: 1,
  data: {
    ip: '93.184.216.66',
    score: 67,
    threatLevel: 'HIGH',
    reputation: '<img src=x onerror=alert(1)>',
    totalHits: 66,
    lastAttack: '2025-08-08T08:08:08.000Z',
    whitelisted: false,
    whitelist: null,
    description: '<script>alert(1)</script>',
  },
};

function show(entries: CardEntry[], title?: string, pivots: PivotChoice[] = []) {
  const root = document.createElement('div');
  document.body.append(root);
  const calls = { details: vi.fn(), copy: vi.fn(), copyDefanged: vi.fn(), pivot: vi.fn(), close: vi.fn(), checkBlock: vi.fn(), more: vi.fn() };
  render(
    <HoverCard
      entries={entries}
      {...(title ? { title } : {})}
      thresholds={DEFAULT_THRESHOLDS}
      pivots={pivots}
      pivotError={null}
      onDetails={calls.details}
      onCopy={calls.copy}
      onCopyDefanged={calls.copyDefanged}
      onPivot={calls.pivot}
      onCheckBlock={calls.checkBlock}
      onClose={calls.close}
      onMore={calls.more}
    />,
    root,
  );
  return { root, calls };
}

const entry = (ip: string, result?: LookupResult, extra: Partial<CardEntry> = {}): CardEntry => ({
  ip,
  result,
  details: { state: 'idle' },
  copied: false,
  block: null,
  blockError: null,
  copiedDefanged: false,
  copiedStix: false,
  stixError: null,
  more: false,
  ...extra,
});

describe('HoverCard', () => {
  afterEach(() => {
    document.body.replaceChildren();
  });

  it('shows the reputation as text, never as markup, in a named dialog', () => {
    const { root } = show([entry(xss.ip, xss, { more: true })]);
    const dialog = root.querySelector('[role="dialog"]')!;
    expect(dialog.getAttribute('aria-label')).toBe('IP reputation: 93.184.216.66, High');
    expect(dialog.getAttribute('aria-modal')).toBe('false');
    expect(root.textContent).toContain('<img src=x onerror=alert(1)>');
    expect(root.textContent).toContain('<script>alert(1)</script>');
    expect(root.textContent).toContain('66');
    expect(root.querySelector('img, script')).toBeNull();
  });

  it('offers Details with its cost, Copy and Close, and reports clicks', () => {
    const { root, calls } = show([entry(xss.ip, xss)]);
    const buttons = [...root.querySelectorAll('button')];
    const details = buttons.find((b) => b.textContent === 'Details')!;
    expect(document.getElementById(details.getAttribute('aria-describedby')!)?.textContent).toBe('Network details cost 1 API request');
    details.click();
    buttons.find((b) => b.textContent === 'Copy IP')!.click();
    const close = buttons.find((b) => b.querySelector('.sr-only')?.textContent === 'Close (Escape)')!;
    expect(close.querySelector('[aria-hidden="true"]')?.textContent).toBe('×');
    close.click();
    expect(calls.details).toHaveBeenCalledWith('93.184.216.66');
    expect(calls.copy).toHaveBeenCalledWith('93.184.216.66');
    expect(calls.close).toHaveBeenCalled();
  });

  it('shows pending, loading, errors and the copy confirmation', () => {
    const { root } = show([
      entry('8.8.8.8', undefined, { details: { state: 'loading' }, copied: true }),
      entry('1.2.3.4', { ip: '1.2.3.4', status: 'not-found', fetchedAt: 1 }, { details: { state: 'error', message: 'Quota exhausted: no more requests' } }),
    ], 'IP addresses in the selection');
    expect(root.textContent).toContain('IP addresses in the selection');
    expect(root.textContent).toContain('Looking up this address');
    expect(root.textContent).toContain('Loading details…');
    expect(root.textContent).toContain('Copied');
    expect(root.querySelector('[role="alert"]')?.textContent).toBe('Quota exhausted: no more requests');
    expect(root.querySelector('button.details[disabled]')).not.toBeNull();
  });

  it('says when a selection holds no IP', () => {
    const { root } = show([], 'IP addresses in the selection');
    expect(root.textContent).toContain('No IP address in the selected text.');
  });
});

describe('canAskDetails', () => {
  it('asks only when it can add something and the address may be sent', () => {
    expect(canAskDetails(undefined)).toBe(true);
    expect(canAskDetails(xss)).toBe(true);
    expect(canAskDetails({ ...xss, data: { ...xss.data, ipInfo: { asn: 'AS1' } } })).toBe(false);
    expect(canAskDetails({ ip: '10.0.0.1', status: 'skipped', reason: 'private' })).toBe(false);
    expect(canAskDetails({ ip: '8.8.8.8', status: 'skipped', reason: 'quota-reserve' })).toBe(true);
  });
});

describe('HoverCard: open in and copy defanged', () => {
  afterEach(() => {
    document.body.replaceChildren();
  });

  it('offers each service as a button, the first with its key, and both copies', () => {
    const { root, calls } = show([entry('2001:db8::1')], undefined, [
      { id: 'shodan', name: 'Shodan' },
      { id: 'custom-7', name: '<b>SOAR</b>' },
    ]);
    const group = root.querySelector('[role="group"]')!;
    expect(group.getAttribute('aria-label')).toBe('Open 2001:db8::1 in');
    const buttons = [...group.querySelectorAll('button')];
    expect(buttons.map((b) => b.textContent)).toEqual(['Shodan (key O)', '<b>SOAR</b>']);
    expect(group.querySelector('b')).toBeNull();
    buttons[1]!.click();
    expect(calls.pivot).toHaveBeenCalledWith('2001:db8::1', 'custom-7');
    (root.querySelector('button.copy-defanged') as HTMLButtonElement).click();
    expect(calls.copyDefanged).toHaveBeenCalledWith('2001:db8::1');
  });

  it('shows no "Open in" without services', () => {
    const { root } = show([entry('8.8.8.8')]);
    expect(root.querySelector('.pivots')).toBeNull();
    expect(root.textContent).toContain('Copy defanged');
  });
});

describe('HoverCard first view', () => {
  afterEach(() => {
    document.body.replaceChildren();
  });

  const whitelisted: LookupResult = {
    ip: '1.1.1.1',
    status: 'found',
    fetchedAt: 1,
    data: {
      ip: '1.1.1.1',
      score: 0,
      threatLevel: 'LOW',
      reputation: 'clean',
      totalHits: 0,
      lastAttack: null,
      whitelisted: true,
      whitelist: { description: 'Anycast resolver, never block', note: null, value: '1.1.1.1' },
      description: 'Cloudflare',
      ipInfo: { asn: 'AS13335', as_name: 'Cloudflare', as_domain: null, isp: null, country: 'Australia', country_code: 'AU', continent: null, continent_code: null },
    },
  } as unknown as LookupResult;

  it('shows severity, score, reputation, hits, last attack and the actions; the rest behind More', () => {
    const { root, calls } = show([entry(whitelisted.ip, whitelisted)]);
    const text = root.textContent ?? '';
    for (const shown of ['Whitelisted', 'Score', 'Reputation', 'Total hits', 'Last attack', 'Copy IP']) expect(text).toContain(shown);
    for (const hidden of ['Anycast resolver', 'AS13335', 'Threat level', 'Cloudflare']) expect(text).not.toContain(hidden);
    const more = [...root.querySelectorAll('button')].find((b) => b.textContent === 'More')!;
    expect(more.getAttribute('aria-expanded')).toBe('false');
    expect(root.querySelector(`#${more.getAttribute('aria-controls')}`)?.hasAttribute('hidden')).toBe(true);
    more.click();
    expect(calls.more).toHaveBeenCalledWith('1.1.1.1');
  });

  it('shows the rest once More is open, and says so to assistive technology', () => {
    const { root } = show([entry(whitelisted.ip, whitelisted, { more: true })]);
    const text = root.textContent ?? '';
    for (const shown of ['Anycast resolver, never block', 'AS13335', 'Australia']) expect(text).toContain(shown);
    // The badge's severity is the only level: the API's threat_level is not a second one.
    expect(text).not.toContain('Threat level');
    const less = [...root.querySelectorAll('button')].find((b) => b.textContent === 'Less')!;
    expect(less.getAttribute('aria-expanded')).toBe('true');
    expect(root.querySelector(`#${less.getAttribute('aria-controls')}`)?.hasAttribute('hidden')).toBe(false);
  });

  it('offers no More when the answer has nothing beyond the first view', () => {
    const plain = { ...whitelisted, data: { ...(whitelisted as { data: object }).data, whitelisted: false, whitelist: null, description: null, threatLevel: null, ipInfo: undefined } } as unknown as LookupResult;
    const { root } = show([entry(plain.ip, plain)]);
    expect([...root.querySelectorAll('button')].map((b) => b.textContent)).not.toContain('More');
  });
});
