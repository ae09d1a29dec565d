/**
 * The content script's side of the display settings: asked of the background at start (the
 * defaults when it cannot answer), changes taken from tab:display-settings sent by this
 * extension only, and storage never touched.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { browser } from 'wxt/browser';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { readDisplaySettings } from '@/entrypoints/content/extension-bridge';
import { listenForTabMessages, type TabHandlers } from '@/entrypoints/content/tab-listener';
import { DEFAULT_DISPLAY } from '@/lib/protocol';

const custom = { thresholds: { critical: 90, high: 70, medium: 40, low: 5 }, markStyle: 'background' as const, sendPrivate: true };

beforeEach(() => fakeBrowser.reset());

describe('readDisplaySettings', () => {
  it('asks the background, never storage', async () => {
    const get = vi.spyOn(browser.storage.local, 'get');
    const send = vi.spyOn(browser.runtime, 'sendMessage').mockResolvedValue({ ok: true, value: custom } as never);
    expect(await readDisplaySettings()).toEqual(custom);
    expect(send).toHaveBeenCalledExactlyOnceWith({ type: 'cs:get-display-settings', payload: {} });
    expect(get).not.toHaveBeenCalled();
  });

  it('asks again when the stopped worker closed the channel', async () => {
    const send = vi
      .spyOn(browser.runtime, 'sendMessage')
      .mockRejectedValueOnce(new Error('The message port closed before a response was received.'))
      .mockResolvedValueOnce({ ok: true, value: custom } as never);
    expect(await readDisplaySettings()).toEqual(custom);
    expect(send).toHaveBeenCalledTimes(2);
  });

  it('falls back to the defaults when the background cannot answer, or answers nonsense', async () => {
    vi.spyOn(browser.runtime, 'sendMessage').mockRejectedValue(new Error('Could not establish connection.'));
    expect(await readDisplaySettings()).toEqual(DEFAULT_DISPLAY);
    vi.spyOn(browser.runtime, 'sendMessage').mockResolvedValue({ ok: false, error: { kind: 'internal', message: 'x' } } as never);
    expect(await readDisplaySettings()).toEqual(DEFAULT_DISPLAY);
    vi.spyOn(browser.runtime, 'sendMessage').mockResolvedValue({ ok: true, value: { ...custom, markStyle: 'blink' } } as never);
    expect(await readDisplaySettings()).toEqual(DEFAULT_DISPLAY);
  });
});

describe('tab:display-settings', () => {
  function listen() {
    const handlers: TabHandlers = {
      getPageIps: () => ({ url: '', title: '', ips: [], scanning: false }),
      showLookup: vi.fn(),
      resultsStale: vi.fn(),
      lookupsRecovered: vi.fn(),
      displaySettings: vi.fn(),
    };
    const add = vi.spyOn(browser.runtime.onMessage, 'addListener');
    const life = new AbortController();
    listenForTabMessages(handlers, life.signal);
    // The browser's own listener form (lib/native-runtime.ts): the reply goes to sendResponse.
    const native = add.mock.calls[0]![0] as unknown as (raw: unknown, sender: { id?: string }, sendResponse: (r: unknown) => void) => boolean;
    const listener = (raw: unknown, sender: { id?: string }) => new Promise<unknown>((resolve) => expect(native(raw, sender, resolve)).toBe(true));
    return { handlers, listener, life };
  }

  it('applies valid settings sent by this extension', async () => {
    const { handlers, listener } = listen();
    const reply = await listener({ type: 'tab:display-settings', payload: custom }, { id: browser.runtime.id });
    expect(reply).toEqual({ ok: true, value: { ok: true } });
    expect(handlers.displaySettings).toHaveBeenCalledExactlyOnceWith(custom);
  });

  it('refuses other senders and malformed settings', async () => {
    const { handlers, listener } = listen();
    const fromOther = await listener({ type: 'tab:display-settings', payload: custom }, { id: 'another-extension' });
    expect(fromOther).toMatchObject({ ok: false, error: { kind: 'forbidden' } });
    const malformed = await listener(
      { type: 'tab:display-settings', payload: { ...custom, thresholds: { critical: 10, high: 50, medium: 25, low: 0 } } },
      { id: browser.runtime.id },
    );
    expect(malformed).toMatchObject({ ok: false, error: { kind: 'invalid-message' } });
    expect(handlers.displaySettings).not.toHaveBeenCalled();
  });
});
