/**
 * Keeps storage.local, where the API key lives, away from content scripts. Chrome lets every
 * context of an extension read storage.local by default, including the content script running
 * in each scanned page's renderer; TRUSTED_CONTEXTS narrows it to our own pages and worker
 * (Chromium keeps the level in the extension's prefs, and setting it again at every worker
 * start covers a profile that predates this code). Firefox supports setAccessLevel only for
 * storage.session and rejects it here: the content script does not read storage either way.
 */

/** The part of a `browser.storage` area used here; setAccessLevel is missing in some browsers. */
export interface AccessLevelArea {
  setAccessLevel?(details: { accessLevel: 'TRUSTED_CONTEXTS' }): Promise<void>;
}

/** Never rejects: a browser that cannot restrict the area is warned about once and goes on. */
export async function restrictToTrustedContexts(
  area: AccessLevelArea | undefined,
  warn: (message: string) => void = console.warn,
): Promise<void> {
  if (typeof area?.setAccessLevel !== 'function') return;
  try {
    await area.setAccessLevel({ accessLevel: 'TRUSTED_CONTEXTS' });
  } catch (error) {
    warn(`storage.local stays readable by content scripts: ${error instanceof Error ? error.message : String(error)}`);
  }
}
