/**
 * Scans one tab once, on any site, through `activeTab` (granted by the toolbar popup, the
 * keyboard shortcut or the context menu): the content script file is injected into the tab's
 * frames, nothing is registered. The script's single-instance guard makes a second injection,
 * or one into a site already scanned, a no-op.
 */
import { CARD_SCRIPT_FILE, CONTENT_SCRIPT_FILE } from './content-script-file';

export interface InjectApi {
  scripting: {
    executeScript(injection: {
      target: { tabId: number; allFrames?: boolean; frameIds?: number[] };
      files: string[];
    }): Promise<unknown[]>;
  };
}

/** Injects into every frame the extension may access (all frames), or into the given ones. */
export async function injectContentScript(api: InjectApi, tabId: number, frameIds?: number[]): Promise<void> {
  const target = frameIds ? { tabId, frameIds } : { tabId, allFrames: true };
  try {
    await api.scripting.executeScript({ target, files: [CONTENT_SCRIPT_FILE] });
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    // chrome://, the Web Store and PDF viewers refuse every extension; say so plainly.
    throw new Error(`This page cannot be scanned (${detail}).`);
  }
}

/**
 * The hover card's code into the one frame whose content script asked at its first hover
 * (components/hover-card/lazy-card.ts). The same access as the scan: a registered site's host
 * permission, or the activeTab grant of the one-off scan.
 */
export async function injectCard(api: InjectApi, tabId: number, frameId: number): Promise<void> {
  await api.scripting.executeScript({ target: { tabId, frameIds: [frameId] }, files: [CARD_SCRIPT_FILE] });
}
