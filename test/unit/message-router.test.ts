import { describe, expect, it } from 'vitest';
import { ApiError } from '@/lib/api/errors';
import { createRouter, isAllowedSender } from '@/lib/message-router';
import { parseEnvelope } from '@/lib/messaging';

const opts = { extensionId: 'ext-id', extensionOrigin: 'chrome-extension://ext-id/' };
const popup = { id: 'ext-id', url: 'chrome-extension://ext-id/popup.html' };
const contentScript = { id: 'ext-id', url: 'https://kibana.example.org/app', tab: { id: 7 }, frameId: 0 };
const otherExtension = { id: 'evil', url: 'chrome-extension://evil/x.html' };

describe('message router', () => {
  it('accepts ui:* only from extension pages and cs:* only from content scripts', () => {
    expect(isAllowedSender('ui:verify-key', popup, opts)).toBe(true);
    expect(isAllowedSender('ui:verify-key', contentScript, opts)).toBe(false);
    expect(isAllowedSender('cs:lookup', contentScript, opts)).toBe(true);
    expect(isAllowedSender('cs:lookup', popup, opts)).toBe(false);
    expect(isAllowedSender('ui:lookup', otherExtension, opts)).toBe(false);
    expect(isAllowedSender('cs:lookup', { ...contentScript, id: 'evil' }, opts)).toBe(false);
  });

  const route = createRouter(
    {
      'ui:clear-cache': () => ({ cleared: 3 }),
      'ui:test-key': () => {
        throw new ApiError({ kind: 'invalid-key', message: 'Invalid API key', status: 403 });
      },
      'cs:lookup': (payload) => payload.ips.map((ip) => ({ ip, status: 'skipped' as const, reason: 'private' as const })),
      'ui:get-status': () => {
        throw new TypeError('boom');
      },
    },
    { ...opts, parse: parseEnvelope },
  );

  it('answers a valid message with the handler value', async () => {
    expect(await route({ type: 'ui:clear-cache', payload: {} }, popup)).toEqual({ ok: true, value: { cleared: 3 } });
  });

  it('refuses unknown messages and invalid payloads with a typed error', async () => {
    expect(await route({ type: 'ui:format-disk', payload: {} }, popup)).toMatchObject({ ok: false, error: { kind: 'invalid-message' } });
    expect(await route('hello', popup)).toMatchObject({ ok: false, error: { kind: 'invalid-message' } });
    const bad = await route({ type: 'cs:lookup', payload: { ips: [], priority: 'visible' } }, contentScript);
    expect(bad).toMatchObject({ ok: false, error: { kind: 'invalid-message', message: expect.stringContaining('ips') } });
    const extra = await route({ type: 'cs:lookup', payload: { ips: ['1.2.3.4'], priority: 'manual' } }, contentScript);
    expect(extra).toMatchObject({ ok: false, error: { kind: 'invalid-message' } });
  });

  it('refuses a privileged message from a content script', async () => {
    expect(await route({ type: 'ui:clear-cache', payload: {} }, contentScript)).toMatchObject({
      ok: false,
      error: { kind: 'forbidden' },
    });
  });

  it('turns ApiError and bugs into typed errors', async () => {
    expect(await route({ type: 'ui:test-key', payload: {} }, popup)).toEqual({
      ok: false,
      error: { kind: 'invalid-key', message: 'Invalid API key', status: 403 },
    });
    expect(await route({ type: 'ui:get-status', payload: {} }, popup)).toEqual({
      ok: false,
      error: { kind: 'internal', message: 'boom' },
    });
  });

  it('stays silent on messages addressed to someone else', async () => {
    expect(await route({ type: 'tab:get-page-ips', payload: {} }, popup)).toBeUndefined();
  });
});
