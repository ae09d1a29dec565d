/**
 * "Open in …" from the hover card and the context menu. The card (in a page the extension does
 * not trust) knows each service by id and name only and asks the background to open it: the
 * background builds the URL from the stored template and opens it with `tabs.create`, so the
 * page never learns or alters the URL (an internal tool's address stays private), gets no
 * window reference to the new tab (no `window.opener`) and sends no Referer to the service.
 */
import { browser } from 'wxt/browser';
import { toLookupForm } from '../ip';
import type { Handlers, SenderInfo } from '../message-router';
import { pivotUrl, usablePivots, type Pivot, type PivotChoice } from '../pivots';
import { getSetting, settingItems } from '../settings';

export type PivotMessageType = 'cs:get-pivots' | 'cs:open-pivot';

export interface PivotHandlerDeps {
  /** The stored pivots (an invalid stored value reads as the defaults). */
  pivots?: () => Promise<Pivot[]>;
  /** Opens a new tab next to the one the analyst is reading. */
  openTab?: (url: string, openerTabId: number | undefined) => Promise<void>;
  /** Called when the stored pivots change (the context menu follows them). */
  watch?: (callback: () => void) => void;
  now?: () => number;
}

/**
 * A content script cannot prove a person pressed the key, so a tab may open a few services at
 * once and then one every two seconds: more than an analyst clicking, and a compromised page
 * cannot open tabs in bulk.
 */
const BURST = 6;
const REFILL_MS = 2_000;

async function openBrowserTab(url: string, openerTabId: number | undefined): Promise<void> {
  try {
    await browser.tabs.create({ url, active: true, ...(openerTabId === undefined ? {} : { openerTabId }) });
  } catch (error) {
    // The opener closed meanwhile (or lives in another window): open the tab anyway.
    if (openerTabId === undefined) throw error;
    await browser.tabs.create({ url, active: true });
  }
}

export function createPivotHandlers(deps: PivotHandlerDeps = {}) {
  const stored = deps.pivots ?? (() => getSetting('pivots'));
  const openTab = deps.openTab ?? openBrowserTab;
  const now = deps.now ?? Date.now;
  const buckets = new Map<number, { tokens: number; at: number }>();

  /** The services a card or menu may offer: enabled and valid, in the analyst's order. */
  async function choices(): Promise<PivotChoice[]> {
    return usablePivots(await stored()).map((p) => ({ id: p.id, name: p.name.trim() }));
  }

  /** Opens `ip` in one service; throws a message the card can show when it cannot. */
  async function open(pivotId: string, ip: string, openerTabId: number | undefined): Promise<string> {
    const canonical = toLookupForm(ip);
    if (canonical === null) throw new Error(`"${ip.slice(0, 60)}" is not an IP address.`);
    const pivot = usablePivots(await stored()).find((p) => p.id === pivotId);
    if (!pivot) throw new Error('That service is turned off or no longer exists: see "Open in …" in the Options.');
    const url = pivotUrl(pivot.urlTemplate, canonical);
    if (!url) throw new Error(`${pivot.name} has no valid link for ${canonical}.`);
    await openTab(url, openerTabId);
    return url;
  }

  function take(tabId: number): void {
    const at = now();
    const bucket = buckets.get(tabId) ?? { tokens: BURST, at };
    const tokens = Math.min(BURST, bucket.tokens + Math.max(0, at - bucket.at) / REFILL_MS);
    if (tokens < 1) {
      buckets.set(tabId, { tokens, at });
      throw new Error(`Too many links opened from this tab: try again in ${Math.ceil(((1 - tokens) * REFILL_MS) / 1000)} s.`);
    }
    buckets.set(tabId, { tokens: tokens - 1, at });
    if (buckets.size > 1_000) buckets.delete(buckets.keys().next().value!);
  }

  const handlers: Handlers<PivotMessageType> = {
    'cs:get-pivots': async () => ({ pivots: await choices() }),
    'cs:open-pivot': async ({ ip, pivotId }, sender: SenderInfo) => {
      const tabId = sender.tab?.id;
      if (typeof tabId !== 'number') throw new Error('Links open only from a tab.');
      take(tabId);
      await open(pivotId, ip, tabId);
      return { opened: true as const };
    },
  };

  function watch(callback: () => void): void {
    (deps.watch ?? ((cb) => void settingItems.pivots.watch(cb)))(callback);
  }

  return { handlers, choices, open, watch };
}
export type PivotService = Pick<ReturnType<typeof createPivotHandlers>, 'choices' | 'open' | 'watch'>;
