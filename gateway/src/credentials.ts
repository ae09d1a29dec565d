/**
 * Who is asking: the one place a request's credential becomes an analyst. A personal token is
 * looked up by its hash in the store; with single sign-on on, a JWT is verified against the
 * identity provider's keys; with sign-in on, a gateway session token is looked up. Every refusal is a fixed text: no part of the credential is echoed.
 */
import { looksLikeJwt, type OidcVerifier } from './oidc';
import { SESSION_PREFIX, type Sessions } from './sessions';
import type { Store, TokenRecord } from './store/types';
import { checkToken } from './tokens';
import { ERROR_CODES, MESSAGES } from './wire';

export type Identified =
  | { ok: true; token: TokenRecord }
  /** 403: a bad credential (counts toward the slow-down of its address). */
  | { ok: false; status: 403; message: string; code?: string }
  /** 503: nobody's credential of this kind can be checked now (the provider is unreachable). */
  | { ok: false; status: 503; message: string };

export interface CredentialChecks {
  store: Store;
  /** null: single sign-on is off, and a JWT is just an unknown token. */
  oidc: OidcVerifier | null;
  /** null: sign-in with the organisation is off, and a session token is just an unknown token. */
  sessions: Sessions | null;
  now: () => number;
}

export async function identify(checks: CredentialChecks, credential: string): Promise<Identified> {
  if (checks.sessions && credential.startsWith(SESSION_PREFIX)) {
    const token = await checks.sessions.check(credential);
    // Expired, signed out or unknown alike: the extension's answer is the same, sign in again.
    return token ? { ok: true, token } : { ok: false, status: 403, message: MESSAGES.signInAgain, code: ERROR_CODES.signInAgain };
  }
  if (checks.oidc && looksLikeJwt(credential)) {
    const checked = await checks.oidc.verify(credential);
    if (checked.ok) return checked;
    if (checked.reason === 'unavailable') return { ok: false, status: 503, message: MESSAGES.identityProviderDown };
    return { ok: false, status: 403, message: checked.reason === 'expired' ? MESSAGES.expiredToken : checked.reason === 'group' ? MESSAGES.notInGroup : MESSAGES.invalidToken };
  }
  const checked = await checkToken(checks.store, credential, checks.now());
  if (checked.ok) return checked;
  return { ok: false, status: 403, message: checked.reason === 'expired' ? MESSAGES.expiredToken : MESSAGES.invalidToken };
}
