/**
 * Sending side of the protocol. Never throws: a dead background, a closed tab or a page
 * without our content script come back as an `unreachable` error the UI can explain.
 */
import { browser } from 'wxt/browser';
import type { MessagePayload, MessageReplies, MessageType } from './messaging';
import type { Reply } from './protocol';

export type Connector = <T extends MessageType>(
  type: T,
  payload: MessagePayload<T>,
) => Promise<Reply<MessageReplies[T]>>;

function unreachable(error: unknown, what: string): Reply<never> {
  const detail = error instanceof Error ? error.message : String(error);
  return { ok: false, error: { kind: 'unreachable', message: `${what} did not answer (${detail}).` } };
}

function asReply<T>(value: unknown, what: string): Reply<T> {
  if (value && typeof value === 'object' && 'ok' in value) return value as Reply<T>;
  return unreachable(new Error('no reply'), what);
}

/**
 * Messages that are safe to send again. MV3 stops an idle service worker, and one stopped while
 * it answers closes the caller's channel; the next message starts it again and the lookup
 * engine answers from its persistent cache or the network. Not retried: test-key (costs a
 * request), cache clearing and site registration (the user can see and repeat those).
 */
const SAFE_TO_RESEND = new Set<MessageType>([
  'ui:lookup',
  'ui:verify-key',
  'ui:get-status',
  'ui:refresh-quota',
  'cs:lookup',
  'cs:lookup-detailed',
  'cs:page-summary',
  'cs:get-display-settings',
  'cs:load-card',
  'cs:get-pivots',
]);
const RESEND_ATTEMPTS = 2;

/** To the background service worker. */
export const sendToBackground: Connector = async (type, payload) => {
  let lastError: unknown;
  const attempts = SAFE_TO_RESEND.has(type) ? 1 + RESEND_ATTEMPTS : 1;
  for (let attempt = 0; attempt < attempts; attempt++) {
    try {
      return asReply(await browser.runtime.sendMessage({ type, payload }), 'The extension background');
    } catch (error) {
      lastError = error;
      // The extension was reloaded or removed: this context is orphaned, resending is useless.
      if (!browser.runtime?.id) break;
    }
  }
  return unreachable(lastError, 'The extension background');
};

/**
 * To the content script of one tab: the top frame unless a frameId is given, or every frame
 * with 'all' (the reply is then the first frame's to answer).
 */
export async function sendToTab<T extends MessageType>(
  tabId: number,
  type: T,
  payload: MessagePayload<T>,
  frameId: number | 'all' = 0,
): Promise<Reply<MessageReplies[T]>> {
  try {
    const message = { type, payload };
    const sent = frameId === 'all' ? browser.tabs.sendMessage(tabId, message) : browser.tabs.sendMessage(tabId, message, { frameId });
    return asReply(await sent, 'The page');
  } catch (error) {
    return unreachable(error, 'The page');
  }
}

/**
 * To the content scripts of every tab, in every frame. Tabs where ours does not run answer
 * `unreachable`, which is expected: the replies are not looked at.
 */
export async function sendToEveryTab<T extends MessageType>(type: T, payload: MessagePayload<T>): Promise<void> {
  let tabs: { id?: number }[];
  try {
    tabs = await browser.tabs.query({});
  } catch {
    return;
  }
  await Promise.all(tabs.map((tab) => (typeof tab.id === 'number' ? sendToTab(tab.id, type, payload, 'all') : undefined)));
}
