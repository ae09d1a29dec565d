/**
 * Sending to the background, without the browser API it goes through: extension pages pass the
 * polyfill's runtime (lib/message-client.ts), the content script the browser's own
 * (lib/native-runtime.ts), so webextension-polyfill stays out of the page. Never throws: a dead
 * background, a closed tab or a page without our content script come back as an `unreachable`
 * error the UI can explain.
 */
import type { MessagePayload, MessageReplies, MessageType } from './messaging';
import type { Reply } from './protocol';

export type Connector = <T extends MessageType>(
  type: T,
  payload: MessagePayload<T>,
) => Promise<Reply<MessageReplies[T]>>;

export function unreachable(error: unknown, what: string): Reply<never> {
  const detail = error instanceof Error ? error.message : String(error);
  return { ok: false, error: { kind: 'unreachable', message: `${what} did not answer (${detail}).` } };
}

export function asReply<T>(value: unknown, what: string): Reply<T> {
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
/**
 * A resent `ui:lookup` says so in its payload (`resent: true`): a lookup cut off by a stopped
 * worker may have been paid, and the background answers its IPs "interrupted" rather than pay
 * again, unless /account proves the first call was not billed. One comparison, not a set: the
 * content script carries this connector.
 */
const MARKS_RESENDS: MessageType = 'ui:lookup';

/** What a connector needs of the runtime: the polyfill's `browser.runtime` or the native one. */
export interface MessagingRuntime {
  readonly id?: string;
  sendMessage(message: unknown): Promise<unknown>;
}

/**
 * A sender to the background service worker over `runtime()` (read at each attempt: an
 * orphaned context loses it). Never throws: see the file comment.
 */
export function backgroundConnector(runtime: () => MessagingRuntime | undefined): Connector {
  return async (type, payload) => {
    let lastError: unknown;
    const attempts = SAFE_TO_RESEND.has(type) ? 1 + RESEND_ATTEMPTS : 1;
    for (let attempt = 0; attempt < attempts; attempt++) {
      try {
        const api = runtime();
        if (!api) throw new Error('the extension was reloaded or removed');
        const sent = attempt > 0 && type === MARKS_RESENDS ? { ...payload, resent: true } : payload;
        return asReply(await api.sendMessage({ type, payload: sent }), 'The extension background');
      } catch (error) {
        lastError = error;
        // The extension was reloaded or removed: this context is orphaned, resending is useless.
        if (!runtime()?.id) break;
      }
    }
    return unreachable(lastError, 'The extension background');
  };
}
