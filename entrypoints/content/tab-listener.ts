/**
 * Answers the popup and the background: `tab:get-page-ips` (the popup's "This page" list),
 * `tab:show-lookup` (the context menu on a selection), `tab:results-stale` (the API server
 * changed) and `tab:display-settings` (the display settings changed). Only this extension may
 * ask. The router is the background's (lib/message-router.ts) with the hand-written parser of
 * lib/page/messages/tab-messages.ts, so zod stays off the page.
 */
import { createRouter } from '@/lib/message-router';
import type { MessageReplies } from '@/lib/messaging';
import { answerWith, nativeRuntime } from '@/lib/native-runtime';
import { parseTabMessage } from '@/lib/page/messages/tab-messages';
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
  const runtime = nativeRuntime();
  if (!runtime?.id) return; // orphaned: the extension was reloaded or removed
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
    { extensionId: runtime.id, extensionOrigin: runtime.getURL('/'), parse: parseTabMessage },
  );
  const listener = answerWith(route);
  runtime.onMessage.addListener(listener);
  signal.addEventListener('abort', () => runtime.onMessage.removeListener(listener));
}
