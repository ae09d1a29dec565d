import { beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import {
  DEFAULT_SETTINGS,
  exportableSettingsSchema,
  getSetting,
  getSettings,
  saveSettings,
  sitePatternSchema,
} from '@/lib/settings';

describe('settings', () => {
  beforeEach(() => fakeBrowser.reset());

  it('returns the defaults on a fresh install', async () => {
    expect(await getSettings()).toEqual(DEFAULT_SETTINGS);
    expect(DEFAULT_SETTINGS.apiBaseUrl).toBe('https://ipswamp.com/api/v1');
    expect(DEFAULT_SETTINGS.lookupPolicy).toMatchObject({ sendPrivate: false, perPageCap: 500, reservePercent: 10, cacheMaxEntries: 50_000 });
  });

  it('normalises the base URL and rejects non-http URLs', async () => {
    const saved = await saveSettings({ apiBaseUrl: ' https://proxy.example.org/api/v1/ ' });
    expect(saved.apiBaseUrl).toBe('https://proxy.example.org/api/v1');
    await expect(saveSettings({ apiBaseUrl: 'ftp://x' })).rejects.toThrow(/http\(s\) URL/);
  });

  it('refuses a base URL with a user name or password, without quoting it', async () => {
    for (const apiBaseUrl of ['https://bob:hunter2@proxy.example/api/v1', 'https://bob@proxy.example/api/v1']) {
      const error = (await saveSettings({ apiBaseUrl }).then(() => null, (e: unknown) => e)) as Error | null;
      expect(error).toBeInstanceOf(Error);
      expect(error!.message).toMatch(/user name and password/);
      expect(error!.message).not.toMatch(/hunter2|bob/);
    }
    expect((await getSettings()).apiBaseUrl).toBe(DEFAULT_SETTINGS.apiBaseUrl);
  });

  it('accepts only printable ASCII keys (no NUL, no control characters)', async () => {
    for (const apiKey of ['abc\u0000def', 'abc\u0007', 'clé-123', 'abc\u202edef']) {
      await expect(saveSettings({ apiKey })).rejects.toThrow(/printable ASCII/);
    }
    expect((await saveSettings({ apiKey: 'Ab0-_.~!' })).apiKey).toBe('Ab0-_.~!');
  });

  it('writes nothing when one field of a save is invalid', async () => {
    await expect(
      saveSettings({ apiKey: 'good-key', thresholds: { critical: 10, high: 50, medium: 25, low: 0 } }),
    ).rejects.toThrow(/critical > high/);
    expect(await getSetting('apiKey')).toBe('');
  });

  it('runs saves one after the other: a second save reads only after the first has written', async () => {
    const log: string[] = [];
    const local = fakeBrowser.storage.local;
    const get = local.get.bind(local);
    const set = local.set.bind(local);
    vi.spyOn(local, 'get').mockImplementation((...args: Parameters<typeof get>) => (log.push('read'), get(...args)));
    vi.spyOn(local, 'set').mockImplementation((items: Record<string, unknown>) => (log.push(`write ${String(items.markStyle)}`), set(items)));
    await saveSettings({ markStyle: 'background' });
    const readsOfOne = log.indexOf('write background');
    log.length = 0;
    await Promise.all([saveSettings({ markStyle: 'underline' }), saveSettings({ markStyle: 'background' })]);
    expect(log.indexOf('write underline')).toBe(readsOfOne);
    expect(log.filter((l) => l.startsWith('write'))).toEqual(['write underline', 'write background']);
    expect(await getSetting('markStyle')).toBe('background');
    // A failed save does not stop the next one.
    await Promise.allSettled([saveSettings({ markStyle: 'dotted' as 'underline' }), saveSettings({ markStyle: 'underline' })]);
    expect(await getSetting('markStyle')).toBe('underline');
    vi.restoreAllMocks();
  });

  it('falls back to the default when stored data is corrupted', async () => {
    await fakeBrowser.storage.local.set({ lookupPolicy: { perPageCap: 'lots' }, markStyle: 42 });
    expect(await getSetting('lookupPolicy')).toEqual(DEFAULT_SETTINGS.lookupPolicy);
    expect(await getSetting('markStyle')).toBe('underline');
  });

  it('validates site match patterns', () => {
    expect(sitePatternSchema.safeParse('https://kibana.example.org/*').success).toBe(true);
    expect(sitePatternSchema.safeParse('https://*.example.org/app/*').success).toBe(true);
    expect(sitePatternSchema.safeParse('http://127.0.0.1:5601/*').success).toBe(true);
    expect(sitePatternSchema.safeParse('kibana.example.org').success).toBe(false);
    expect(sitePatternSchema.safeParse('https://exa*mple.org/*').success).toBe(false);
  });

  it('exports settings without the key', () => {
    const exported = exportableSettingsSchema.parse({ ...DEFAULT_SETTINGS, apiKey: 'secret' });
    expect(exported).not.toHaveProperty('apiKey');
  });

  it('stores pivots as one ordinary setting: defaults, validation, fallback', async () => {
    expect((await getSetting('pivots')).map((p) => p.id)).toEqual(['shodan', 'censys', 'virustotal', 'abuseipdb', 'greynoise', 'ipinfo']);
    const mine = { id: 'custom-7', name: 'SOAR', urlTemplate: 'https://soar.example/ip?q={ip}', enabled: true };
    expect((await saveSettings({ pivots: [mine] })).pivots).toEqual([mine]);
    expect(await fakeBrowser.storage.local.get('pivots')).toEqual({ pivots: [mine] });
    await expect(saveSettings({ pivots: [{ ...mine, urlTemplate: 'javascript:alert({ip})' }] })).rejects.toThrow(/Only https:\/\/ links/);
    await expect(saveSettings({ pivots: [mine, { ...mine, id: 'custom-8' }] })).rejects.toThrow(/Two services are named/);
    expect(await getSetting('pivots')).toEqual([mine]);
    // A hand-edited store (or an older bug) never hands the UI a template it would refuse.
    await fakeBrowser.storage.local.set({ pivots: [{ ...mine, urlTemplate: 'http://evil.example/{ip}' }] });
    expect(await getSetting('pivots')).toEqual(DEFAULT_SETTINGS.pivots);
  });
});
