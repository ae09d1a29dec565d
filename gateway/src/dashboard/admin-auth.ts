/**
 * Who may open the team dashboard: whoever holds the gateway's admin token (compared by hash in
 * constant time), or, with single sign-on, a bearer token of the identity provider whose group
 * claim names the admin group. An analyst's lookup token never opens it: least privilege, the
 * dashboard shows every analyst's use. Each refusal says which of these it was, and never
 * echoes the credential.
 */
import { timingSafeEqual } from 'node:crypto';
import type { DashboardSettings } from '../config';
import { looksLikeJwt, type OidcVerifier } from '../oidc';
import type { Store } from '../store/types';
import { hashToken } from '../tokens';

export const ADMIN_MESSAGES = {
  off: 'The team dashboard is off: the operator turns it on with GATEWAY_ADMIN_TOKEN_FILE (or GATEWAY_OIDC_ADMIN_GROUP with single sign-on).',
  missing: "The dashboard needs the gateway's admin token, sent as \"Authorization: Bearer <token>\".",
  analystToken: "This is an analyst's lookup token: the dashboard opens with the gateway's admin token only.",
  notAdminGroup: "Your sign-in is valid but not in the dashboard's admin group.",
  wrong: "Not the gateway's admin token.",
  providerDown: 'The identity provider cannot be reached to check this sign-in; try again shortly or use the admin token.',
} as const;

export type AdminCheck = { ok: true; who: string } | { ok: false; status: 401 | 403 | 404 | 503; message: string; counts: boolean };

export interface AdminChecks {
  settings: DashboardSettings;
  store: Store;
  /** A verifier of the identity provider's tokens requiring the admin group; null: no SSO admins. */
  adminOidc: OidcVerifier | null;
  now: () => number;
}

export function dashboardOn(settings: DashboardSettings, adminOidc: OidcVerifier | null): boolean {
  return settings.adminTokenHash !== null || adminOidc !== null;
}

/** `counts`: a wrong guess, slowed down like a bad lookup token. */
export async function checkAdmin(checks: AdminChecks, credential: string | null): Promise<AdminCheck> {
  const { settings, adminOidc } = checks;
  if (!dashboardOn(settings, adminOidc)) return { ok: false, status: 404, message: ADMIN_MESSAGES.off, counts: false };
  if (!credential) return { ok: false, status: 401, message: ADMIN_MESSAGES.missing, counts: false };
  const hash = hashToken(credential);
  if (settings.adminTokenHash && timingSafeEqual(Buffer.from(hash, 'hex'), Buffer.from(settings.adminTokenHash, 'hex'))) return { ok: true, who: 'admin-token' };
  if (adminOidc && looksLikeJwt(credential)) {
    const checked = await adminOidc.verify(credential);
    if (checked.ok) return { ok: true, who: checked.token.name };
    if (checked.reason === 'unavailable') return { ok: false, status: 503, message: ADMIN_MESSAGES.providerDown, counts: false };
    if (checked.reason === 'group') return { ok: false, status: 403, message: ADMIN_MESSAGES.notAdminGroup, counts: false };
    return { ok: false, status: 403, message: ADMIN_MESSAGES.wrong, counts: true };
  }
  // A real analyst token deserves a clearer word than "wrong": it is valid, just not for this.
  const analyst = await checks.store.tokenByHash(hash).catch(() => null);
  if (analyst) return { ok: false, status: 403, message: ADMIN_MESSAGES.analystToken, counts: false };
  return { ok: false, status: 403, message: ADMIN_MESSAGES.wrong, counts: true };
}
