import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '@/lib/settings';
import { parseSettingsFile, settingsToFile } from '@/lib/ui/options/settings-file';

const settings = { ...DEFAULT_SETTINGS, apiKey: 'secret-key-123', sitesToScan: ['https://kibana.example.org/*'], markStyle: 'background' as const };

describe('settings file', () => {
  it('exports everything but the key, and imports it back', () => {
    const text = settingsToFile(settings, Date.UTC(2025, 0, 1));
    expect(text).not.toContain('secret-key-123');
    expect(text).not.toContain('apiKey');
    const parsed = parseSettingsFile(text);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.patch).toMatchObject({ sitesToScan: ['https://kibana.example.org/*'], markStyle: 'background', thresholds: DEFAULT_SETTINGS.thresholds });
    expect(parsed.notes).toEqual([]);
  });

  it('never imports a key and says so; ignores unknown fields', () => {
    const parsed = parseSettingsFile(JSON.stringify({ apiKey: 'x', markStyle: 'underline', colour: 'red' }));
    expect(parsed).toMatchObject({ ok: true, patch: { markStyle: 'underline' } });
    if (!parsed.ok) return;
    expect('apiKey' in parsed.patch).toBe(false);
    expect(parsed.notes.join(' ')).toMatch(/API key; it was ignored.*colour/);
  });

  it('rejects the whole file when one value is wrong', () => {
    const parsed = parseSettingsFile(JSON.stringify({ markStyle: 'underline', thresholds: { critical: 10, high: 50, medium: 25, low: 0 } }));
    expect(parsed).toMatchObject({ ok: false });
    if (!parsed.ok) expect(parsed.errors[0]).toContain('thresholds');
  });

  it('explains files that are not settings', () => {
    expect(parseSettingsFile('not json')).toMatchObject({ ok: false, errors: [expect.stringContaining('not JSON')] });
    expect(parseSettingsFile('[1,2]')).toMatchObject({ ok: false });
    expect(parseSettingsFile(JSON.stringify({ format: 'other/thing', settings: {} }))).toMatchObject({ ok: false });
    expect(parseSettingsFile(JSON.stringify({ format: 'ip-reputation-lens/settings', version: 99, settings: {} }))).toMatchObject({
      ok: false,
      errors: [expect.stringContaining('newer version')],
    });
    expect(parseSettingsFile(JSON.stringify({ hello: 1 }))).toMatchObject({ ok: false });
  });
});
