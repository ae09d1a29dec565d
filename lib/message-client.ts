/**
 * Sending side of the protocol. Never throws: a dead background, a closed tab or a page
 * without our content script come back as an `unreachable` error the UI can explain.
 */
import { browser } from 'wxt/browser';
import { asReply, backgroundConnector, unreachable } from './background-connector';
import type { MessagePayload, MessageReplies, MessageType } from './messaging';
import type { Reply } from './protocol';

export type { Connector } from './background-connector';

/** To the background service worker (extension pages; the content script has its own, see lib/native-runtime.ts). */
export const sendToBackground = backgroundConnector(() => browser.runtime);

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
