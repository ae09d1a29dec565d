/**
 * "Sign in with your organisation" end to end: the gateway runs the code flow against a real
 * OpenID provider (oidc-provider on a free port); the test is the browser of launchWebAuthFlow,
 * following redirects and filling the provider's login form, until the extension's redirect URL
 * receives the gateway's session. Then: lookups, refresh, sign-out, an expired session.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ASYMMETRIC_ALGORITHMS, type SignInSettings } from '../../../gateway/src/config';
import { openEmbeddedStore } from '../../../gateway/src/store/embedded-store';
import { openRedisStore } from '../../../gateway/src/store/redis-store';
import type { Store } from '../../../gateway/src/store/types';
import { ERROR_CODES, MESSAGES } from '../../../gateway/src/wire';
import { startSimulator, type Simulator } from '../../sim/server';
import { FIXTURES } from '../../sim/dataset';
import { DEMO_KEY } from '../../sim/keys';
import { GATEWAY_AUDIENCE, startProvider, type TestProvider } from './oidc-provider';
import { cleanup, freePort, startRedis } from './redis-servers';
import { startGateway, type Harness } from './gateway-harness';

const EXTENSION_REDIRECT = 'https://abcdefghijklmnopabcdefghijklmnop.chromiumapp.org/';
const CLIENT = { clientId: 'ipl-gateway', clientSecret: 'gateway-client-secret-0123456789abcdef' };
const SESSION_TTL_MS = 60_000;
const SIGN_IN_MAX_MS = 3_600_000;

let sim: Simulator;
let idp: TestProvider;
let store: Store;
let harness: Harness;
let origin: string;
let dir: string;
let skewMs = 0;

beforeAll(async () => {
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  [sim, idp] = await Promise.all([
    startSimulator(),
    startProvider({
      codeFlow: {
        ...CLIENT,
        redirectUri: `${origin}/auth/callback`,
        accounts: { alice: { email: 'alice@corp.example', groups: ['soc-analysts'] }, mallory: { email: 'mallory@corp.example', groups: ['finance'] } },
      },
    }),
  ]);
  dir = mkdtempSync(path.join(tmpdir(), 'gw-signin-'));
  store = openEmbeddedStore({ dir, flushMs: 0 });
  const signIn: SignInSettings = { ...CLIENT, publicUrl: origin, scopes: 'openid email groups', redirects: null, sessionTtlMs: SESSION_TTL_MS, signInMaxMs: SIGN_IN_MAX_MS };
  harness = await startGateway({
    store,
    upstreamUrl: sim.baseUrl,
    key: DEMO_KEY,
    oidc: { issuer: idp.issuer, audience: GATEWAY_AUDIENCE, algorithms: [...ASYMMETRIC_ALGORITHMS], group: 'soc-analysts', groupClaim: 'groups', budget: null },
    signIn,
    now: () => Date.now() + skewMs,
  });
  await harness.gateway.app.listen({ host: '127.0.0.1', port });
});

afterAll(async () => {
  await harness.gateway.close();
  await Promise.all([sim.close(), idp.close()]);
  cleanup(dir);
});

interface Followed {
  /** The extension redirect URL the flow ended at, fragment included. */
  final: URL;
  /** Every URL the browser was sent to on the way. */
  visited: URL[];
}

/**
 * What launchWebAuthFlow's window does: follow redirects with cookies, fill the provider's login
 * form as `login`, confirm its consent form, and stop at the extension's redirect URL.
 */
async function signInAs(login: string, start = `${origin}/auth/login?redirect_uri=${encodeURIComponent(EXTENSION_REDIRECT)}`): Promise<Followed> {
  const cookies = new Map<string, string>();
  const visited: URL[] = [];
  let url = new URL(start);
  let init: RequestInit = {};
  for (let step = 0; step < 20; step++) {
    visited.push(url);
    const response = await fetch(url, { ...init, redirect: 'manual', headers: { ...(init.headers as Record<string, string>), cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') } });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      cookies.set(pair!.slice(0, eq), pair!.slice(eq + 1));
    }
    init = {};
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location) {
      url = new URL(location, url);
      if (url.href.startsWith(EXTENSION_REDIRECT)) return { final: url, visited };
      continue;
    }
    const html = await response.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    if (response.status !== 200 || !action) throw new Error(`sign-in stopped at ${url.pathname} (${response.status}): ${html.slice(0, 200)}`);
    const fields = new URLSearchParams();
    for (const [, name, value] of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)) fields.set(name!, value!);
    if (fields.get('prompt') === 'login') {
      fields.set('login', login);
      fields.set('password', 'any password');
    }
    url = new URL(action, url);
    init = { method: 'POST', body: fields, headers: { 'content-type': 'application/x-www-form-urlencoded' } };
  }
  throw new Error('too many steps');
}

const fragmentOf = (url: URL) => Object.fromEntries(new URLSearchParams(url.hash.slice(1)));

const lookup = (sessionToken: string, at = origin) =>
  fetch(`${at}/api/v1/checkIP/bulk`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${sessionToken}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ ips: [FIXTURES.critical.ip] }),
  });

const refresh = (refreshToken: string, at = origin) => fetch(`${at}/auth/refresh`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ refresh_token: refreshToken }) });

async function expectSignInAgain(response: Response) {
  expect(response.status).toBe(403);
  expect(await response.json()).toEqual({ error: true, statusCode: 403, message: MESSAGES.signInAgain, code: ERROR_CODES.signInAgain });
}

describe('sign in with the organisation (code flow through a real OpenID provider)', () => {
  it('says that sign-in is on', async () => {
    expect(await (await fetch(`${origin}/auth/info`)).json()).toEqual({ sign_in: true, issuer: idp.issuer });
  });

  it('signs in with PKCE, hands the extension a session in the fragment, and the session looks up IPs', async () => {
    const { final, visited } = await signInAs('alice');
    const authorize = visited.find((u) => u.href.startsWith(`${idp.issuer}/auth?`))!;
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorize.searchParams.get('redirect_uri')).toBe(`${origin}/auth/callback`);
    expect(authorize.searchParams.get('nonce')).toBeTruthy();
    const session = fragmentOf(final);
    expect(session).toMatchObject({ token_type: 'Bearer', expires_in: String(SESSION_TTL_MS / 1000), analyst: 'sso:alice@corp.example' });
    expect(session.session_token).toMatch(/^iplgs_/);
    expect(session.refresh_token).toMatch(/^iplgr_/);
    // Nothing secret ever travels in a query string the browser history or a referrer keeps.
    for (const u of visited) expect(u.search).not.toContain(CLIENT.clientSecret);
    const response = await lookup(session.session_token!);
    expect(response.status).toBe(200);
    const account = (await (await fetch(`${origin}/api/v1/account`, { headers: { 'X-API-Key': session.session_token! } })).json()) as { api_key: { name: string } };
    expect(account.api_key.name).toBe('sso:alice@corp.example');
    expect(harness.logs.some((l) => l.includes('"audit":"sign-in"') && l.includes('sso:alice@corp.example'))).toBe(true);
    const logs = harness.logs.join('\n');
    for (const secret of [session.session_token!, session.refresh_token!, CLIENT.clientSecret]) expect(logs).not.toContain(secret);
  });

  it('refreshes: a new pair works, the spent refresh token and the old session do not', async () => {
    const first = fragmentOf((await signInAs('alice')).final);
    const response = await refresh(first.refresh_token!);
    expect(response.status).toBe(200);
    const next = (await response.json()) as { session_token: string; refresh_token: string; expires_in: number };
    expect(next.expires_in).toBe(SESSION_TTL_MS / 1000);
    expect((await lookup(next.session_token)).status).toBe(200);
    await expectSignInAgain(await refresh(first.refresh_token!));
    await expectSignInAgain(await lookup(first.session_token!));
  });

  it('signs out: the session and its refresh token stop working', async () => {
    const session = fragmentOf((await signInAs('alice')).final);
    const out = await fetch(`${origin}/auth/logout`, { method: 'POST', headers: { Authorization: `Bearer ${session.session_token}`, 'Content-Type': 'application/json' }, body: JSON.stringify({}) });
    expect(await out.json()).toEqual({ signed_out: true });
    await expectSignInAgain(await lookup(session.session_token!));
    await expectSignInAgain(await refresh(session.refresh_token!));
  });

  it('an expired session says "sign in again" with its stable code; refresh works until the sign-in maximum', async () => {
    const session = fragmentOf((await signInAs('alice')).final);
    skewMs = SESSION_TTL_MS + 1_000;
    try {
      // A burst of lookups meeting the ended session each say so: never the bad-token 429.
      for (let i = 0; i < 12; i++) await expectSignInAgain(await lookup(session.session_token!));
      const renewed = (await (await refresh(session.refresh_token!)).json()) as { session_token: string; refresh_token: string };
      expect((await lookup(renewed.session_token)).status).toBe(200);
      skewMs = SIGN_IN_MAX_MS + 1_000;
      await expectSignInAgain(await refresh(renewed.refresh_token));
      await expectSignInAgain(await lookup(renewed.session_token));
    } finally {
      skewMs = 0;
    }
  });

  it('refuses an analyst outside the required group, telling the extension why', async () => {
    const { final } = await signInAs('mallory');
    expect(fragmentOf(final)).toEqual({ error: 'not_in_group' });
  });

  it('hands a session only to an extension redirect URL', async () => {
    for (const target of ['https://evil.example/', 'http://abcdefghijklmnopabcdefghijklmnop.chromiumapp.org/', 'https://abcdefghijklmnopabcdefghijklmnop.chromiumapp.org.evil.example/', 'javascript:alert(1)']) {
      const response = await fetch(`${origin}/auth/login?redirect_uri=${encodeURIComponent(target)}`, { redirect: 'manual' });
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({ error: true, statusCode: 400, message: MESSAGES.badRedirect });
    }
    const firefox = await fetch(`${origin}/auth/login?redirect_uri=${encodeURIComponent(`https://${'a1'.repeat(20)}.extensions.allizom.org/`)}`, { redirect: 'manual' });
    expect(firefox.status).toBe(302);
  });

  it('uses each sign-in state once: a replayed callback is refused', async () => {
    const { visited } = await signInAs('alice');
    const callback = visited.find((u) => u.pathname === '/auth/callback')!;
    const replay = await fetch(callback, { redirect: 'manual' });
    expect(replay.status).toBe(400);
    expect(await replay.json()).toMatchObject({ message: MESSAGES.signInStale });
  });
});

describe('sign-in across two replicas on one real redis-server', () => {
  it('a session made on one replica is refreshed and signed out on the other', async () => {
    const redis = await startRedis();
    const ports = [await freePort(), await freePort()];
    const origins = ports.map((p) => `http://127.0.0.1:${p}`);
    const provider = await startProvider({ codeFlow: { ...CLIENT, redirectUri: `${origins[0]}/auth/callback`, accounts: { alice: { email: 'alice@corp.example', groups: ['soc-analysts'] } } } });
    const replicas: Harness[] = [];
    try {
      for (const port of ports) {
        const h = await startGateway({
          store: await openRedisStore({ urls: [redis.url] }),
          upstreamUrl: sim.baseUrl,
          key: DEMO_KEY,
          oidc: { issuer: provider.issuer, audience: GATEWAY_AUDIENCE, algorithms: [...ASYMMETRIC_ALGORITHMS], group: null, groupClaim: 'groups', budget: null },
          signIn: { ...CLIENT, publicUrl: origins[0]!, scopes: 'openid email', redirects: [EXTENSION_REDIRECT], sessionTtlMs: SESSION_TTL_MS, signInMaxMs: SIGN_IN_MAX_MS },
        });
        replicas.push(h);
        await h.gateway.app.listen({ host: '127.0.0.1', port });
      }
      const session = fragmentOf((await signInAs('alice', `${origins[0]}/auth/login?redirect_uri=${encodeURIComponent(EXTENSION_REDIRECT)}`)).final);
      expect((await lookup(session.session_token!, origins[1])).status).toBe(200);
      const renewed = (await (await refresh(session.refresh_token!, origins[1])).json()) as { session_token: string; refresh_token: string };
      await expectSignInAgain(await lookup(session.session_token!, origins[0]));
      expect((await lookup(renewed.session_token, origins[0])).status).toBe(200);
      await fetch(`${origins[0]}/auth/logout`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ refresh_token: renewed.refresh_token }) });
      await expectSignInAgain(await lookup(renewed.session_token, origins[1]));
    } finally {
      for (const h of replicas) await h.gateway.close().catch(() => {});
      await provider.close();
      await redis.stop();
    }
  });
});
