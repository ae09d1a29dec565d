/**
 * A profile where the analyst granted the extension an optional host permission earlier.
 * Headless Chromium shows `permissions.request`'s prompt with no way to answer it, so the grant
 * is written where Chromium keeps it (the profile's Preferences: the extension's granted and
 * active host permissions) between two launches, and Chromium loads it as its own on the
 * second launch. Everything after that is driven as a user would, and
 * `chrome.permissions.getAll()` is read from the service worker to see what the extension
 * really holds.
 *
 * The granted host is not loopback (the e2e build requires loopback, and a required permission
 * cannot be removed), so its name is mapped to 127.0.0.1, where the simulator serves pages.
 */
import type { BrowserContext } from '@playwright/test';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { launchWithExtension } from './chromium';
import { serviceWorkerOf } from './fixtures';

/** A host name that resolves to 127.0.0.1 in these launches only. */
export const GRANTED_HOST = 'siem.test';
export const GRANTED_PATTERN = `http://${GRANTED_HOST}/*`;
const HOST_RULES = `--host-resolver-rules=MAP ${GRANTED_HOST} 127.0.0.1`;

interface PermissionSet {
  explicit_host?: string[];
}

/** Launches once to install the extension, writes the grants, and launches again. */
export async function launchWithGrantedOrigins(userDataDir: string, patterns: string[]): Promise<BrowserContext> {
  const first = await launchWithExtension(userDataDir, { args: [HOST_RULES] });
  const id = new URL((await serviceWorkerOf(first)).url()).host;
  await first.close();
  const file = path.join(userDataDir, 'Default', 'Preferences');
  const prefs = JSON.parse(readFileSync(file, 'utf8')) as {
    extensions: { settings: Record<string, { active_permissions?: PermissionSet; granted_permissions?: PermissionSet }> };
  };
  const settings = prefs.extensions.settings[id];
  if (!settings?.active_permissions || !settings.granted_permissions) throw new Error(`no permission record for ${id} in ${file}`);
  for (const set of [settings.active_permissions, settings.granted_permissions]) {
    set.explicit_host = [...(set.explicit_host ?? []), ...patterns];
  }
  writeFileSync(file, JSON.stringify(prefs));
  return launchWithExtension(userDataDir, { args: [HOST_RULES] });
}

/** The host permissions the extension holds now, as the browser says. */
export async function grantedOrigins(context: BrowserContext): Promise<string[]> {
  const worker = await serviceWorkerOf(context);
  return worker.evaluate(async () => {
    type Permissions = { getAll(): Promise<{ origins?: string[] }> };
    const all = await (globalThis as unknown as { chrome: { permissions: Permissions } }).chrome.permissions.getAll();
    return (all.origins ?? []).sort();
  });
}
