/**
 * The toolbar badge: how many high and critical IPs the current tab shows, summed over its
 * frames (each frame's content script reports its own counts). A new document in the top frame
 * starts the tab afresh. The counts are mirrored to storage.session because the service worker
 * is stopped after idling, and a frame reports only when its counts change.
 */
import type { Severity } from '../severity';

export interface BadgeApi {
  action: {
    setBadgeText(details: { tabId: number; text: string }): Promise<void>;
    setBadgeBackgroundColor(details: { tabId: number; color: string }): Promise<void>;
  };
  session?: {
    get(key: string): Promise<Record<string, unknown>>;
    set(items: Record<string, unknown>): Promise<void>;
  };
}

interface FrameCount {
  /** The document the count belongs to (a reload or navigation gives a new one). */
  doc: string;
  risky: number;
}

type TabFrames = Record<string, FrameCount>;

const STORAGE_KEY = 'pageBadge';
const COLOUR = '#b71c1c';

export function riskyCount(counts: Partial<Record<Severity, number>>): number {
  return (counts.critical ?? 0) + (counts.high ?? 0);
}

export function badgeText(total: number): string {
  if (total <= 0) return '';
  return total > 999 ? '999+' : String(total);
}

export function createBadge(api: BadgeApi) {
  let tabs: Record<string, TabFrames> | null = null;

  async function load(): Promise<Record<string, TabFrames>> {
    if (tabs) return tabs;
    let stored: unknown;
    try {
      stored = (await api.session?.get(STORAGE_KEY))?.[STORAGE_KEY];
    } catch {
      stored = undefined;
    }
    // Another caller may have loaded while we awaited: keep the first.
    tabs ??= stored && typeof stored === 'object' ? (stored as Record<string, TabFrames>) : {};
    return tabs;
  }

  async function show(tabId: number): Promise<void> {
    const frames = (await load())[tabId] ?? {};
    const total = Object.values(frames).reduce((sum, f) => sum + f.risky, 0);
    try {
      await api.action.setBadgeText({ tabId, text: badgeText(total) });
      if (total > 0) await api.action.setBadgeBackgroundColor({ tabId, color: COLOUR });
    } catch {
      // The tab closed in the meantime.
    }
  }

  async function persist(): Promise<void> {
    await api.session?.set({ [STORAGE_KEY]: tabs }).catch(() => undefined);
  }

  return {
    async report(tabId: number, frameId: number, documentId: string, counts: Partial<Record<Severity, number>>) {
      const all = await load();
      let frames = all[tabId] ?? {};
      // A new top document: whatever the frames said before belongs to the old page.
      if (frameId === 0 && frames['0'] && frames['0'].doc !== documentId) frames = {};
      frames[String(frameId)] = { doc: documentId, risky: riskyCount(counts) };
      all[tabId] = frames;
      await persist();
      await show(tabId);
    },
    /** The tab navigated or closed. */
    async clearTab(tabId: number) {
      const all = await load();
      if (!(tabId in all)) return;
      delete all[tabId];
      await persist();
      await show(tabId);
    },
    async total(tabId: number): Promise<number> {
      return Object.values((await load())[tabId] ?? {}).reduce((sum, f) => sum + f.risky, 0);
    },
  };
}
