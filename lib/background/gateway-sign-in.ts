/**
 * "Sign in with your organisation" against the team gateway, run by the worker: a popup dies
 * when it closes, and the tokens must stay out of every page's reach.
 *
 *   options ──ui:sign-in──► worker ──launchWebAuthFlow──► <gateway>/auth/login?redirect_uri=R
 *                                                           └► identity provider (login) ─► gateway callback
 *   worker ◄── R#session_token=…&refresh_token=…&expires_in=…&analyst=sso:… ──┘
 *
 * The gateway is the provider's confidential client: no client secret is in the extension. The
 * session is kept with the API key (lib/settings/gateway-session.ts) and refreshed before it
 * ends (an alarm, since the worker may be stopped; and on a refusal, lib/api's renewKey).
 * Sign out ends both tokens at the gateway and drops them here whatever the gateway answers.
 */
import { browser } from 'wxt/browser';
import { z } from '../zod';
import {
  gatewayAuthUrl,
  getSettingsOf,
  readGatewaySession,
  writeGatewaySession,
  type GatewayInfo,
  type GatewaySession,
  type SignInState,
} from '../settings';

export type { GatewayInfo, SignInState } from '../settings';
import { onAlarm, scheduleAlarm, SESSION_REFRESH_ALARM } from './wake-alarm';

/** What the fragment of a finished sign-in holds (docs/gateway.md). */
const grantSchema = z.object({
  session_token: z.string().regex(/^[\x21-\x7e]{16,512}$/),
  refresh_token: z.string().regex(/^[\x21-\x7e]{16,512}$/),
  token_type: z.literal('Bearer'),
  expires_in: z.coerce.number().int().min(1).max(30 * 24 * 3600),
  analyst: z.string().min(1).max(320),
});
export type SessionGrant = z.infer<typeof grantSchema>;

/** The gateway's error codes at the end of a sign-in, said as an analyst can act on them. */
const SIGN_IN_ERRORS: Record<string, string> = {
  not_in_group: 'Your organisation account is not in the group this gateway requires. Ask your SOC lead to add you.',
  sign_in_failed: 'The identity provider did not complete the sign-in. Try again.',
  identity_provider_unavailable: "The gateway could not reach your organisation's identity provider. Try again in a minute.",
  gateway_store_unavailable: 'The gateway cannot reach its store just now. Try again in a minute.',
  access_denied: 'The sign-in was refused or cancelled at your identity provider.',
};

/** The tokens of a finished sign-in's redirect URL, or an error naming what went wrong. */
export function parseSignInRedirect(redirect: string): { ok: true; grant: SessionGrant } | { ok: false; message: string } {
  let fragment: URLSearchParams;
  try {
    fragment = new URLSearchParams(new URL(redirect).hash.slice(1));
  } catch {
    return { ok: false, message: 'The sign-in ended at an address that is not a URL.' };
  }
  const code = fragment.get('error');
  if (code !== null) {
    const known = SIGN_IN_ERRORS[code];
    // An unknown code is the provider's own: quoted short, letters and underscores only.
    return { ok: false, message: known ?? `The sign-in failed (${code.replace(/[^a-z0-9_]/gi, '').slice(0, 60) || 'no reason given'}).` };
  }
  const parsed = grantSchema.safeParse(Object.fromEntries(fragment));
  // Never quoted: the fragment holds tokens.
  if (!parsed.success) return { ok: false, message: 'The gateway answered the sign-in with something this extension does not understand.' };
  return { ok: true, grant: parsed.data };
}

/**
 * When to renew a session: a fifth of its life before it ends, at least 10 s and at most 2 min
 * before (a 15 min session is renewed at 13 min; Chrome may deliver an alarm up to 30 s late,
 * and a late refresh costs one refused request, which renews it too).
 */
export function refreshAt(session: Pick<GatewaySession, 'expiresAt' | 'signedInAt'>, issuedAt: number): number {
  const life = Math.max(0, session.expiresAt - issuedAt);
  const margin = Math.min(120_000, Math.max(10_000, life / 5));
  return Math.max(issuedAt, session.expiresAt - margin);
}


const infoSchema = z.object({ sign_in: z.boolean(), issuer: z.string().max(2048).nullish() });

export interface SignInDeps {
  fetch: typeof globalThis.fetch;
  now: () => number;
  /** launchWebAuthFlow, interactive: resolves with the redirect URL. */
  launch: (url: string) => Promise<string>;
  redirectUrl: () => string;
  read: () => Promise<GatewaySession | null>;
  write: (session: GatewaySession | null) => Promise<void>;
  gatewayUrl: () => Promise<string>;
  schedule: (at: number | null) => void;
}

const browserDeps = (): SignInDeps => ({
  fetch: (input, init) => globalThis.fetch(input, init),
  now: () => Date.now(),
  launch: async (url) => {
    const identity = (browser as { identity?: { launchWebAuthFlow(d: { url: string; interactive: boolean }): Promise<string | undefined> } }).identity;
    if (!identity) throw new Error('This browser does not offer sign-in for extensions (no identity API).');
    const result = await identity.launchWebAuthFlow({ url, interactive: true }).catch((error: unknown) => {
      // Chromium: "The user did not approve access."; Firefox: "User cancelled or denied access.".
      throw new Error(`The sign-in window was closed or refused before it finished (${error instanceof Error ? error.message : String(error)}).`);
    });
    if (!result) throw new Error('The sign-in window was closed before it finished.');
    return result;
  },
  redirectUrl: () => (browser as unknown as { identity: { getRedirectURL(): string } }).identity.getRedirectURL(),
  read: readGatewaySession,
  write: writeGatewaySession,
  gatewayUrl: async () => (await getSettingsOf(['gatewayUrl'])).gatewayUrl,
  schedule: (at) => scheduleAlarm(SESSION_REFRESH_ALARM, at),
});

function stateOf(session: GatewaySession | null): SignInState {
  return session ? { signedIn: true, analyst: session.analyst, expiresAt: session.expiresAt, gatewayUrl: session.gatewayUrl } : { signedIn: false };
}

export function createGatewaySignIn(overrides: Partial<SignInDeps> = {}) {
  const deps: SignInDeps = { ...browserDeps(), ...overrides };
  /** One refresh at a time: concurrent refusals share it (a refresh token works once). */
  let refreshing: Promise<string | null> | null = null;

  const sessionOf = (gatewayUrl: string, grant: SessionGrant, signedInAt: number): GatewaySession => {
    const now = deps.now();
    return {
      gatewayUrl,
      sessionToken: grant.session_token,
      refreshToken: grant.refresh_token,
      expiresAt: now + grant.expires_in * 1000,
      analyst: grant.analyst,
      signedInAt,
    };
  };

  async function keep(session: GatewaySession | null): Promise<void> {
    await deps.write(session);
    deps.schedule(session ? refreshAt(session, deps.now()) : null);
  }

  async function requireGateway(): Promise<string> {
    const gatewayUrl = await deps.gatewayUrl();
    if (!gatewayUrl) throw new Error("Set your team's gateway address first.");
    return gatewayUrl;
  }

  async function info(gatewayUrl: string): Promise<GatewayInfo> {
    let response: Response;
    try {
      response = await deps.fetch(gatewayAuthUrl(gatewayUrl, 'info'), { credentials: 'omit', redirect: 'manual' });
    } catch {
      throw new Error(`Could not reach the gateway at ${gatewayUrl}.`);
    }
    const parsed = infoSchema.safeParse(await response.json().catch(() => null));
    if (!response.ok || !parsed.success) throw new Error(`${gatewayUrl} did not answer as a team gateway (HTTP ${response.status} at /auth/info).`);
    return { signIn: parsed.data.sign_in, issuer: parsed.data.issuer ?? null };
  }

  async function signIn(): Promise<SignInState> {
    const gatewayUrl = await requireGateway();
    if (!(await info(gatewayUrl)).signIn) throw new Error('This gateway has no sign-in with the organisation: use a personal token.');
    const login = `${gatewayAuthUrl(gatewayUrl, 'login')}?redirect_uri=${encodeURIComponent(deps.redirectUrl())}`;
    const result = parseSignInRedirect(await deps.launch(login));
    if (!result.ok) throw new Error(result.message);
    // The settings may have changed while the window was open: a session belongs to its gateway.
    const session = sessionOf(gatewayUrl, result.grant, deps.now());
    await keep(session);
    return stateOf(session);
  }

  /** A new session token, or null when none can be had (then the session is dropped if the gateway ended it). */
  function refresh(): Promise<string | null> {
    refreshing ??= refreshOnce().finally(() => {
      refreshing = null;
    });
    return refreshing;
  }

  async function refreshOnce(): Promise<string | null> {
    const session = await deps.read();
    if (!session) return null;
    if (session.gatewayUrl !== (await deps.gatewayUrl())) {
      // The analyst moved to another gateway: this session is never sent there.
      await keep(null);
      return null;
    }
    let response: Response;
    try {
      response = await deps.fetch(gatewayAuthUrl(session.gatewayUrl, 'refresh'), {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
        body: JSON.stringify({ refresh_token: session.refreshToken }),
        credentials: 'omit',
        redirect: 'manual',
      });
    } catch {
      // Offline: keep the session; the next alarm or refusal tries again.
      deps.schedule(deps.now() + 30_000);
      return null;
    }
    const body: unknown = await response.json().catch(() => null);
    if (response.status === 403 || response.status === 401) {
      // Spent, past the sign-in maximum, or signed out elsewhere: only a new sign-in helps.
      await keep(null);
      return null;
    }
    const grant = grantSchema.safeParse(body);
    if (!response.ok || !grant.success) {
      deps.schedule(deps.now() + 30_000);
      return null;
    }
    const next = sessionOf(session.gatewayUrl, grant.data, session.signedInAt);
    await keep(next);
    return next.sessionToken;
  }

  async function signOut(): Promise<SignInState> {
    const session = await deps.read();
    await keep(null);
    if (session) {
      // Both tokens end at the gateway (on every replica); dropped here even if it is unreachable.
      await deps
        .fetch(gatewayAuthUrl(session.gatewayUrl, 'logout'), {
          method: 'POST',
          headers: { Authorization: `Bearer ${session.sessionToken}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ refresh_token: session.refreshToken }),
          credentials: 'omit',
          redirect: 'manual',
        })
        .catch(() => undefined);
    }
    return { signedIn: false };
  }

  return {
    info,
    signIn,
    refresh,
    signOut,
    state: async (): Promise<SignInState> => stateOf(await deps.read()),
    /** Registers the refresh alarm's listener (synchronously, at the worker's start). */
    start(): void {
      onAlarm(SESSION_REFRESH_ALARM, () => void refresh());
    },
  };
}

export type GatewaySignIn = ReturnType<typeof createGatewaySignIn>;

/** The worker's one instance: the API client's renewKey and the message handlers share its refresh. */
let shared: GatewaySignIn | null = null;
export function gatewaySignIn(): GatewaySignIn {
  shared ??= createGatewaySignIn();
  return shared;
}
