/**
 * Gateway sessions of analysts who signed in with the organisation: a short-lived session token
 * the v1 routes accept like a personal token, and a refresh token that trades itself (once) for
 * a new pair until the sign-in's maximum age. Both are random and stored only as hashes, each
 * under a TTL in the store, so every replica sees a sign-out at once.
 */
import { randomBytes } from 'node:crypto';
import type { OidcSettings, SignInSettings } from './config';
import { analystOf, type SsoIdentity } from './oidc';
import type { Store, TokenRecord } from './store/types';
import { hashToken } from './tokens';

export const SESSION_PREFIX = 'iplgs_';
export const REFRESH_PREFIX = 'iplgr_';

interface SessionRecord {
  subject: string;
  email: string | null;
  signedInAt: number;
  expiresAt: number;
  refreshId: string;
}

interface RefreshRecord {
  subject: string;
  email: string | null;
  signedInAt: number;
  /** The sign-in's end: no refresh goes past it. */
  endsAt: number;
  sessionId: string;
}

export interface IssuedSession {
  sessionToken: string;
  refreshToken: string;
  /** Seconds the session token lives. */
  expiresIn: number;
  /** The analyst's name in budgets, limits and audit lines. */
  analyst: string;
}

const secret = (prefix: string) => prefix + randomBytes(32).toString('base64url');

function isRecord<T>(value: unknown, field: keyof T): value is T {
  return typeof value === 'object' && value !== null && field in value;
}

export class Sessions {
  constructor(
    private readonly store: Store,
    private readonly oidc: Pick<OidcSettings, 'issuer' | 'budget'>,
    private readonly settings: Pick<SignInSettings, 'sessionTtlMs' | 'signInMaxMs'>,
    private readonly now: () => number,
  ) {}

  /** A new sign-in: its first session and refresh token. */
  start(identity: SsoIdentity): Promise<IssuedSession> {
    const at = this.now();
    return this.issue(identity, at, at + this.settings.signInMaxMs);
  }

  private async issue(identity: SsoIdentity, signedInAt: number, endsAt: number): Promise<IssuedSession> {
    const now = this.now();
    const sessionToken = secret(SESSION_PREFIX);
    const refreshToken = secret(REFRESH_PREFIX);
    const sessionId = hashToken(sessionToken);
    const refreshId = hashToken(refreshToken);
    const expiresAt = Math.min(now + this.settings.sessionTtlMs, endsAt);
    const session: SessionRecord = { subject: identity.subject, email: identity.email, signedInAt, expiresAt, refreshId };
    const refresh: RefreshRecord = { subject: identity.subject, email: identity.email, signedInAt, endsAt, sessionId };
    await this.store.putSecret('refresh', refreshId, refresh, endsAt - now);
    await this.store.putSecret('session', sessionId, session, expiresAt - now);
    return { sessionToken, refreshToken, expiresIn: Math.floor((expiresAt - now) / 1000), analyst: analystOf(this.oidc, identity, signedInAt, null).name };
  }

  /** The analyst behind a live session token; null when it expired, was revoked or never was. */
  async check(sessionToken: string): Promise<TokenRecord | null> {
    const record = await this.store.getSecret('session', hashToken(sessionToken));
    if (!isRecord<SessionRecord>(record, 'expiresAt') || record.expiresAt <= this.now()) return null;
    return analystOf(this.oidc, { subject: record.subject, email: record.email }, record.signedInAt, record.expiresAt);
  }

  /**
   * A new pair for a refresh token, which is spent (a second use finds nothing); the session it
   * came with ends. null: expired, spent, revoked or unknown: the analyst signs in again.
   */
  async refresh(refreshToken: string): Promise<IssuedSession | null> {
    if (!refreshToken.startsWith(REFRESH_PREFIX)) return null;
    const record = await this.store.takeSecret('refresh', hashToken(refreshToken));
    if (!isRecord<RefreshRecord>(record, 'endsAt') || record.endsAt <= this.now()) return null;
    await this.store.deleteSecret('session', record.sessionId);
    return this.issue({ subject: record.subject, email: record.email }, record.signedInAt, record.endsAt);
  }

  /** Sign-out: the session and its refresh token (either one finds the other) stop working. */
  async revoke(tokens: { sessionToken?: string | null; refreshToken?: string | null }): Promise<void> {
    if (tokens.sessionToken?.startsWith(SESSION_PREFIX)) {
      const sessionId = hashToken(tokens.sessionToken);
      const record = await this.store.takeSecret('session', sessionId);
      if (isRecord<SessionRecord>(record, 'refreshId')) await this.store.deleteSecret('refresh', record.refreshId);
    }
    if (tokens.refreshToken?.startsWith(REFRESH_PREFIX)) {
      const record = await this.store.takeSecret('refresh', hashToken(tokens.refreshToken));
      if (isRecord<RefreshRecord>(record, 'sessionId')) await this.store.deleteSecret('session', record.sessionId);
    }
  }
}
