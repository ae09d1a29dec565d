/**
 * The worker's sign-in with the organisation, with its browser parts replaced: the redirect
 * fragment (zod), when a session is renewed (a fake clock), refresh and its failures, sign-out.
 * The real flow against a gateway and an OpenID provider is test/e2e/gateway-sign-in.spec.ts.
 */
import { describe, expect, it, vi } from 'vitest';
import { createGatewaySignIn, parseSignInRedirect, refreshAt, type SignInDeps } from '@/lib/background/gateway-sign-in';
import type { GatewaySession } from '@/lib/settings';

const GW = 'https://gw.example';
const R = 'https://abcdefghijklmnopabcdefghijklmnop.chromiumapp.org/';
const S1 = 'iplgs_session-one-0123456789abcdef';
const R1 = 'iplgr_refresh-one-0123456789abcdef';
const S2 = 'iplgs_session-two-0123456789abcdef';
const R2 = 'iplgr_refresh-two-0123456789abcdef';
const fragment = (fields: Record<string, string>) => `${R}#${new URLSearchParams(fields)}`;
const GRANT = { session_token: S1, refresh_token: R1, token_type: 'Bearer', expires_in: '900', analyst: 'sso:alice@corp.example' };

describe('the sign-in redirect', () => {
  it('gives the tokens of a finished sign-in', () => {
    expect(parseSignInRedirect(fragment(GRANT))).toEqual({ ok: true, grant: { ...GRANT, expires_in: 900 } });
  });

  it('says what a gateway error code means, and quotes an unknown one cleaned', () => {
    expect(parseSignInRedirect(fragment({ error: 'not_in_group' }))).toMatchObject({ ok: false, message: expect.stringMatching(/not in the group/) });
    expect(parseSignInRedirect(fragment({ error: 'access_denied' }))).toMatchObject({ ok: false, message: expect.stringMatching(/refused or cancelled/) });
    expect(parseSignInRedirect(fragment({ error: 'weird<b>code' }))).toEqual({ ok: false, message: 'The sign-in failed (weirdbcode).' });
  });

  it('refuses a fragment that is not a session, without quoting it', () => {
    for (const bad of [{ ...GRANT, token_type: 'MAC' }, { ...GRANT, expires_in: '-5' }, { ...GRANT, session_token: 'short' }, { analyst: 'x' }]) {
      const result = parseSignInRedirect(fragment(bad));
      expect(result).toMatchObject({ ok: false, message: expect.stringMatching(/does not understand/) });
      expect(JSON.stringify(result)).not.toContain('iplg');
    }
    expect(parseSignInRedirect('not a url')).toMatchObject({ ok: false });
  });
});

describe('when a session is renewed', () => {
  it('a fifth of its life before it ends, between 10 s and 2 min before', () => {
    const t = 1_000_000;
    expect(refreshAt({ expiresAt: t + 900_000, signedInAt: t }, t)).toBe(t + 900_000 - 120_000);
    expect(refreshAt({ expiresAt: t + 300_000, signedInAt: t }, t)).toBe(t + 240_000);
    expect(refreshAt({ expiresAt: t + 20_000, signedInAt: t }, t)).toBe(t + 10_000);
    expect(refreshAt({ expiresAt: t + 5_000, signedInAt: t }, t)).toBe(t);
  });
});

/** A gateway with /auth routes, a session store in memory and a fake clock. */
function harness(options: { refresh?: (body: { refresh_token: string }) => Response; info?: unknown; launch?: string } = {}) {
  let now = 1_000_000;
  let stored: GatewaySession | null = null;
  const scheduled: (number | null)[] = [];
  const calls: { url: string; init: RequestInit }[] = [];
  const fetch = vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = String(input);
    calls.push({ url, init });
    if (url.endsWith('/auth/info')) return Response.json(options.info ?? { sign_in: true, issuer: 'https://idp.example' });
    if (url.endsWith('/auth/refresh')) return (options.refresh ?? (() => Response.json({ ...GRANT, session_token: S2, refresh_token: R2, expires_in: 900 })))(JSON.parse(String(init.body)));
    if (url.endsWith('/auth/logout')) return Response.json({ signed_out: true });
    return new Response('no', { status: 404 });
  }) as unknown as typeof globalThis.fetch;
  const launch = vi.fn(async (_url: string) => options.launch ?? fragment(GRANT));
  const deps: Partial<SignInDeps> = {
    fetch,
    now: () => now,
    launch,
    redirectUrl: () => R,
    read: async () => stored,
    write: async (s) => void (stored = s),
    gatewayUrl: async () => GW,
    schedule: (at) => void scheduled.push(at),
  };
  return { signIn: createGatewaySignIn(deps), launch, calls, scheduled, stored: () => stored, advance: (ms: number) => (now += ms), now: () => now };
}

describe('signing in, refreshing and signing out', () => {
  it('opens <gateway>/auth/login with the extension redirect URL, keeps the session, and schedules its renewal', async () => {
    const h = harness();
    const state = await h.signIn.signIn();
    expect(h.launch).toHaveBeenCalledWith(`${GW}/auth/login?redirect_uri=${encodeURIComponent(R)}`);
    expect(state).toEqual({ signedIn: true, analyst: 'sso:alice@corp.example', expiresAt: h.now() + 900_000, gatewayUrl: GW });
    expect(JSON.stringify(state)).not.toContain('iplg');
    expect(h.stored()).toMatchObject({ sessionToken: S1, refreshToken: R1, gatewayUrl: GW });
    expect(h.scheduled).toEqual([h.now() + 780_000]);
  });

  it('refuses to start when the gateway has no sign-in, and keeps nothing after a failed one', async () => {
    await expect(harness({ info: { sign_in: false, issuer: null } }).signIn.signIn()).rejects.toThrow(/no sign-in with the organisation/);
    const h = harness({ launch: fragment({ error: 'not_in_group' }) });
    await expect(h.signIn.signIn()).rejects.toThrow(/not in the group/);
    expect(h.stored()).toBeNull();
  });

  it('refreshes with the refresh token once for concurrent asks, and renews the schedule', async () => {
    const h = harness();
    await h.signIn.signIn();
    h.advance(800_000);
    const [a, b] = await Promise.all([h.signIn.refresh(), h.signIn.refresh()]);
    expect([a, b]).toEqual([S2, S2]);
    const refreshes = h.calls.filter((c) => c.url.endsWith('/auth/refresh'));
    expect(refreshes.map((c) => JSON.parse(String(c.init.body)))).toEqual([{ refresh_token: R1 }]);
    expect(h.stored()).toMatchObject({ sessionToken: S2, refreshToken: R2, expiresAt: h.now() + 900_000 });
    expect(h.scheduled.at(-1)).toBe(h.now() + 780_000);
  });

  it('drops the session when the gateway says sign in again; keeps it when the gateway is unreachable', async () => {
    const ended = harness({ refresh: () => Response.json({ error: true, statusCode: 403, message: 'x', code: 'sign_in_again' }, { status: 403 }) });
    await ended.signIn.signIn();
    expect(await ended.signIn.refresh()).toBeNull();
    expect(ended.stored()).toBeNull();
    expect(ended.scheduled.at(-1)).toBeNull();
    expect(await ended.signIn.state()).toEqual({ signedIn: false });

    const down = harness({ refresh: () => { throw new TypeError('Failed to fetch'); } });
    await down.signIn.signIn();
    expect(await down.signIn.refresh()).toBeNull();
    expect(down.stored()).toMatchObject({ sessionToken: S1 });
    expect(down.scheduled.at(-1)).toBe(down.now() + 30_000);
  });

  it('signs out at the gateway with both tokens and drops them', async () => {
    const h = harness();
    await h.signIn.signIn();
    expect(await h.signIn.signOut()).toEqual({ signedIn: false });
    const logout = h.calls.find((c) => c.url === `${GW}/auth/logout`)!;
    expect(new Headers(logout.init.headers).get('authorization')).toBe(`Bearer ${S1}`);
    expect(JSON.parse(String(logout.init.body))).toEqual({ refresh_token: R1 });
    expect(h.stored()).toBeNull();
    expect(h.scheduled.at(-1)).toBeNull();
  });
});
