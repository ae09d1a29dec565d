/**
 * Giving host access back when nothing needs it any more (least privilege): a site that stops
 * being scanned, from the popup or Options, and the old API origin after the base URL changes.
 * Access stays while another listed site or the API base URL still lies under the pattern.
 * Permissions the manifest requires (the default API, the e2e build's loopback) cannot be
 * removed: the browser refuses, and that refusal is fine.
 */
import { patternMatchesUrl } from './site-pattern';
import type { PermissionsApi } from './services';

export interface PermissionUsers {
  /** The "Sites to scan" that remain. */
  sitePatterns: readonly string[];
  /** The API base URL that remains in use. */
  apiBaseUrl: string | null;
}

/** A URL the pattern covers, to ask whether another pattern covers it too. */
function sampleUrl(pattern: string): string | null {
  const m = /^(https?|\*):\/\/(\*\.)?([^/*]+)(\/.*)?$/.exec(pattern.trim());
  if (!m) return null;
  const scheme = m[1] === '*' ? 'https' : m[1];
  return `${scheme}://${m[3]}/`;
}

export function permissionStillNeeded(pattern: string, users: PermissionUsers): boolean {
  if (users.apiBaseUrl && patternMatchesUrl(pattern, users.apiBaseUrl)) return true;
  const sample = sampleUrl(pattern);
  return users.sitePatterns.some(
    (other) => other === pattern || (sample !== null && patternMatchesUrl(other, sample)) || patternMatchesUrl(pattern, sampleUrl(other) ?? undefined),
  );
}

/** Removes the host permission unless still needed; true when it was removed. */
export async function releaseHostPermission(
  permissions: Pick<PermissionsApi, 'remove'>,
  pattern: string,
  users: PermissionUsers,
): Promise<boolean> {
  if (permissionStillNeeded(pattern, users)) return false;
  try {
    return await permissions.remove([pattern]);
  } catch {
    return false; // a required permission, or already gone
  }
}
