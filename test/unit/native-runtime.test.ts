import { describe, expect, it, vi } from 'vitest';
import { backgroundConnector } from '@/lib/background-connector';
import { answerWith, nativeRuntime, type NativeRuntime } from '@/lib/native-runtime';

const runtime = (id?: string) => ({ id, getURL: (p: string) => `ext://x${p}` }) as unknown as NativeRuntime;

describe('nativeRuntime', () => {
  it("takes Firefox's promise-based browser where there is one, else chrome", () => {
    const fromBrowser = runtime('b');
    const fromChrome = runtime('c');
    expect(nativeRuntime({ browser: { runtime: fromBrowser }, chrome: { runtime: fromChrome } })).toBe(fromBrowser);
    expect(nativeRuntime({ chrome: { runtime: fromChrome } })).toBe(fromChrome);
    expect(nativeRuntime({})).toBeUndefined();
  });
});

describe('answerWith', () => {
  it('answers its own messages through sendResponse and keeps the channel open (Chromium ignores a returned promise)', async () => {
    const sendResponse = vi.fn();
    const listener = answerWith(() => Promise.resolve({ ok: true, value: 1 }));
    expect(listener({ type: 'tab:get-page-ips' }, {}, sendResponse)).toBe(true);
    await vi.waitFor(() => expect(sendResponse).toHaveBeenCalledWith({ ok: true, value: 1 }));
  });

  it("leaves messages that are not its own to other listeners", () => {
    const sendResponse = vi.fn();
    expect(answerWith(() => undefined)({ type: 'other' }, {}, sendResponse)).toBe(false);
    expect(sendResponse).not.toHaveBeenCalled();
  });

  it('closes the channel instead of leaving the sender waiting if the route rejects', async () => {
    const sendResponse = vi.fn();
    answerWith(() => Promise.reject(new Error('bug')))({}, {}, sendResponse);
    await vi.waitFor(() => expect(sendResponse).toHaveBeenCalledWith(undefined));
  });
});

describe('backgroundConnector over a native runtime', () => {
  it('resends a safe message once the worker answered nothing, and reports an orphaned script as unreachable', async () => {
    const sendMessage = vi.fn().mockRejectedValueOnce(new Error('port closed')).mockResolvedValueOnce({ ok: true, value: [] });
    const send = backgroundConnector(() => ({ id: 'x', sendMessage }));
    expect(await send('cs:lookup', { ips: ['8.8.8.8'], priority: 'visible' })).toEqual({ ok: true, value: [] });
    expect(sendMessage).toHaveBeenCalledTimes(2);

    const orphaned = backgroundConnector(() => undefined);
    expect(await orphaned('cs:lookup', { ips: ['8.8.8.8'], priority: 'visible' })).toMatchObject({
      ok: false,
      error: { kind: 'unreachable', message: expect.stringContaining('reloaded or removed') },
    });
  });
});
