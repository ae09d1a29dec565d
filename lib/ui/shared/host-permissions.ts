/**
 * Giving host access back when nothing needs it any more (least privilege): a site that stops
 * being scanned, from the popup or Options, and the old API origin after the base URL changes.
 * Access stays while the API base URL or another listed site still lies under the pattern.
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

/**
 * Whether removing `pattern` could take access from something still in use: the API base URL
 * under it, or a listed site whose pattern is the same or lies inside it (a narrower pattern
 * asked for while this one was held was granted without a grant of its own). A wider site
 * pattern is not a reason to keep a narrower one: it was granted on its own (asking for it
 * prompted), and the browser removes patterns as listed, so the wider grant stays. Keeping
 * the narrower one for it leaked it (found by the e2e test: the old API origin
 * `http://host:port/*` stayed granted after both the API and the site `http://host/*` left).
 */
export function permissionStillNeeded(pattern: string, users: PermissionUsers): boolean {
  if (users.apiBaseUrl && patternMatchesUrl(pattern, users.apiBaseUrl)) return true;
  return users.sitePatterns.some((other) => other === pattern || patternMatchesUrl(pattern, sampleUrl(other) ?? undefined));
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
