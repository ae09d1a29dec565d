/**
 * Answers the popup and the background: `tab:get-page-ips` (the popup's "This page" list),
 * `tab:show-lookup` (the context menu on a selection), `tab:results-stale` (the API server
 * changed) and `tab:display-settings` (the display settings changed). Only this extension may
 * ask.
 */
import { browser } from 'wxt/browser';
import type { MessageReplies, Reply } from '@/lib/messaging';
import type { DisplaySettings } from '@/lib/page/page-lens';
import { forbidden, invalid, parseTabMessage } from '@/lib/page/tab-messages';

export interface TabHandlers {
  getPageIps(): MessageReplies['tab:get-page-ips'];
  showLookup(text: string): void;
  resultsStale(): void;
  /** Optional: a frame without a page lens has nothing to refresh. */
  resultsUpdated?(ips: string[]): void;
  displaySettings(settings: DisplaySettings): void;
}

export function listenForTabMessages(handlers: TabHandlers, signal: AbortSignal): void {
  const listener = (raw: unknown, sender: { id?: string }): Promise<Reply<unknown>> | undefined => {
    const parsed = parseTabMessage(raw);
    if (parsed === null) return undefined;
    if (sender.id !== browser.runtime.id) return Promise.resolve(forbidden(String((raw as { type: string }).type)));
    if (!parsed.ok) return Promise.resolve(invalid(parsed.reason));
    const { message } = parsed;
    try {
      if (message.type === 'tab:get-page-ips') return Promise.resolve({ ok: true, value: handlers.getPageIps() });
      if (message.type === 'tab:results-stale') handlers.resultsStale();
      else if (message.type === 'tab:results-updated') handlers.resultsUpdated?.(message.payload.ips);
      else if (message.type === 'tab:display-settings') handlers.displaySettings(message.payload);
      else handlers.showLookup(message.payload.text);
      return Promise.resolve({ ok: true, value: { ok: true } });
    } catch (error) {
      return Promise.resolve({ ok: false, error: { kind: 'internal', message: error instanceof Error ? error.message : String(error) } });
    }
  };
  browser.runtime.onMessage.addListener(listener);
  signal.addEventListener('abort', () => browser.runtime.onMessage.removeListener(listener));
}
