/** The background's display settings for content scripts, from (fake) browser storage. */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { createDisplayHandlers } from '@/lib/background/display-handlers';
import type { SettingKey } from '@/lib/settings';
import { DEFAULT_LOOKUP_POLICY, DEFAULT_SETTINGS, parseManagedPolicy, saveSettings, settingItems, type ManagedPolicy } from '@/lib/settings';

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

  describe('a policy that comes late (Chromium answers storage.managed ~3 s after the browser starts)', () => {
    const policyThresholds = { critical: 95, high: 80, medium: 50, low: 10 };
    const policy = parseManagedPolicy({ thresholds: policyThresholds, lookupPolicy: { sendPrivate: false } });

    /** A policy read that resolves only when the test says so. */
    function latePolicy() {
      let give: (p: ManagedPolicy) => void = () => undefined;
      const read = new Promise<ManagedPolicy>((resolve) => (give = resolve));
      return { readPolicy: () => read, give };
    }

    it('answers the user\'s own values without waiting for it, then pushes the policy\'s once they differ', async () => {
      await saveSettings({ thresholds, markStyle: 'background', lookupPolicy: { ...DEFAULT_LOOKUP_POLICY, sendPrivate: true } });
      const { readPolicy, give } = latePolicy();
      const push = vi.fn(() => Promise.resolve());
      const { handlers } = createDisplayHandlers({ readPolicy, policyWaitMs: 5, push, watch: () => undefined });
      // Before, the answer waited for the policy (in the browser: ~3 s after its start).
      expect(await handlers['cs:get-display-settings']({}, page)).toEqual({ thresholds, markStyle: 'background', sendPrivate: true });
      expect(push).not.toHaveBeenCalled();
      give(policy);
      await vi.waitFor(() => expect(push).toHaveBeenCalledOnce());
      expect(push).toHaveBeenCalledWith({ thresholds: policyThresholds, markStyle: 'background', sendPrivate: false });
    });

    it('scripts that start together before it get one push between them, not one each', async () => {
      await saveSettings({ thresholds });
      const { readPolicy, give } = latePolicy();
      const push = vi.fn(() => Promise.resolve());
      const { handlers } = createDisplayHandlers({ readPolicy, policyWaitMs: 5, push, watch: () => undefined });
      await Promise.all([1, 2, 3].map(() => handlers['cs:get-display-settings']({}, page)));
      give(policy);
      await vi.waitFor(() => expect(push).toHaveBeenCalled());
      await new Promise((r) => setTimeout(r, 20));
      expect(push).toHaveBeenCalledOnce();
    });

    it('pushes nothing when the policy changes none of the values answered', async () => {
      await saveSettings({ thresholds: policyThresholds, lookupPolicy: { ...DEFAULT_LOOKUP_POLICY, sendPrivate: false } });
      const { readPolicy, give } = latePolicy();
      const push = vi.fn(() => Promise.resolve());
      const { handlers } = createDisplayHandlers({ readPolicy, policyWaitMs: 5, push, watch: () => undefined });
      const answered = await handlers['cs:get-display-settings']({}, page);
      expect(answered).toEqual({ thresholds: policyThresholds, markStyle: DEFAULT_SETTINGS.markStyle, sendPrivate: false });
      give(policy);
      // The correction is a storage read after the policy (in memory here): long done by then.
      await new Promise((r) => setTimeout(r, 20));
      expect(push).not.toHaveBeenCalled();
    });

    it('a policy in time is applied to the answer itself, and nothing is pushed', async () => {
      await saveSettings({ thresholds, lookupPolicy: { ...DEFAULT_LOOKUP_POLICY, sendPrivate: true } });
      const push = vi.fn(() => Promise.resolve());
      const { handlers } = createDisplayHandlers({ readPolicy: () => Promise.resolve(policy), policyWaitMs: 60_000, push, watch: () => undefined });
      expect(await handlers['cs:get-display-settings']({}, page)).toEqual({ thresholds: policyThresholds, markStyle: DEFAULT_SETTINGS.markStyle, sendPrivate: false });
      await new Promise((r) => setTimeout(r, 20));
      expect(push).not.toHaveBeenCalled();
    });
  });
});
