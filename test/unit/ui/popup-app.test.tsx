// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { PopupApp } from '@/entrypoints/popup/popup-app';
import type { MessageReplies } from '@/lib/messaging';
import { button, byLabel, change, click, flush, mount, text, type } from './dom';
import { createFakeServices, ok, type FakeServices } from './fake-services';
import { found, IP_INFO, status } from './samples';

function services(init: Parameters<typeof createFakeServices>[0] = { apiKey: 'demo-key-0001' }): FakeServices {
  const s = createFakeServices(init);
  s.handlers['ui:get-status'] = () => ok(status());
  s.handlers['ui:lookup'] = ({ ips, detailed }) => ok(ips.map((ip) => found(ip, detailed ? { ipInfo: IP_INFO, score: 92 } : { score: 40 })));
  return s;
}

const PAGE: MessageReplies['tab:get-page-ips'] = {
  url: 'https://siem.example/alerts',
  title: 'Alerts — SIEM',
  scanning: true,
  ips: [
    { ip: '198.51.100.4', version: 4, count: 1, result: found('198.51.100.4', { score: 10, reputation: 'clean' }) },
    { ip: '203.0.113.66', version: 4, count: 4, result: found('203.0.113.66', { score: 95, reputation: '<img src=x onerror=alert(1)>' }) },
    { ip: '10.0.0.1', version: 4, count: 2, result: { ip: '10.0.0.1', status: 'skipped', reason: 'private' } },
  ],
};

describe('popup', () => {
  it('shows the quota meter with used / limit and its meaning', async () => {
    const root = await mount(<PopupApp />, services());
    expect(text(root)).toContain('120 of 1,000 used');
    expect(text(root)).toContain('Automatic lookups run on scanned pages.');
    expect(root.querySelector('[role="meter"]')?.getAttribute('aria-valuenow')).toBe('12');
  });

  it('looks up one IP in detail and shows every ipInfo field', async () => {
    const s = services();
    const root = await mount(<PopupApp />, s);
    await type(byLabel<HTMLTextAreaElement>(root, 'IP address or text'), '185.220.101.4');
    await click(button(root, 'Look up'));
    expect(s.sent.filter((m) => m.type === 'ui:lookup')).toEqual([{ type: 'ui:lookup', payload: { ips: ['185.220.101.4'], detailed: true } }]);
    const shown = text(root);
    for (const value of Object.values(IP_INFO).slice(1)) expect(shown).toContain(value);
    expect(shown).toContain('92 / 100');
  });

  it('says what is wrong with invalid input and sends nothing', async () => {
    const s = services();
    const root = await mount(<PopupApp />, s);
    const input = byLabel<HTMLTextAreaElement>(root, 'IP address or text');
    await type(input, '300.1.2.3');
    await click(button(root, 'Look up'));
    expect(root.querySelector('#lookup-error')?.textContent).toBe('"300.1.2.3" is not a valid IP address.');
    expect(input.getAttribute('aria-invalid')).toBe('true');
    expect(s.sent.some((m) => m.type === 'ui:lookup')).toBe(false);
  });

  it('extracts IPs from pasted text, lists the skipped ones, and lists results', async () => {
    const s = services();
    const root = await mount(<PopupApp />, s);
    await type(byLabel<HTMLTextAreaElement>(root, 'IP address or text'), 'src=185.220.101.4 dst=10.0.0.9\nsrc=45.155.205.233');
    await click(button(root, 'Look up'));
    expect(s.sent.filter((m) => m.type === 'ui:lookup').at(-1)?.payload).toEqual({ ips: ['185.220.101.4', '45.155.205.233'] });
    expect(text(root)).toContain('Found 3 IP addresses; looked up 2, skipped 1 as private or reserved.');
    expect(text(root)).toContain('Skipped: 10.0.0.9 (private).');
  });

  it('without a key, says so and opens the options in one click', async () => {
    const s = services({ apiKey: '' });
    const root = await mount(<PopupApp />, s);
    expect(text(root)).toContain('No API key is set');
    await click(button(root, 'Open settings to add a key'));
    expect(s.openedOptions).toBe(1);
  });

  it('lists this page riskiest first, filters, sorts, opens a row and exports', async () => {
    const s = services();
    s.tab = { id: 9, url: PAGE.url };
    s.tabHandlers['tab:get-page-ips'] = () => ok(PAGE);
    const root = await mount(<PopupApp />, s);
    const rowIps = () => [...root.querySelectorAll('tbody .ip-button')].map((b) => b.textContent);
    expect(rowIps()).toEqual(['203.0.113.66', '198.51.100.4', '10.0.0.1']);
    // The content script answered: the page is scanned, and its scan is still running.
    expect(text(root)).toContain('Still scanning this page: the list may grow.');
    const pageButtons = [...root.querySelectorAll('[aria-labelledby="page-heading"] button')].map((b) => b.textContent);
    expect(pageButtons).toContain('Scan this site');
    expect(pageButtons).not.toContain('Scan this page');
    // Page text is text: the "reputation" with markup is shown, never parsed.
    expect(root.querySelector('img')).toBeNull();
    expect(text(root)).toContain('<img src=x onerror=alert(1)>');

    await click(button(root, 'Seen'));
    expect(rowIps()).toEqual(['203.0.113.66', '10.0.0.1', '198.51.100.4']);

    const pageSection = root.querySelector('[aria-labelledby="page-heading"]') as HTMLElement;
    await change(byLabel<HTMLSelectElement>(pageSection, 'Severity'), 'skipped');
    expect(rowIps()).toEqual(['10.0.0.1']);
    await change(byLabel<HTMLSelectElement>(pageSection, 'Severity'), 'all');
    await type(byLabel(pageSection, 'Filter'), '198.51');
    await flush();
    expect(rowIps()).toEqual(['198.51.100.4']);

    await click(button(root, '198.51.100.4'));
    expect(root.querySelector('.row-details')?.textContent).toContain('Reputation');
    await click(button(root, 'Load network details (uses 1 request)'));
    expect(s.sent.at(-1)).toEqual({ type: 'ui:lookup', payload: { ips: ['198.51.100.4'], detailed: true } });
    expect(root.querySelector('.row-details')?.textContent).toContain('Germany');

    await click(button(pageSection, 'Download CSV'));
    expect(s.files).toHaveLength(1);
    expect(s.files[0]!.name).toMatch(/^ip-reputation-siem-example-\d{8}-\d{6}\.csv$/);
    expect(s.files[0]!.text.split('\r\n').filter(Boolean)).toHaveLength(2); // header + the filtered row
    await click(button(pageSection, 'Copy JSON'));
    expect(JSON.parse(s.clipboard[0]!)).toMatchObject({ source: PAGE.url, count: 1 });
  });

  it('offers to scan a page that has no content script', async () => {
    const s = services();
    s.tab = { id: 4, url: 'https://other.example/x' };
    s.handlers['ui:scan-tab'] = () => {
      s.tabHandlers['tab:get-page-ips'] = () => ok({ ...PAGE, url: 'https://other.example/x' });
      return ok({ injected: true });
    };
    const root = await mount(<PopupApp />, s);
    expect(text(root)).toContain('This page is not scanned.');
    button(root, 'Scan this site');
    await click(button(root, 'Scan this page'));
    expect(s.sent.some((m) => m.type === 'ui:scan-tab')).toBe(true);
    expect(root.querySelectorAll('tbody .ip-button')).toHaveLength(3);
  });

  it('explains a failed lookup in plain language with a next step', async () => {
    const s = services();
    s.handlers['ui:lookup'] = () => ({ ok: false, error: { kind: 'rate-limited', message: 'Rate limit exceeded', status: 429 } });
    const root = await mount(<PopupApp />, s);
    await type(byLabel<HTMLTextAreaElement>(root, 'IP address or text'), '185.220.101.4');
    await click(button(root, 'Look up'));
    const alert = root.querySelector('[data-error-kind="rate-limited"]');
    expect(alert?.textContent).toContain('Too many requests');
    expect(alert?.textContent).toContain('HTTP 429: Rate limit exceeded');
    button(alert as HTMLElement, 'Try again');
  });

  it('never shows undefined, NaN or Invalid Date', async () => {
    const s = services();
    s.handlers['ui:get-status'] = () => ok(status({ quota: { state: 'unknown', used: null, limit: null, unlimited: false, scope: null, reserve: null, pendingLocalCost: 0, refreshedAt: null, detail: null } }));
    s.handlers['ui:lookup'] = ({ ips }) => ok(ips.map((ip) => found(ip, { score: null, totalHits: null, lastAttack: null, reputation: null })));
    s.tab = { id: 9, url: PAGE.url };
    s.tabHandlers['tab:get-page-ips'] = () => ok(PAGE);
    const root = await mount(<PopupApp />, s);
    await type(byLabel<HTMLTextAreaElement>(root, 'IP address or text'), '185.220.101.4');
    await click(button(root, 'Look up'));
    expect(text(root)).not.toMatch(/undefined|NaN|Invalid Date/);
    expect(text(root)).toContain('Usage unknown');
  });

  it('past the cap: one panel says the cap is reached, lists the IPs as "Past the cap", and offers one control with its cost', async () => {
    const s = services();
    s.tab = { id: 9, url: PAGE.url };
    const capped = (ip: string) => ({ ip, version: 4 as const, count: 1, result: { ip, status: 'skipped' as const, reason: 'page-cap' as const, limit: 2 } });
    s.tabHandlers['tab:get-page-ips'] = () => ok({ ...PAGE, scanning: false, ips: [...PAGE.ips, capped('198.51.100.7'), capped('198.51.100.8')] });
    s.handlers['ui:get-page-cap'] = () =>
      ok({ site: 'siem.example', used: 2, cap: 2, siteUsed: 2, siteCap: 2000, windowEndsAt: 1 });
    const root = await mount(<PopupApp />, s);
    await flush();
    const panel = root.querySelector('[data-testid="page-cap"]') as HTMLElement;
    expect(panel.textContent).toContain('Automatic lookups for siem.example: 2 / 2 in this tab this hour');
    expect(panel.textContent).toContain('The cap is reached: 2 addresses on this page were not looked up (marked “Past the cap”).');
    expect(panel.textContent).toContain('Up to 2 API units (cached answers are free).');
    // One control for the cap in the whole popup: no second "lift" button.
    const capButtons = [...root.querySelectorAll('button')].map((b) => b.textContent ?? '').filter((t) => /rest|more on this tab/i.test(t));
    expect(capButtons).toEqual(['Look up the rest (2)']);
    const pageSection = root.querySelector('[aria-labelledby="page-heading"]') as HTMLElement;
    await change(byLabel<HTMLSelectElement>(pageSection, 'Severity'), 'capped');
    expect([...root.querySelectorAll('tbody .ip-button')].map((b) => b.textContent)).toEqual(['198.51.100.7', '198.51.100.8']);
  });
});
