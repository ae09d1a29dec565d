/** The background's display settings for content scripts, from (fake) browser storage. */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { createDisplayHandlers } from '@/lib/background/display-handlers';
import type { SettingKey } from '@/lib/settings';
import { DEFAULT_LOOKUP_POLICY, DEFAULT_SETTINGS, saveSettings, settingItems } from '@/lib/settings';

const page = { id: 'ext', url: 'https://siem.example/', tab: { id: 1 }, frameId: 0, documentId: 'doc' };
const thresholds = { critical: 90, high: 70, medium: 40, low: 5 };

beforeEach(() => fakeBrowser.reset());

describe('display handlers', () => {
  it('cs:get-display-settings answers the three display values, nothing else', async () => {
    await saveSettings({ thresholds, markStyle: 'background', lookupPolicy: { ...DEFAULT_LOOKUP_POLICY, sendPrivate: true }, apiKey: 'secret' });
    const { handlers } = createDisplayHandlers();
    expect(await handlers['cs:get-display-settings']({}, page)).toEqual({ thresholds, markStyle: 'background', sendPrivate: true });
  });

  it('reads the three values from storage in one call (each API call is work in the browser process at every page load)', async () => {
    await saveSettings({ thresholds, markStyle: 'background' });
    const get = vi.spyOn(fakeBrowser.storage.local, 'get');
    const { handlers } = createDisplayHandlers();
    expect(await handlers['cs:get-display-settings']({}, page)).toEqual({ thresholds, markStyle: 'background', sendPrivate: false });
    expect(get).toHaveBeenCalledOnce();
  });

  it('answers the defaults for invalid stored values', async () => {
    await settingItems.thresholds.setValue({ critical: 10, high: 50, medium: 25, low: 0 });
    await settingItems.markStyle.setValue('blink' as never);
    await settingItems.lookupPolicy.setValue({ sendPrivate: 'yes' } as never);
    const { handlers } = createDisplayHandlers();
    expect(await handlers['cs:get-display-settings']({}, page)).toEqual({
      thresholds: DEFAULT_SETTINGS.thresholds,
      markStyle: DEFAULT_SETTINGS.markStyle,
      sendPrivate: DEFAULT_SETTINGS.lookupPolicy.sendPrivate,
    });
  });

  it('pushes the new values when a display setting changes, and only then', async () => {
    let changed: (keys: SettingKey[]) => void = () => undefined;
    const push = vi.fn(() => Promise.resolve());
    createDisplayHandlers({ watch: (cb) => void (changed = cb), push }).start();
    await saveSettings({ markStyle: 'background' });
    changed(['apiKey']);
    changed(['sitesToScan']);
    changed(['markStyle']);
    await vi.waitFor(() => expect(push).toHaveBeenCalled());
    await new Promise((r) => setTimeout(r, 20));
    expect(push).toHaveBeenCalledOnce();
    expect(push).toHaveBeenCalledWith({ thresholds: DEFAULT_SETTINGS.thresholds, markStyle: 'background', sendPrivate: false });
  });

  it('sends tab:display-settings to every frame of every tab on a real storage change', async () => {
    await fakeBrowser.tabs.create({ url: 'https://siem.example/' });
    const send = vi.spyOn(fakeBrowser.tabs, 'sendMessage').mockResolvedValue({ ok: true, value: { ok: true } } as never);
    createDisplayHandlers().start();
    await saveSettings({ thresholds });
    await vi.waitFor(() =>
      expect(send).toHaveBeenCalledWith(expect.any(Number), {
        type: 'tab:display-settings',
        payload: { thresholds, markStyle: DEFAULT_SETTINGS.markStyle, sendPrivate: false },
      }),
    );
  });
});
