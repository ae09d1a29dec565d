/**
 * The team gateway's ended session: a 403 with `code: "sign_in_again"` is its own error kind
 * (not "invalid key"), and with renewKey the request goes once more with a renewed session.
 */
import { describe, expect, it, vi } from 'vitest';
import { createApiClient } from '../../../lib/api';
import { errorForStatus } from '../../../lib/api/status-errors';
import type { ApiClientOptions } from '../../../lib/api/types';
import { ERROR_TEXT } from '../../../lib/ui/shared/error-messages';
import { DOC_SINGLE } from './wire-examples';

const ENDED = { error: true, statusCode: 403, message: 'Expired or revoked session key: sign in again with your organisation', code: 'sign_in_again' };

function gateway(validTokens: Set<string>) {
  const sent: string[] = [];
  const fetch = (async (_input: RequestInfo | URL, init: RequestInit = {}) => {
    const auth = new Headers(init.headers).get('authorization') ?? '';
    sent.push(auth);
    return validTokens.has(auth.replace('Bearer ', '')) ? Response.json(DOC_SINGLE) : Response.json(ENDED, { status: 403 });
  }) as typeof globalThis.fetch;
  return { fetch, sent };
}

const options = (overrides: Partial<ApiClientOptions>): ApiClientOptions => ({
  baseUrl: 'https://gw.example/api/v1',
  apiKey: 'iplgs_old-session-0123456789',
  authHeader: 'authorization',
  retry: { limit: 0 },
  ...overrides,
});

describe('an ended gateway session', () => {
  it('maps to sign-in-again, and a plain invalid key still to invalid-key', () => {
    expect(errorForStatus(403, ENDED, JSON.stringify(ENDED)).kind).toBe('sign-in-again');
    expect(errorForStatus(403, { ...ENDED, code: undefined }, '').kind).toBe('invalid-key');
    expect(errorForStatus(401, ENDED, '').kind).toBe('missing-key');
    expect(ERROR_TEXT['sign-in-again'].title).toBe('Sign in again');
    expect(ERROR_TEXT['sign-in-again'].action).toBe('open-options');
  });

  it('without a renewal: fails as sign-in-again, never retried', async () => {
    const { fetch, sent } = gateway(new Set());
    await expect(createApiClient(options({ fetch })).checkIp('185.220.101.1')).rejects.toMatchObject({ kind: 'sign-in-again' });
    expect(sent).toHaveLength(1);
  });

  it('renews once and sends again with the new session; the next request uses it directly', async () => {
    const { fetch, sent } = gateway(new Set(['iplgs_new-session-0123456789']));
    const renewKey = vi.fn(async () => 'iplgs_new-session-0123456789');
    const client = createApiClient(options({ fetch, renewKey }));
    await expect(client.checkIp('185.220.101.1')).resolves.toBeDefined();
    await client.checkIp('185.220.101.2');
    expect(renewKey).toHaveBeenCalledTimes(1);
    expect(sent).toEqual(['Bearer iplgs_old-session-0123456789', 'Bearer iplgs_new-session-0123456789', 'Bearer iplgs_new-session-0123456789']);
  });

  it('a renewal that fails leaves the refusal, without quoting any token', async () => {
    const { fetch } = gateway(new Set());
    const error = await createApiClient(options({ fetch, renewKey: async () => null })).checkIp('185.220.101.1').catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'sign-in-again' });
    expect(String((error as Error).message)).not.toMatch(/iplgs_/);
  });
});
