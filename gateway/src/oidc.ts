/**
 * Single sign-on: a bearer JWT from the organisation's identity provider is accepted where a
 * personal token is. It is checked with jose against the keys the provider publishes (its
 * discovery document names the JWKS): signature, issuer, audience, expiry, the allowed
 * asymmetric algorithms, and the required group when the operator set one. The analyst is
 * named by the token's `email`, else its `sub`, for budgets, rate limits and audit lines.
 */
import { createHash } from 'node:crypto';
import { createRemoteJWKSet, customFetch, errors, jwtVerify, type JWTPayload } from 'jose';
import { z } from '../../lib/zod';
import type { OidcSettings } from './config';
import type { TokenRecord } from './store/types';

/** Every signed-in analyst's name starts so; a personal token's name cannot hold a colon. */
export const SSO_NAME_PREFIX = 'sso:';
/** A failed discovery is not retried for this long: a down provider is not hammered per request. */
const DISCOVERY_RETRY_MS = 5_000;
const FETCH_TIMEOUT_MS = 5_000;

/** Three base64url parts (the last may be empty: an unsigned token, refused by the checks). */
export function looksLikeJwt(credential: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(credential);
}

export interface SsoIdentity {
  subject: string;
  email: string | null;
}

export type JwtCheck =
  | { ok: true; token: TokenRecord; identity: SsoIdentity }
  | { ok: false; reason: 'invalid' | 'expired' | 'group' | 'unavailable' };

const discoverySchema = z.object({ issuer: z.string(), jwks_uri: z.url() });

/** The analyst's record for budgets, limits and /account, made from verified claims. */
export function analystOf(settings: Pick<OidcSettings, 'issuer' | 'budget'>, identity: SsoIdentity, issuedAt: number, expiresAt: number | null): TokenRecord {
  return {
    name: `${SSO_NAME_PREFIX}${(identity.email ?? identity.subject).slice(0, 200)}`,
    // Not a secret's hash: a stable id of the person at this provider (shown as /account's uid).
    hash: createHash('sha256').update(`${settings.issuer}\n${identity.subject}`).digest('hex'),
    createdAt: issuedAt,
    expiresAt,
    budget: settings.budget,
  };
}

/** Whether `claims[groupClaim]` (a string or a list of strings) holds `group`. */
export function inGroup(claims: Record<string, unknown>, groupClaim: string, group: string): boolean {
  const value = claims[groupClaim];
  return typeof value === 'string' ? value === group : Array.isArray(value) && value.includes(group);
}

export function identityOf(claims: JWTPayload): SsoIdentity | null {
  if (typeof claims.sub !== 'string' || !claims.sub) return null;
  // An address the provider says it has not verified does not name anyone.
  const email = typeof claims.email === 'string' && claims.email && claims.email_verified !== false ? claims.email : null;
  return { subject: claims.sub, email };
}

export class OidcVerifier {
  private jwks: ReturnType<typeof createRemoteJWKSet> | null = null;
  private discovering: Promise<ReturnType<typeof createRemoteJWKSet>> | null = null;
  private failedAt = -Infinity;

  constructor(
    readonly settings: OidcSettings,
    private readonly fetchImpl: typeof fetch = fetch,
    private readonly now: () => number = Date.now,
  ) {}

  /** The provider's key set, found through its discovery document once and then kept. */
  private async keySet() {
    if (this.jwks) return this.jwks;
    if (this.now() - this.failedAt < DISCOVERY_RETRY_MS) throw new Error('identity provider discovery failed recently');
    this.discovering ??= this.discover().then(
      (jwks) => ((this.jwks = jwks), jwks),
      (error: unknown) => {
        this.failedAt = this.now();
        this.discovering = null;
        throw error;
      },
    );
    return this.discovering;
  }

  private async discover() {
    const url = `${this.settings.issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
    const response = await this.fetchImpl(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS), redirect: 'error' });
    if (!response.ok) throw new Error(`discovery answered ${response.status}`);
    const document = discoverySchema.parse(await response.json());
    // The discovery document must be the issuer's own (OpenID Connect Discovery, section 4.3).
    if (document.issuer !== this.settings.issuer) throw new Error('discovery document names another issuer');
    return createRemoteJWKSet(new URL(document.jwks_uri), { timeoutDuration: FETCH_TIMEOUT_MS, [customFetch]: this.fetchImpl });
  }

  async verify(jwt: string): Promise<JwtCheck> {
    let keys: Awaited<ReturnType<OidcVerifier['keySet']>>;
    try {
      keys = await this.keySet();
    } catch {
      return { ok: false, reason: 'unavailable' };
    }
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(jwt, keys, {
        issuer: this.settings.issuer,
        audience: this.settings.audience,
        algorithms: this.settings.algorithms,
        requiredClaims: ['exp', 'sub'],
        currentDate: new Date(this.now()),
      }));
    } catch (error) {
      if (error instanceof errors.JWTExpired) return { ok: false, reason: 'expired' };
      // The key set could not be fetched (timeout, refused, not a 200): nobody's token can be judged.
      const fetchFailed = error instanceof TypeError && /fetch/i.test(error.message);
      if (error instanceof errors.JWKSTimeout || fetchFailed || (error instanceof errors.JOSEError && error.code === 'ERR_JOSE_GENERIC')) return { ok: false, reason: 'unavailable' };
      return { ok: false, reason: 'invalid' };
    }
    const identity = identityOf(payload);
    if (!identity) return { ok: false, reason: 'invalid' };
    if (this.settings.group && !inGroup(payload, this.settings.groupClaim, this.settings.group)) return { ok: false, reason: 'group' };
    const issuedAt = typeof payload.iat === 'number' ? payload.iat * 1000 : this.now();
    return { ok: true, identity, token: analystOf(this.settings, identity, issuedAt, (payload.exp as number) * 1000) };
  }
}
