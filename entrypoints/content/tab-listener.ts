/**
 * Answers the popup and the background: `tab:get-page-ips` (the popup's "This page" list),
 * `tab:show-lookup` (the context menu on a selection), `tab:results-stale` (the API server
 * changed) and `tab:display-settings` (the display settings changed). Only this extension may
 * ask. The router is the background's (lib/message-router.ts) with the hand-written parser of
 * lib/page/tab-messages.ts, so zod stays off the page.
 */
import { browser } from 'wxt/browser';
import { createRouter } from '@/lib/message-router';
import type { MessageReplies } from '@/lib/messaging';
import { parseTabMessage } from '@/lib/page/tab-messages';
import type { DisplaySettings } from '@/lib/protocol';

export interface TabHandlers {
  getPageIps(): MessageReplies['tab:get-page-ips'];
  showLookup(text: string): void;
  resultsStale(): void;
  /** Lookups work again: ask the IPs that failed once more. */
  lookupsRecovered(): void;
  /** Optional: a frame without a page lens has nothing to refresh. */
  resultsUpdated?(ips: string[]): void;
  displaySettings(settings: DisplaySettings): void;
}

export function listenForTabMessages(handlers: TabHandlers, signal: AbortSignal): void {
  const done = { ok: true } as const;
  const route = createRouter(
    {
      'tab:get-page-ips': () => handlers.getPageIps(),
      'tab:show-lookup': ({ text }) => {
        handlers.showLookup(text);
        return done;
      },
      'tab:results-stale': () => {
        handlers.resultsStale();
        return done;
      },
      'tab:lookups-recovered': () => {
        handlers.lookupsRecovered();
        return done;
      },
      'tab:results-updated': ({ ips }) => {
        handlers.resultsUpdated?.(ips);
        return done;
      },
      'tab:display-settings': (settings) => {
        handlers.displaySettings(settings);
        return done;
      },
    },
    { extensionId: browser.runtime.id, extensionOrigin: browser.runtime.getURL('/'), parse: parseTabMessage },
  );
  const listener = (raw: unknown, sender: { id?: string }) => route(raw, sender);
  browser.runtime.onMessage.addListener(listener);
  signal.addEventListener('abort', () => browser.runtime.onMessage.removeListener(listener));
}
