/**
 * Sending side of the protocol. Never throws: a dead background, a closed tab or a page
 * without our content script come back as an `unreachable` error the UI can explain.
 */
import { browser } from 'wxt/browser';
import type { MessagePayload, MessageReplies, MessageType, Reply } from './messaging';

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

/** To the background service worker. */
export const sendToBackground: Connector = async (type, payload) => {
  try {
    return asReply(await browser.runtime.sendMessage({ type, payload }), 'The extension background');
  } catch (error) {
    return unreachable(error, 'The extension background');
  }
};

/** To the content script of one tab (top frame unless a frameId is given). */
export async function sendToTab<T extends MessageType>(
  tabId: number,
  type: T,
  payload: MessagePayload<T>,
  frameId = 0,
): Promise<Reply<MessageReplies[T]>> {
  try {
    return asReply(await browser.tabs.sendMessage(tabId, { type, payload }, { frameId }), 'The page');
  } catch (error) {
    return unreachable(error, 'The page');
  }
}
