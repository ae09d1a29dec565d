/**
 * Real enterprise policy for the extension in a throwaway Chromium profile, without root and
 * without touching /etc/chromium/policies (which every Chromium on the machine would read).
 *
 * Chromium's policy test page (chrome://policy/test) stores the policies to apply at the next
 * start in the profile's "Local State" (`local_test_policies_for_next_startup`) and, at start,
 * hands them to a local test policy provider, which takes an extension id as `namespace`. The
 * values then travel the real path: the extension's managed_schema filters them and
 * `chrome.storage.managed` serves them. Debian's Chromium (channel "unknown") allows the test
 * page; branded stable Chrome does not.
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';

/** The id Chromium gives an unpacked extension: its absolute path, hashed, in letters a-p. */
export function unpackedExtensionId(extensionDir: string): string {
  const hex = createHash('sha256').update(path.resolve(extensionDir)).digest('hex').slice(0, 32);
  return [...hex].map((c) => String.fromCharCode(97 + parseInt(c, 16))).join('');
}

/** Mandatory, user-scope, cloud-source: the level an admin console's extension policy has. */
const MANDATORY = 1;
const USER_SCOPE = 0;
const CLOUD_SOURCE = 2;

/** Writes the policy for the next start of the profile in `userDataDir` (before launch). */
export function writeExtensionPolicy(userDataDir: string, extensionId: string, policy: Record<string, unknown>): void {
  const list = Object.entries(policy).map(([name, value]) => ({
    level: MANDATORY,
    scope: USER_SCOPE,
    source: CLOUD_SOURCE,
    namespace: extensionId,
    name,
    value,
  }));
  writeFileSync(path.join(userDataDir, 'Local State'), JSON.stringify({ local_test_policies_for_next_startup: JSON.stringify(list) }));
}
