// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { OptionsApp } from '@/entrypoints/options/options-app';
import { DEFAULT_SETTINGS } from '@/lib/settings';
import { button, byLabel, change, click, flush, mount, text, type } from './dom';
import { createFakeServices, ok, type FakeServices } from './fake-services';
import { ACCOUNT, status } from './samples';

function services(init: Parameters<typeof createFakeServices>[0] = {}): FakeServices {
  const s = createFakeServices({ apiBaseUrl: 'http://127.0.0.1:4010/api/v1', ...init });
  s.handlers['ui:get-status'] = () => ok(status({ cacheSize: 42 }));
  s.handlers['ui:verify-key'] = () =>
    s.stored.apiKey === 'demo-key-0001' ? ok(ACCOUNT) : { ok: false, error: { kind: 'invalid-key', message: 'Invalid API key', status: 403 } };
  let patterns: string[] = [];
  s.handlers['ui:set-site-scanning'] = ({ pattern, enabled }) => {
    patterns = enabled ? [...patterns, pattern] : patterns.filter((p) => p !== pattern);
    return ok({ patterns });
  };
  return s;
}

describe('options', () => {
  it('saves the key and shows the verified key name, organisation and usage', async () => {
    const s = services();
    const root = await mount(<OptionsApp />, s);
    const key = byLabel(root, 'API key');
    expect(key.type).toBe('password');
    await type(key, 'demo-key-0001');
    await click(button(root, 'Save'));
    expect(s.stored.apiKey).toBe('demo-key-0001');
    const shown = text(root);
    expect(shown).toContain('Key verified: SOC demo key');
    expect(shown).toContain('org-soc-001');
    expect(shown).toContain('12 of 1,000 requests, 988 left');
  });

  it('states the severity rule lib/severity.ts applies: the score decides, the API level only without one', async () => {
    const root = await mount(<OptionsApp />, services());
    const help = text(root);
    expect(help).not.toContain('it wins');
    expect(help).toContain('the score decides with these thresholds');
    expect(help).toContain("The API's own threat level counts only for an IP without a score.");
  });

  it('gives every input a type the shared form styles cover (the "Open in …" names had none)', async () => {
    const root = await mount(<OptionsApp />, services());
    const css = (await import('node:fs')).readFileSync('components/ui.css', 'utf8');
    const inputs = [...root.querySelectorAll('input')];
    expect(inputs.filter((i) => i.classList.contains('pivot-name')).length).toBeGreaterThan(0);
    for (const input of inputs) {
      const type = input.getAttribute('type');
      expect(type, input.outerHTML).not.toBeNull();
      if (!['checkbox', 'radio', 'file'].includes(type!)) expect(css).toContain(`input[type='${type}']`);
    }
  });

  it('shows and hides the key', async () => {
    const root = await mount(<OptionsApp />, services({ apiKey: 'demo-key-0001' }));
    await click(button(root, 'Show key'));
    expect(byLabel(root, 'API key').type).toBe('text');
    expect(button(root, 'Hide key').getAttribute('aria-pressed')).toBe('true');
  });

  it('names a wrong key as an invalid key', async () => {
    const s = services();
    const root = await mount(<OptionsApp />, s);
    await type(byLabel(root, 'API key'), 'wrong-key');
    await click(button(root, 'Save'));
    expect(root.querySelector('[data-error-kind="invalid-key"]')?.textContent).toContain('Invalid key');
  });

  it('validates the base URL while typing and saves nothing invalid', async () => {
    const s = services();
    const root = await mount(<OptionsApp />, s);
    await type(byLabel(root, 'API base URL'), 'ipswamp.com');
    expect(root.querySelector('#api-base-url-error')?.textContent).toContain('full http(s) URL');
    await click(button(root, 'Save'));
    expect(text(root)).toContain('Nothing was saved');
    expect(s.stored.apiBaseUrl).toBe('http://127.0.0.1:4010/api/v1');
  });

  it('says that Test key costs a request', async () => {
    const root = await mount(<OptionsApp />, services());
    const test = button(root, 'Test key');
    const described = document.getElementById(test.getAttribute('aria-describedby')!);
    expect(described?.textContent).toContain('uses 1 request');
  });

  it('validates policy numbers as typed and saves the section only when valid', async () => {
    const s = services();
    const root = await mount(<OptionsApp />, s);
    const cap = byLabel(root, 'Per-page cap');
    await type(cap, '0');
    expect(root.querySelector('#policy-perPageCap-error')?.textContent).toBe('Enter a whole number from 1 to 100,000.');
    await change(cap);
    expect(text(root)).toContain('Not saved');
    expect(s.stored.lookupPolicy.perPageCap).toBe(500);
    await type(cap, '250');
    await change(cap);
    expect(s.stored.lookupPolicy.perPageCap).toBe(250);
    await change(byLabel(root, 'Send private IPs'), true);
    expect(s.stored.lookupPolicy.sendPrivate).toBe(true);
  });

  it('keeps thresholds in order', async () => {
    const s = services();
    const root = await mount(<OptionsApp />, s);
    const high = byLabel(root, 'High from score');
    await type(high, '90');
    await change(high);
    expect(text(root)).toContain('Critical (80) must be above High (90).');
    expect(s.stored.thresholds).toEqual(DEFAULT_SETTINGS.thresholds);
  });

  it('switches the mark style and clears the cache with its entry count', async () => {
    const s = services();
    s.handlers['ui:clear-cache'] = () => ok({ cleared: 42 });
    const root = await mount(<OptionsApp />, s);
    await change(byLabel(root, 'Background'), true);
    expect(s.stored.markStyle).toBe('background');
    expect(root.querySelector('.mark-preview style')?.textContent).toContain('background-color');
    await click(button(root, 'Clear cache (42 entries)'));
    expect(text(root)).toContain('Cleared 42 entries.');
  });

  it('reports medium-risk IPs as indicators in case exports only once turned on', async () => {
    const s = services();
    const root = await mount(<OptionsApp />, s);
    const box = byLabel(root, 'Report medium-risk IPs as indicators too');
    expect(box.checked).toBe(false);
    await change(box, true);
    expect(s.stored.exportOptions).toEqual({ mediumIndicators: true });
  });

  it('adds a site after the permission is granted and removes it', async () => {
    const s = services();
    const root = await mount(<OptionsApp />, s);
    await type(byLabel(root, 'Site to add'), 'https://kibana.example.org/app/discover');
    expect(text(root)).toContain('Will add https://kibana.example.org/*');
    await click(button(root, 'Add site'));
    expect(s.requested).toContainEqual(['https://kibana.example.org/*']);
    expect(text(root)).toContain('Access granted');
    await click(button(root, 'Remove https://kibana.example.org/*'));
    expect(text(root)).toContain('No sites yet.');
  });

  it('exports settings without the key and imports a file all-or-nothing', async () => {
    const s = services({ apiKey: 'secret-key' });
    const root = await mount(<OptionsApp />, s);
    await click(button(root, 'Export settings'));
    expect(s.files[0]!.text).not.toContain('secret-key');

    const input = byLabel(root, 'Import settings');
    const bad = new File([JSON.stringify({ markStyle: 'stripes', apiKey: 'x' })], 'bad.json', { type: 'application/json' });
    Object.defineProperty(input, 'files', { value: [bad], configurable: true });
    await change(input);
    await flush();
    expect(text(root)).toContain('Nothing was imported');
    expect(s.stored.markStyle).toBe('underline');

    const good = new File([JSON.stringify({ markStyle: 'background', apiKey: 'x' })], 'team.json', { type: 'application/json' });
    Object.defineProperty(input, 'files', { value: [good], configurable: true });
    await change(input);
    await flush();
    expect(text(root)).toContain('Imported 1 setting from team.json.');
    expect(s.stored.markStyle).toBe('background');
    expect(s.stored.apiKey).toBe('secret-key');
  });
});
