/**
 * Settings are saved by the background (ui:save-settings), so an options page closed right after
 * a change cannot lose it halfway through the save's reads.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { browser } from 'wxt/browser';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { createSettingsHandlers } from '@/lib/background/settings-handlers';
import { createRouter } from '@/lib/message-router';
import { parseEnvelope } from '@/lib/messaging';
import { getSettings } from '@/lib/settings';
import { createBrowserServices } from '@/lib/ui/shared/browser-services';

const opts = { extensionId: 'ext', extensionOrigin: 'chrome-extension://ext/' };
const optionsPage = { id: 'ext', url: 'chrome-extension://ext/options.html' };
const contentScript = { id: 'ext', url: 'https://siem.example/', tab: { id: 3 }, frameId: 0 };
const route = createRouter(createSettingsHandlers().handlers, { ...opts, parse: parseEnvelope });
const save = (patch: unknown, sender: object = optionsPage) => route({ type: 'ui:save-settings', payload: { patch } }, sender);

describe('ui:save-settings', () => {
  beforeEach(() => fakeBrowser.reset());

  it('writes the settings from an extension page and answers the settings in force', async () => {
    const reply = await save({ markStyle: 'background', apiKey: 'k-123' });
    expect(reply).toMatchObject({ ok: true, value: { markStyle: 'background', apiKey: 'k-123' } });
    expect(await getSettings()).toMatchObject({ markStyle: 'background', apiKey: 'k-123' });
  });

  it('refuses a content script, an unknown field and an invalid value, writing nothing', async () => {
    expect(await save({ markStyle: 'background' }, contentScript)).toMatchObject({ ok: false, error: { kind: 'forbidden' } });
    expect(await save({ markStyle: 'background', colour: 'red' })).toMatchObject({ ok: false, error: { kind: 'invalid-message' } });
    expect(await save({ apiKey: 'two words' })).toMatchObject({
      ok: false,
      error: { kind: 'invalid-message', message: expect.stringContaining('patch.apiKey: An API key has no spaces') },
    });
    expect((await getSettings()).markStyle).toBe('underline');
  });

  it("answers a locked setting with the organisation's sentence", async () => {
    await fakeBrowser.storage.managed.set({ lockedSettings: ['markStyle'] });
    expect(await save({ markStyle: 'background' })).toMatchObject({
      ok: false,
      error: { kind: 'internal', message: expect.stringContaining('Set by your organisation') },
    });
  });
});

describe("the pages' settings.save", () => {
  beforeEach(() => fakeBrowser.reset());

  it('hands the save to the background instead of writing storage itself', async () => {
    const send = vi.spyOn(browser.runtime, 'sendMessage').mockResolvedValue({ ok: true, value: { markStyle: 'background' } } as never);
    const write = vi.spyOn(browser.storage.local, 'set');
    await expect(createBrowserServices('').settings.save({ markStyle: 'background' })).resolves.toEqual({ markStyle: 'background' });
    expect(send).toHaveBeenCalledWith({ type: 'ui:save-settings', payload: { patch: { markStyle: 'background' } } });
    expect(write).not.toHaveBeenCalled();
  });

  it("throws the background's sentence when the save is refused", async () => {
    vi.spyOn(browser.runtime, 'sendMessage').mockResolvedValue({ ok: false, error: { kind: 'internal', message: 'Set by your organisation, so it cannot be changed here: markStyle.' } } as never);
    await expect(createBrowserServices('').settings.save({ markStyle: 'background' })).rejects.toThrow('Set by your organisation');
  });
});
