/**
 * Single sign-on against a real OpenID provider (oidc-provider on a free port): its JWT access
 * tokens are accepted where personal tokens are, and every way a token can be wrong is refused
 * with the API's 403 body, never quoting the token. Embedded store, the simulator as upstream.
 */
import { createServer } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SignJWT, UnsecuredJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ASYMMETRIC_ALGORITHMS, type OidcSettings } from '../../../gateway/src/config';
import { openEmbeddedStore } from '../../../gateway/src/store/embedded-store';
import type { Store } from '../../../gateway/src/store/types';
import { MESSAGES } from '../../../gateway/src/wire';
import { startSimulator, type Simulator } from '../../sim/server';
import { FIXTURES } from '../../sim/dataset';
import { DEMO_KEY } from '../../sim/keys';
import { CLIENTS, GATEWAY_AUDIENCE, OTHER_AUDIENCE, signingKey, startProvider, type TestProvider } from './oidc-provider';
import { cleanup, freePort } from './redis-servers';
import { startGateway, tokenFor, type Harness } from './gateway-harness';

let sim: Simulator;
let idp: TestProvider;
let impostor: TestProvider;
let store: Store;
let harness: Harness;
let base: string;
let dir: string;
/** The gateway's clock runs this far ahead of the provider's (expiry without waiting). */
let skewMs = 0;

const settingsFor = (issuer: string, extra: Partial<OidcSettings> = {}): OidcSettings => ({
  issuer,
  audience: GATEWAY_AUDIENCE,
  algorithms: [...ASYMMETRIC_ALGORITHMS],
  group: 'soc-analysts',
  groupClaim: 'groups',
  budget: 250,
  ...extra,
});

async function listening(h: Harness) {
  await h.gateway.app.listen({ host: '127.0.0.1', port: 0 });
  return `http://127.0.0.1:${(h.gateway.app.server.address() as { port: number }).port}/api/v1`;
}

beforeAll(async () => {
  const key = await signingKey();
  [sim, idp, impostor] = await Promise.all([startSimulator(), startProvider({ key }), startProvider({ key })]);
  dir = mkdtempSync(path.join(tmpdir(), 'gw-sso-'));
  store = openEmbeddedStore({ dir, flushMs: 0 });
  harness = await startGateway({ store, upstreamUrl: sim.baseUrl, key: DEMO_KEY, oidc: settingsFor(idp.issuer), now: () => Date.now() + skewMs });
  base = await listening(harness);
});

afterAll(async () => {
  await harness.gateway.close();
  await Promise.all([sim.close(), idp.close(), impostor.close()]);
  cleanup(dir);
});

const bulk = (credential: string, header: 'authorization' | 'x-api-key' = 'authorization', at = base) =>
  fetch(`${at}/checkIP/bulk`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(header === 'authorization' ? { Authorization: `Bearer ${credential}` } : { 'X-API-Key': credential }) },
    body: JSON.stringify({ ips: [FIXTURES.critical.ip] }),
  });

async function expectRefused(response: Response, credential: string, message: string = MESSAGES.invalidToken) {
  const text = await response.text();
  expect(response.status).toBe(403);
  expect(JSON.parse(text)).toEqual({ error: true, statusCode: 403, message });
  for (const part of credential.split('.').filter(Boolean)) expect(text).not.toContain(part);
}

describe('single sign-on with a real OpenID provider', () => {
  it('accepts the provider JWT where a personal token goes, in both header modes, naming the analyst by email', async () => {
    const jwt = await idp.clientToken(CLIENTS.soc);
    for (const header of ['authorization', 'x-api-key'] as const) {
      const response = await bulk(jwt, header);
      expect(response.status).toBe(200);
      const body = (await response.json()) as { results: { data: { ip: string } | null }[] };
      expect(body.results[0]!.data?.ip).toBe(FIXTURES.critical.ip);
    }
    const account = (await (await fetch(`${base}/account`, { headers: { Authorization: `Bearer ${jwt}` } })).json()) as { api_key: { name: string; max_api_requests: number | null; current_usage: number } };
    expect(account.api_key).toMatchObject({ name: 'sso:alice@corp.example', max_api_requests: 250, current_usage: 1 });
    const audit = harness.logs.filter((l) => l.includes('"audit":"lookup"')).map((l) => JSON.parse(l) as { token: string });
    expect(audit.map((a) => a.token)).toContain('sso:alice@corp.example');
    expect(harness.logs.join('\n')).not.toContain(jwt.split('.')[2]);
  });

  it('refuses an expired token with the API expired-key 403', async () => {
    const jwt = await idp.clientToken(CLIENTS.soc);
    skewMs = 10 * 60_000;
    try {
      await expectRefused(await bulk(jwt), jwt, MESSAGES.expiredToken);
    } finally {
      skewMs = 0;
    }
  });

  it('refuses a token meant for another audience', async () => {
    const jwt = await idp.clientToken(CLIENTS.soc, OTHER_AUDIENCE);
    await expectRefused(await bulk(jwt), jwt);
  });

  it('refuses a token of another issuer, even one signed with the same key', async () => {
    const jwt = await impostor.clientToken(CLIENTS.soc);
    await expectRefused(await bulk(jwt), jwt);
  });

  it('refuses a token whose signature was tampered with, or whose claims were', async () => {
    const jwt = await idp.clientToken(CLIENTS.soc);
    const [header, payload, signature] = jwt.split('.') as [string, string, string];
    const flipped = signature.slice(0, 10) + (signature[10] === 'A' ? 'B' : 'A') + signature.slice(11);
    await expectRefused(await bulk(`${header}.${payload}.${flipped}`), `${header}.${payload}.${flipped}`);
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
    const forged = Buffer.from(JSON.stringify({ ...claims, email: 'ceo@corp.example' })).toString('base64url');
    await expectRefused(await bulk(`${header}.${forged}.${signature}`), `${header}.${forged}.${signature}`);
  });

  it('refuses unsigned and shared-secret tokens carrying the right claims', async () => {
    const claims = { sub: 'mallory', email: 'mallory@corp.example', groups: ['soc-analysts'] };
    const unsigned = new UnsecuredJWT(claims).setIssuer(idp.issuer).setAudience(GATEWAY_AUDIENCE).setIssuedAt().setExpirationTime('5m').encode();
    await expectRefused(await bulk(unsigned), unsigned);
    const hs = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', kid: 'test-key-1' }).setIssuer(idp.issuer).setAudience(GATEWAY_AUDIENCE).setIssuedAt().setExpirationTime('5m').sign(new TextEncoder().encode('x'.repeat(32)));
    await expectRefused(await bulk(hs), hs);
  });

  it('refuses a signed-in analyst outside the required group', async () => {
    const jwt = await idp.clientToken(CLIENTS.outsider);
    await expectRefused(await bulk(jwt), jwt, MESSAGES.notInGroup);
  });

  it('keeps personal tokens working beside sign-on', async () => {
    const token = await tokenFor(store, 'carol');
    expect((await bulk(token)).status).toBe(200);
  });
});

describe('an identity provider that cannot be reached', () => {
  it('answers 503 in the API shape while discovery fails, and keeps serving personal tokens', async () => {
    const dead = `http://127.0.0.1:${await freePort()}`;
    const h = await startGateway({ store, upstreamUrl: sim.baseUrl, key: DEMO_KEY, oidc: settingsFor(dead) });
    try {
      const at = await listening(h);
      const jwt = await idp.clientToken(CLIENTS.soc);
      const response = await bulk(jwt, 'authorization', at);
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('5');
      expect(await response.json()).toEqual({ error: true, statusCode: 503, message: MESSAGES.identityProviderDown });
      const token = await tokenFor(store, 'dave');
      expect((await bulk(token, 'authorization', at)).status).toBe(200);
    } finally {
      await h.gateway.close().catch(() => {});
    }
  });

  it('answers 503 when the discovery document names a key set that cannot be fetched', async () => {
    const deadJwks = `http://127.0.0.1:${await freePort()}/jwks`;
    const port = await freePort();
    const issuer = `http://127.0.0.1:${port}`;
    const discovery = createServer((_req, res) => res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ issuer, jwks_uri: deadJwks })));
    await new Promise<void>((resolve) => discovery.listen(port, '127.0.0.1', resolve));
    const h = await startGateway({ store, upstreamUrl: sim.baseUrl, key: DEMO_KEY, oidc: settingsFor(issuer) });
    try {
      const at = await listening(h);
      const jwt = await idp.clientToken(CLIENTS.soc);
      const response = await bulk(jwt, 'authorization', at);
      expect(response.status).toBe(503);
      expect(await response.json()).toMatchObject({ message: MESSAGES.identityProviderDown });
    } finally {
      await h.gateway.close().catch(() => {});
      discovery.closeAllConnections();
      await new Promise((resolve) => discovery.close(resolve));
    }
  });
});
