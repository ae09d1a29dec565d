import { beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { clientFromSettings } from '@/lib/background/client-from-settings';
import {
  DEFAULT_SETTINGS,
  getSetting,
  getSettings,
  getSettingsOf,
  LockedSettingError,
  parseManagedPolicy,
  readManagedPolicy,
  saveSettings,
  watchSettings,
} from '@/lib/settings';

/** The browser's managed area, as an administrator's policy fills it. */
const setPolicy = (policy: Record<string, unknown>) => fakeBrowser.storage.managed.set(policy);

describe('managed settings', () => {
  beforeEach(() => fakeBrowser.reset());

  it('reads no policy as no policy, and behaves as before', async () => {
    expect((await readManagedPolicy()).locked.size).toBe(0);
    await saveSettings({ markStyle: 'background' });
    expect(await getSetting('markStyle')).toBe('background');
  });

  it('a rejecting managed area (Firefox without policies.json) is no policy, not a crash', async () => {
    const area = { get: () => Promise.reject(new Error('Managed storage manifest not found')) };
    expect((await readManagedPolicy(area)).locked.size).toBe(0);
  });

  it('managed values win over the user\'s, field by field for the lookup policy', async () => {
    await saveSettings({
      sitesToScan: ['https://mine.example.org/*'],
      lookupPolicy: { ...DEFAULT_SETTINGS.lookupPolicy, perPageCap: 50, reservePercent: 5 },
    });
    await setPolicy({
      apiBaseUrl: 'https://proxy.corp.example/api/v1/',
      sitesToScan: ['https://siem.corp.example/*'],
      lookupPolicy: { reservePercent: 25, siteDailyCap: 800 },
      thresholds: { critical: 90, high: 70, medium: 40, low: 10 },
    });
    const s = await getSettings();
    expect(s.apiBaseUrl).toBe('https://proxy.corp.example/api/v1');
    expect(s.sitesToScan).toEqual(['https://siem.corp.example/*']);
    expect(s.lookupPolicy).toMatchObject({ perPageCap: 50, reservePercent: 25, siteDailyCap: 800 });
    expect(s.thresholds.critical).toBe(90);
    expect(await getSetting('sitesToScan')).toEqual(['https://siem.corp.example/*']);
    // Read together (one storage read), the same values in force as one by one.
    await saveSettings({ markStyle: 'background' });
    expect(await getSettingsOf(['thresholds', 'markStyle', 'lookupPolicy'])).toEqual({
      thresholds: await getSetting('thresholds'),
      markStyle: 'background',
      lookupPolicy: await getSetting('lookupPolicy'),
    });
  });

  it('a locked setting cannot be saved (options, settings import, popup actions all save through here)', async () => {
    await setPolicy({ sitesToScan: ['https://siem.corp.example/*'], lookupPolicy: { reservePercent: 25 }, lockedSettings: ['markStyle'] });
    await expect(saveSettings({ sitesToScan: [] })).rejects.toBeInstanceOf(LockedSettingError);
    await expect(saveSettings({ markStyle: 'background' })).rejects.toThrow(/Set by your organisation.*markStyle/);
    const policy = { ...(await getSetting('lookupPolicy')) };
    await expect(saveSettings({ lookupPolicy: { ...policy, reservePercent: 1 } })).rejects.toThrow(/lookupPolicy\.reservePercent/);
    // Unlocked fields of the same setting still save, and the unchanged locked ones pass.
    await saveSettings({ lookupPolicy: { ...policy, perPageCap: 42 } });
    expect(await getSetting('lookupPolicy')).toMatchObject({ perPageCap: 42, reservePercent: 25 });
    // Nothing of the refused saves reached storage.
    expect(await fakeBrowser.storage.local.get('markStyle')).toEqual({});
  });

  it("saving never stores the organisation's values as the user's: removing the policy gives back the user's own", async () => {
    await saveSettings({
      markStyle: 'background',
      lookupPolicy: { ...DEFAULT_SETTINGS.lookupPolicy, perPageCap: 50, reservePercent: 5 },
    });
    await setPolicy({ markStyle: 'underline', lookupPolicy: { reservePercent: 25 } });
    // Options saves every field of a section, the locked ones unchanged.
    const inForce = await getSettings();
    await saveSettings({ markStyle: inForce.markStyle, lookupPolicy: { ...inForce.lookupPolicy, perPageCap: 42 } });
    expect(await getSetting('lookupPolicy')).toMatchObject({ perPageCap: 42, reservePercent: 25 });
    await fakeBrowser.storage.managed.clear();
    expect(await getSetting('markStyle')).toBe('background');
    expect(await getSetting('lookupPolicy')).toMatchObject({ perPageCap: 42, reservePercent: 5 });
  });

  it('ignores each invalid value with a clear message and keeps the valid ones', async () => {
    const policy = parseManagedPolicy({
      apiBaseUrl: 'ftp://nope',
      sitesToScan: ['https://ok.example/*', 'not a pattern'],
      thresholds: { critical: 10, high: 50, medium: 25, low: 0 },
      lookupPolicy: { reservePercent: 250, perPageCap: 30, bogus: 1 },
      markStyle: 'background',
      apiKey: 'has space',
      lockedSettings: ['markStyle', 'nonsense'],
      proxyAddsKey: 'yes',
      colour: 'red',
    });
    expect(policy.values).toEqual({ markStyle: 'background', lookupPolicy: { perPageCap: 30 } });
    expect(policy.apiKey).toBeNull();
    expect(policy.proxyAddsKey).toBe(false);
    expect([...policy.locked].sort()).toEqual(['lookupPolicy.perPageCap', 'markStyle']);
    const text = policy.problems.join('\n');
    for (const name of ['apiBaseUrl', 'sitesToScan', 'thresholds', 'lookupPolicy.reservePercent', 'lookupPolicy.bogus', 'apiKey', 'nonsense', 'proxyAddsKey', 'colour']) {
      expect(text).toContain(name);
    }
    expect(text).not.toContain('has space');
    expect(parseManagedPolicy('junk').locked.size).toBe(0);
  });

  it('a managed key is used by the background client and never returned by getSettings', async () => {
    const fetch = vi.fn(async (_url: string | URL, _init?: RequestInit) => new Response(JSON.stringify({ error: true, message: 'x' }), { status: 401 }));
    vi.stubGlobal('fetch', fetch);
    try {
      await saveSettings({ apiKey: 'users-own-key' });
      await setPolicy({ apiBaseUrl: 'https://api.corp.example/v1', apiKey: 'org-key-123' });
      expect((await getSettings()).apiKey).toBe('users-own-key');
      expect(JSON.stringify(await getSettings())).not.toContain('org-key-123');
      const setup = await clientFromSettings();
      expect(setup.server).toBe('https://api.corp.example/v1');
      await setup.handle!.client.account().catch(() => undefined);
      const init = fetch.mock.calls[0]![1] as RequestInit;
      expect((init.headers as Record<string, string>).Authorization).toBe('Bearer org-key-123');
      await expect(saveSettings({ apiKey: 'another' })).rejects.toBeInstanceOf(LockedSettingError);
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it('proxy mode sends no key at all, even when the user had one', async () => {
    const fetch = vi.fn(async (_url: string | URL, _init?: RequestInit) => new Response(JSON.stringify({ error: true, message: 'x' }), { status: 401 }));
    vi.stubGlobal('fetch', fetch);
    try {
      await saveSettings({ apiKey: 'users-own-key' });
      await setPolicy({ apiBaseUrl: 'https://proxy.corp.example/ip', proxyAddsKey: true });
      const setup = await clientFromSettings();
      expect(setup.handle).not.toBeNull();
      await setup.handle!.client.account().catch(() => undefined);
      const headers = (fetch.mock.calls[0]![1] as RequestInit).headers as Record<string, string>;
      expect(String(fetch.mock.calls[0]![0])).toMatch(/^https:\/\/proxy\.corp\.example\/ip\//);
      expect(Object.keys(headers).map((h) => h.toLowerCase())).not.toContain('authorization');
      expect(Object.keys(headers).map((h) => h.toLowerCase())).not.toContain('x-api-key');
      expect(JSON.stringify(headers)).not.toContain('users-own-key');
    } finally {
      vi.unstubAllGlobals();
    }
    // Without the proxy's address, proxy mode is refused (it would send the public API nothing).
    expect(parseManagedPolicy({ proxyAddsKey: true }).proxyAddsKey).toBe(false);
  });

  it('follows policy changes at run time', async () => {
    const seen: string[][] = [];
    const stop = watchSettings((changed) => seen.push(changed));
    await setPolicy({ markStyle: 'background' });
    await vi.waitFor(() => expect(seen.some((c) => c.includes('markStyle') && c.includes('sitesToScan'))).toBe(true));
    expect(await getSetting('markStyle')).toBe('background');
    await fakeBrowser.storage.managed.clear();
    expect(await getSetting('markStyle')).toBe('underline');
    stop();
  });
});
