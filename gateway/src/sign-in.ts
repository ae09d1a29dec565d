/**
 * "Sign in with your organisation" for the extension (browser.identity.launchWebAuthFlow):
 * the gateway runs the OpenID Connect code flow as a confidential client (openid-client) and
 * hands the extension a short-lived gateway session token and a refresh token.
 *
 *   GET  /auth/info                   whether sign-in is on (the extension asks before offering it)
 *   GET  /auth/login?redirect_uri=X   X must be an extension redirect URL; PKCE, state and nonce
 *                                     are kept in the store (any replica may get the callback)
 *   GET  /auth/callback               code → tokens with the client secret; the ID token checked;
 *                                     302 to X#session_token=…&refresh_token=…&expires_in=…
 *                                     (or X#error=… when the sign-in failed or was refused)
 *   POST /auth/refresh {refresh_token}              → a new pair (the old refresh token is spent)
 *   POST /auth/logout  {refresh_token} and/or Bearer → both stop working on every replica
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import * as client from 'openid-client';
import { EXTENSION_REDIRECTS, type OidcSettings, type SignInSettings } from './config';
import { identityOf, inGroup } from './oidc';
import type { Sessions, IssuedSession } from './sessions';
import type { Store } from './store/types';
import { credentialOf, hashToken } from './tokens';
import { ERROR_CODES, errorBody, MESSAGES } from './wire';

/** How long a started sign-in may take (the login page, a second factor). */
const SIGN_IN_WINDOW_MS = 10 * 60 * 1000;
const DISCOVERY_RETRY_MS = 5_000;

export interface SignInParts {
  store: Store;
  sessions: Sessions | null;
  oidc: OidcSettings | null;
  signIn: SignInSettings | null;
  fetch?: typeof fetch;
  now: () => number;
}

interface PendingSignIn {
  verifier: string;
  nonce: string;
  redirectUri: string;
}

export function redirectAllowed(signIn: Pick<SignInSettings, 'redirects'>, uri: string): boolean {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return false;
  }
  // Credentials in a URL fragment go nowhere but to the page at that URL: only the extension's own.
  if (url.protocol !== 'https:' || url.username || url.password || url.hash) return false;
  // A listed URL allows itself, and the paths under it when it ends with "/" (never a longer host).
  const listed = (allowed: string) => uri === allowed || (allowed.endsWith('/') && uri.startsWith(allowed));
  return signIn.redirects ? signIn.redirects.some(listed) : EXTENSION_REDIRECTS.some((pattern) => pattern.test(uri));
}

function sessionBody(issued: IssuedSession) {
  return { session_token: issued.sessionToken, refresh_token: issued.refreshToken, token_type: 'Bearer', expires_in: issued.expiresIn, analyst: issued.analyst };
}

/** Hands a result to the extension: its redirect URL with the result in the fragment. */
function toExtension(reply: FastifyReply, redirectUri: string, fields: Record<string, string | number>) {
  const fragment = new URLSearchParams(Object.entries(fields).map(([k, v]) => [k, String(v)]));
  return reply.header('Cache-Control', 'no-store').header('Referrer-Policy', 'no-referrer').redirect(`${redirectUri}#${fragment}`, 302);
}

export function registerSignIn(app: FastifyInstance, parts: SignInParts): void {
  const { store, sessions, oidc, signIn, now } = parts;
  app.get('/auth/info', async () => ({ sign_in: !!(signIn && sessions), issuer: signIn && oidc ? oidc.issuer : null }));
  if (!signIn || !oidc || !sessions) return;

  const callbackUrl = `${signIn.publicUrl}/auth/callback`;
  let configuration: Promise<client.Configuration> | null = null;
  let failedAt = -Infinity;
  /** The provider's metadata, discovered once; a failure is retried after a pause. */
  const provider = async () => {
    if (now() - failedAt < DISCOVERY_RETRY_MS) throw new Error('identity provider discovery failed recently');
    configuration ??= client
      .discovery(new URL(oidc.issuer), signIn.clientId, signIn.clientSecret, undefined, {
        // Plain http is allowed by the configuration for a provider on this machine only.
        ...(new URL(oidc.issuer).protocol === 'http:' ? { execute: [client.allowInsecureRequests] } : {}),
        ...(parts.fetch ? { [client.customFetch]: parts.fetch as client.CustomFetch } : {}),
        timeout: 5,
      })
      .catch((error: unknown) => {
        failedAt = now();
        configuration = null;
        throw error;
      });
    return configuration;
  };
  const unavailable = (reply: FastifyReply, message: string = MESSAGES.identityProviderDown) => reply.code(503).header('Retry-After', '5').send(errorBody(503, message));

  app.get('/auth/login', async (request, reply) => {
    const redirectUri = (request.query as Record<string, unknown>).redirect_uri;
    if (typeof redirectUri !== 'string' || !redirectAllowed(signIn, redirectUri)) return reply.code(400).send(errorBody(400, MESSAGES.badRedirect));
    let config: client.Configuration;
    try {
      config = await provider();
    } catch {
      return unavailable(reply);
    }
    const state = client.randomState();
    const pending: PendingSignIn = { verifier: client.randomPKCECodeVerifier(), nonce: client.randomNonce(), redirectUri };
    try {
      await store.putSecret('signin', hashToken(state), pending, SIGN_IN_WINDOW_MS);
    } catch {
      return unavailable(reply, MESSAGES.storeDown);
    }
    const authorize = client.buildAuthorizationUrl(config, {
      redirect_uri: callbackUrl,
      scope: signIn.scopes,
      state,
      nonce: pending.nonce,
      code_challenge: await client.calculatePKCECodeChallenge(pending.verifier),
      code_challenge_method: 'S256',
    });
    return reply.header('Cache-Control', 'no-store').redirect(authorize.href, 302);
  });

  app.get('/auth/callback', async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    const state = typeof query.state === 'string' ? query.state : '';
    let pending: PendingSignIn | null;
    try {
      pending = state ? ((await store.takeSecret('signin', hashToken(state))) as PendingSignIn | null) : null;
    } catch {
      return unavailable(reply, MESSAGES.storeDown);
    }
    // No extension URL to go back to: the sign-in window shows this, and the extension times out.
    if (!pending) return reply.code(400).send(errorBody(400, MESSAGES.signInStale));
    if (typeof query.error === 'string') {
      // The provider's own code (access_denied, login_required…): a short token, never free text.
      return toExtension(reply, pending.redirectUri, { error: /^[a-z_]{1,64}$/.test(query.error) ? query.error : 'sign_in_failed' });
    }
    let config: client.Configuration;
    try {
      config = await provider();
    } catch {
      return toExtension(reply, pending.redirectUri, { error: 'identity_provider_unavailable' });
    }
    let claims: Record<string, unknown>;
    try {
      const current = new URL(callbackUrl);
      current.search = new URL(request.url, 'http://gateway').search;
      const tokens = await client.authorizationCodeGrant(config, current, { pkceCodeVerifier: pending.verifier, expectedState: state, expectedNonce: pending.nonce, idTokenExpected: true });
      claims = { ...tokens.claims() };
      // Providers often keep email and groups out of the ID token and answer them at userinfo.
      if (config.serverMetadata().userinfo_endpoint && tokens.access_token) {
        const info = await client.fetchUserInfo(config, tokens.access_token, claims.sub as string);
        claims = { ...info, ...claims };
      }
    } catch (error) {
      request.log.warn({ err: { name: error instanceof Error ? error.name : 'Error', code: (error as { code?: unknown }).code } }, 'sign-in code exchange failed');
      return toExtension(reply, pending.redirectUri, { error: 'sign_in_failed' });
    }
    const identity = identityOf(claims);
    if (!identity) return toExtension(reply, pending.redirectUri, { error: 'sign_in_failed' });
    if (oidc.group && !inGroup(claims, oidc.groupClaim, oidc.group)) {
      request.log.info({ audit: 'sign-in-refused', subject: identity.subject, reason: 'group' }, 'sign-in refused');
      return toExtension(reply, pending.redirectUri, { error: 'not_in_group' });
    }
    let issued: IssuedSession;
    try {
      issued = await sessions.start(identity);
    } catch {
      return toExtension(reply, pending.redirectUri, { error: 'gateway_store_unavailable' });
    }
    request.log.info({ audit: 'sign-in', analyst: issued.analyst }, 'sign-in');
    return toExtension(reply, pending.redirectUri, sessionBody(issued));
  });

  app.post('/auth/refresh', async (request, reply) => {
    const body = request.body as { refresh_token?: unknown } | null;
    const refreshToken = body && typeof body === 'object' ? body.refresh_token : undefined;
    if (typeof refreshToken !== 'string' || !refreshToken) return reply.code(400).send(errorBody(400, MESSAGES.refreshRequired));
    let issued: IssuedSession | null;
    try {
      issued = await sessions.refresh(refreshToken);
    } catch {
      return unavailable(reply, MESSAGES.storeDown);
    }
    reply.header('Cache-Control', 'no-store');
    if (!issued) return reply.code(403).send(errorBody(403, MESSAGES.signInAgain, ERROR_CODES.signInAgain));
    return sessionBody(issued);
  });

  app.post('/auth/logout', async (request, reply) => {
    const body = request.body as { refresh_token?: unknown } | null;
    const refreshToken = body && typeof body === 'object' && typeof body.refresh_token === 'string' ? body.refresh_token : null;
    try {
      await sessions.revoke({ sessionToken: credentialOf(request.headers), refreshToken });
    } catch {
      return unavailable(reply, MESSAGES.storeDown);
    }
    // Signing out twice, or with a token already expired, is still a sign-out.
    return reply.header('Cache-Control', 'no-store').send({ signed_out: true });
  });
}
