import { beforeEach, describe, expect, it, vi } from 'vitest';
import { browser } from 'wxt/browser';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { sendToBackground, sendToEveryTab } from '@/lib/message-client';

describe('sendToBackground', () => {
  beforeEach(() => fakeBrowser.reset());

  it('resends a lookup when the service worker was stopped mid-answer', async () => {
    const send = vi
      .spyOn(browser.runtime, 'sendMessage')
      .mockRejectedValueOnce(new Error('The message port closed before a response was received.'))
      .mockResolvedValueOnce({ ok: true, value: [] } as never);
    const reply = await sendToBackground('cs:lookup', { ips: ['8.8.8.8'], priority: 'visible' });
    expect(reply).toEqual({ ok: true, value: [] });
    expect(send).toHaveBeenCalledTimes(2);
  });

  it('a resent manual lookup says it is a resend (the first may have been paid)', async () => {
    const send = vi
      .spyOn(browser.runtime, 'sendMessage')
      .mockRejectedValueOnce(new Error('The message port closed before a response was received.'))
      .mockResolvedValueOnce({ ok: true, value: [] } as never);
    await sendToBackground('ui:lookup', { ips: ['8.8.8.8'] });
    expect(send.mock.calls.map(([message]) => message)).toEqual([
      { type: 'ui:lookup', payload: { ips: ['8.8.8.8'] } },
      { type: 'ui:lookup', payload: { ips: ['8.8.8.8'], resent: true } },
    ]);
  });

  it('never resends a call that costs quota by itself', async () => {
    const send = vi.spyOn(browser.runtime, 'sendMessage').mockRejectedValue(new Error('port closed'));
    const reply = await sendToBackground('ui:test-key', {});
    expect(send).toHaveBeenCalledTimes(1);
    expect(reply).toMatchObject({ ok: false, error: { kind: 'unreachable', message: expect.stringContaining('port closed') } });
  });

  it('gives up after a bounded number of attempts', async () => {
    const send = vi.spyOn(browser.runtime, 'sendMessage').mockRejectedValue(new Error('gone'));
    const reply = await sendToBackground('ui:get-status', {});
    expect(send).toHaveBeenCalledTimes(3);
    expect(reply.ok).toBe(false);
  });

  it('treats a missing reply as unreachable instead of undefined', async () => {
    vi.spyOn(browser.runtime, 'sendMessage').mockResolvedValue(undefined as never);
    expect(await sendToBackground('ui:clear-cache', {})).toMatchObject({ ok: false, error: { kind: 'unreachable' } });
  });
});

describe('sendToEveryTab', () => {
  beforeEach(() => fakeBrowser.reset());

  it('sends to every frame of every tab and ignores tabs without our content script', async () => {
    vi.spyOn(browser.tabs, 'query').mockResolvedValue([{ id: 1 }, { id: 2 }, {}] as never);
    const send = vi
      .spyOn(browser.tabs, 'sendMessage')
      .mockRejectedValueOnce(new Error('Could not establish connection. Receiving end does not exist.'))
      .mockResolvedValueOnce({ ok: true, value: { ok: true } } as never);
    await expect(sendToEveryTab('tab:results-stale', {})).resolves.toBeUndefined();
    // No frameId: every frame of the tab gets it.
    expect(send.mock.calls).toEqual([
      [1, { type: 'tab:results-stale', payload: {} }],
      [2, { type: 'tab:results-stale', payload: {} }],
    ]);
  });
});
