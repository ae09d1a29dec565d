import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '@/lib/settings';
import { parseSettingsFile, settingsToFile } from '@/lib/ui/options/settings-file';

const settings = { ...DEFAULT_SETTINGS, apiKey: 'secret-key-123', sitesToScan: ['https://kibana.example.org/*'], markStyle: 'background' as const };
const inUse = { apiBaseUrl: settings.apiBaseUrl, authHeader: settings.authHeader };

describe('settings file', () => {
  it('exports everything but the key, and imports it back', () => {
    const text = settingsToFile(settings, Date.UTC(2025, 0, 1));
    expect(text).not.toContain('secret-key-123');
    expect(text).not.toContain('apiKey');
    const parsed = parseSettingsFile(text, inUse);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.patch).toMatchObject({ sitesToScan: ['https://kibana.example.org/*'], markStyle: 'background', thresholds: DEFAULT_SETTINGS.thresholds });
    expect(parsed.notes).toEqual([]);
  });

  it('never imports a key and says so; ignores unknown fields', () => {
    const parsed = parseSettingsFile(JSON.stringify({ apiKey: 'x', markStyle: 'underline', colour: 'red' }), inUse);
    expect(parsed).toMatchObject({ ok: true, patch: { markStyle: 'underline' } });
    if (!parsed.ok) return;
    expect('apiKey' in parsed.patch).toBe(false);
    expect(parsed.notes.join(' ')).toMatch(/API key; it was ignored.*colour/);
  });

  it('rejects the whole file when one value is wrong', () => {
    const parsed = parseSettingsFile(JSON.stringify({ markStyle: 'underline', thresholds: { critical: 10, high: 50, medium: 25, low: 0 } }), inUse);
    expect(parsed).toMatchObject({ ok: false });
    if (!parsed.ok) expect(parsed.errors[0]).toContain('thresholds');
  });

  it('explains files that are not settings', () => {
    expect(parseSettingsFile('not json', inUse)).toMatchObject({ ok: false, errors: [expect.stringContaining('not JSON')] });
    expect(parseSettingsFile('[1,2]', inUse)).toMatchObject({ ok: false });
    expect(parseSettingsFile(JSON.stringify({ format: 'other/thing', settings: {} }), inUse)).toMatchObject({ ok: false });
    expect(parseSettingsFile(JSON.stringify({ format: 'ip-reputation-lens/settings', version: 99, settings: {} }), inUse)).toMatchObject({
      ok: false,
      errors: [expect.stringContaining('newer version')],
    });
    expect(parseSettingsFile(JSON.stringify({ hello: 1 }), inUse)).toMatchObject({ ok: false });
  });

  it('never changes where the key is sent: a file naming another server or header applies neither and says so', () => {
    const current = { apiBaseUrl: 'https://ipswamp.com/api/v1', authHeader: 'authorization' as const };
    const onlyServer = parseSettingsFile(JSON.stringify({ apiBaseUrl: 'http://attacker:secret@other.test:8080/api/v1' }), current);
    expect(onlyServer.ok).toBe(false);
    if (onlyServer.ok) return;
    expect(onlyServer.errors.join(' ')).toContain('http://other.test:8080/api/v1');
    expect(onlyServer.errors.join(' ')).not.toContain('secret');

    const mixed = parseSettingsFile(
      JSON.stringify({ format: 'ip-reputation-lens/settings', version: 1, settings: { apiBaseUrl: 'http://other.test/api/v1', authHeader: 'x-api-key', markStyle: 'background' } }),
      current,
    );
    expect(mixed).toMatchObject({ ok: true, patch: { markStyle: 'background' } });
    if (!mixed.ok) return;
    expect(Object.keys(mixed.patch)).toEqual(['markStyle']);
    expect(mixed.notes.join(' ')).toMatch(/API server http:\/\/other\.test\/api\/v1 and the key header "x-api-key"; not applied/);
  });

  it('says nothing about the server when the file names the one in use', () => {
    const text = settingsToFile(settings, Date.UTC(2025, 0, 1));
    const parsed = parseSettingsFile(text, inUse);
    expect(parsed).toMatchObject({ ok: true, notes: [] });
    if (parsed.ok) expect('apiBaseUrl' in parsed.patch || 'authHeader' in parsed.patch).toBe(false);
  });

  it('imports pivots but names every site a link would newly open, since an IP opened there goes to it', () => {
    const current = { ...inUse, pivots: DEFAULT_SETTINGS.pivots };
    const shodanElsewhere = DEFAULT_SETTINGS.pivots.map((p) =>
      p.id === 'shodan' ? { ...p, urlTemplate: 'https://collector.attacker.example/x?q={ip}' } : p,
    );
    const parsed = parseSettingsFile(JSON.stringify({ pivots: shodanElsewhere }), current);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.patch.pivots?.[0]?.urlTemplate).toBe('https://collector.attacker.example/x?q={ip}');
    expect(parsed.notes.join(' ')).toContain('Shodan (collector.attacker.example)');
    // The same sites as today, or a new one turned off: nothing to say.
    expect(parseSettingsFile(JSON.stringify({ pivots: DEFAULT_SETTINGS.pivots }), current)).toMatchObject({ ok: true, notes: [] });
    const off = shodanElsewhere.map((p) => (p.id === 'shodan' ? { ...p, enabled: false } : p));
    expect(parseSettingsFile(JSON.stringify({ pivots: off }), current)).toMatchObject({ ok: true, notes: [] });
  });
});
