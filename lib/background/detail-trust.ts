/**
 * May this content script spend a detailed lookup (one paid unit, past the page cap) now?
 *
 * The card's "Details" is a click, but a content script cannot prove one: `navigator.userActivation`
 * and `event.isTrusted` live in the renderer, which a compromised renderer forges, and no browser
 * attests a gesture on `runtime.onMessage` (Chromium carries one over internally, with no API to
 * read it; w3c/webextensions#965 proposes `MessageSender.hasUserActivation`, not implemented in
 * Chromium or Firefox as of 2026-11). So the rule uses only what the browser itself attests:
 *
 *   1. the sending document is live (`documentLifecycle` 'active', where reported): not a
 *      prerendered or back/forward-cached page, which no one can be clicking;
 *   2. its tab is the active tab of the last-focused window (tabs.get + windows.getLastFocused):
 *      a person reading a card is looking at that tab, so background tabs cannot spend;
 *   3. the frame asked about this IP before with `cs:lookup` (frame-asks.ts): only IPs its page
 *      shows, not a list the renderer makes up;
 *   4. the tab's rate limit (detail-rate.ts): a burst of 10, then one every 6 s.
 *
 * What it cannot stop (docs/architecture.md, "Threat model"): a compromised renderer in the tab
 * the analyst is looking at can still spend up to the rate limit on IPs its page shows.
 */
import type { SenderInfo } from '../message-router';
import { Refusal } from '../message-router';
import type { DetailRate } from './detail-rate';
import type { FrameAsks, FrameRef } from './frame-asks';

export interface DetailTrustDeps {
  frameAsks: FrameAsks;
  rate: DetailRate;
  /** Whether the tab is the active tab of the last-focused browser window (browser-attested). */
  tabInFront: (tabId: number) => Promise<boolean>;
}

/** The frame a content script message came from. */
export function frameOf(sender: SenderInfo): FrameRef {
  return { tabId: sender.tab?.id ?? -1, frameId: sender.frameId ?? 0, documentId: sender.documentId ?? '' };
}

/** Resolves when the detailed lookup may go; throws a Refusal (or the rate limit's ApiError) with a sentence. */
export async function checkDetailedAsk(sender: SenderInfo, ip: string, deps: DetailTrustDeps): Promise<void> {
  const frame = frameOf(sender);
  if (sender.documentLifecycle !== undefined && sender.documentLifecycle !== 'active') {
    throw new Refusal('Details are only looked up for the page on screen.');
  }
  if (!(await deps.tabInFront(frame.tabId).catch(() => false))) {
    throw new Refusal('Details are only looked up from the tab in front: click the card again in this tab.');
  }
  await deps.frameAsks.ready();
  if (!deps.frameAsks.wasAsked(frame, ip)) {
    throw new Refusal(`Details are only looked up for addresses this page showed; look ${ip} up in the popup instead.`);
  }
  // Last, so that refused asks spend none of the tab's allowance.
  deps.rate.take(frame.tabId);
}

/** The browser's answer to rule 2, from the tabs and windows APIs (no permission needed for either field). */
export function browserTabInFront(api: {
  tabs: { get(tabId: number): Promise<{ active: boolean; windowId?: number }> };
  windows: { getLastFocused(): Promise<{ id?: number }> };
}): (tabId: number) => Promise<boolean> {
  return async (tabId) => {
    const tab = await api.tabs.get(tabId);
    if (!tab.active) return false;
    const focused = await api.windows.getLastFocused();
    return focused.id !== undefined && focused.id === tab.windowId;
  };
}
