/**
 * The toolbar badge: how many distinct high and critical IPs the current tab shows. Each
 * frame's content script reports its own risky IPs; the badge counts their union, so an IP
 * shown in two frames counts once. A new document in the top frame starts the tab afresh. The
 * reports are mirrored to storage.session because the service worker is stopped after idling,
 * and a frame reports only when its list changes.
 */
import { z } from '../zod';
import { MAX_REPORTED_RISKY_IPS } from '../protocol';
import { sessionValue, type SessionArea } from './session-value';

export interface BadgeApi {
  action: {
    setBadgeText(details: { tabId: number; text: string }): Promise<void>;
    setBadgeBackgroundColor(details: { tabId?: number; color: string }): Promise<void>;
  };
  session?: SessionArea;
}

const frameSchema = z.object({
  /** The document the report belongs to (a reload or navigation gives a new one). */
  doc: z.string(),
  risky: z.array(z.string()).max(MAX_REPORTED_RISKY_IPS),
});
/** Tab id -> frame id -> that frame's last report. */
const storedSchema = z.record(z.string(), z.record(z.string(), frameSchema));

type FrameReport = z.infer<typeof frameSchema>;
type TabFrames = Record<string, FrameReport>;

const STORAGE_KEY = 'pageBadge';
const COLOUR = '#b71c1c';

/** Frames report at most MAX_REPORTED_RISKY_IPS each, so beyond one less the count is a floor. */
export function badgeText(total: number): string {
  if (total <= 0) return '';
  return total >= MAX_REPORTED_RISKY_IPS ? `${MAX_REPORTED_RISKY_IPS - 1}+` : String(total);
}

/** Distinct risky IPs over a tab's frames. */
export function distinctRisky(frames: TabFrames | undefined): number {
  const ips = new Set<string>();
  for (const frame of Object.values(frames ?? {})) for (const ip of frame.risky) ips.add(ip);
  return ips.size;
}

export function createBadge(api: BadgeApi) {
  const stored = sessionValue(api.session, STORAGE_KEY);
  let tabs: Record<string, TabFrames> | null = null;
  /**
   * The colour is one for every tab: set once per worker as the default, not with each report
   * (an extension API call less in the browser's main thread at every page load).
   */
  let coloured = false;

  async function load(): Promise<Record<string, TabFrames>> {
    if (tabs) return tabs;
    const parsed = storedSchema.safeParse(await stored.load());
    // Another caller may have loaded while we awaited: keep the first. Unreadable: start empty.
    tabs ??= parsed.success ? parsed.data : {};
    return tabs;
  }

  async function show(tabId: number): Promise<void> {
    const total = distinctRisky((await load())[tabId]);
    try {
      await api.action.setBadgeText({ tabId, text: badgeText(total) });
      if (total > 0 && !coloured) {
        coloured = true;
        await api.action.setBadgeBackgroundColor({ color: COLOUR });
      }
    } catch {
      // The tab closed in the meantime.
    }
  }

  /** Drops a tab's saved reports; false when there were none. */
  async function forget(tabId: number): Promise<boolean> {
    const all = await load();
    if (!(tabId in all)) return false;
    delete all[tabId];
    await stored.save(all);
    return true;
  }

  return {
    /**
     * A frame's risky IPs. `verified` says whether the frame was really given a reputation for
     * an IP (the background trusts no content script); IPs this frame's document reported before
     * were verified then, and stay (the worker may have restarted since and forgotten).
     */
    async report(
      tabId: number,
      frameId: number,
      documentId: string,
      riskyIps: readonly string[],
      verified: (ip: string) => boolean = () => true,
    ) {
      const all = await load();
      let frames = all[tabId] ?? {};
      // A new top document: whatever the frames said before belongs to the old page.
      if (frameId === 0 && frames['0'] && frames['0'].doc !== documentId) frames = {};
      const before = frames[String(frameId)];
      const earlier = new Set(before?.doc === documentId ? before.risky : []);
      const kept = [...new Set(riskyIps)].filter((ip) => earlier.has(ip) || verified(ip));
      frames[String(frameId)] = { doc: documentId, risky: kept };
      all[tabId] = frames;
      await stored.save(all);
      await show(tabId);
    },
    /** The tab navigated: its old page's count goes, and the badge shows none. */
    async clearTab(tabId: number) {
      if (await forget(tabId)) await show(tabId);
    },
    /**
     * The tab closed: only its saved count goes. The browser drops a closed tab's badge with
     * the tab, so a `setBadgeText` there would only fail quietly (an API call less per close).
     */
    async forgetTab(tabId: number) {
      await forget(tabId);
    },
    async total(tabId: number): Promise<number> {
      return distinctRisky((await load())[tabId]);
    },
  };
}
