/**
 * Receiving side of the protocol, for every context: checks who sent a message and that its
 * payload fits before a handler runs, and turns every outcome (value, ApiError, bug) into a
 * Reply. The payload check is passed in: the background's zod schemas (lib/messaging.ts), the
 * content script's hand-written parser (lib/page/messages/tab-messages.ts), so zod stays off the page.
 */
import { ApiError } from './api/errors';
import type { MessageParser, MessagePayload, MessageReplies, MessageType } from './messaging';
import type { Reply } from './protocol';

export interface SenderInfo {
  id?: string;
  url?: string;
  tab?: { id?: number; url?: string };
  frameId?: number;
  documentId?: string;
  /** Chromium's `active` / `prerender` / `cached` (bfcache); absent in Firefox. */
  documentLifecycle?: string;
}

/**
 * A handler's refusal of a well-formed message from an allowed sender (a trust rule said no):
 * answered as a `forbidden` Reply carrying this sentence, which the UI shows as it is.
 */
export class Refusal extends Error {
  override readonly name = 'Refusal';
}

export type Handlers<T extends MessageType> = {
  [K in T]: (payload: MessagePayload<K>, sender: SenderInfo) => Promise<MessageReplies[K]> | MessageReplies[K];
};

export interface RouterOptions {
  /** This extension's id (`browser.runtime.id`). */
  extensionId: string;
  /** This extension's origin, e.g. `chrome-extension://abc/`. */
  extensionOrigin: string;
}

/**
 * Who may send what: `ui:*` only from this extension's own pages (popup, options), `cs:*` only
 * from this extension's content scripts (they run in a tab), `tab:*` only from this extension.
 */
export function isAllowedSender(type: MessageType, sender: SenderInfo, opts: RouterOptions): boolean {
  if (sender.id !== opts.extensionId) return false;
  const fromExtensionPage = typeof sender.url === 'string' && sender.url.startsWith(opts.extensionOrigin);
  if (type.startsWith('ui:')) return fromExtensionPage;
  if (type.startsWith('cs:')) return !fromExtensionPage && typeof sender.tab?.id === 'number';
  return true;
}

/** The answer to a message its sender may not send. */
export function forbidden(type: string): Reply<never> {
  return { ok: false, error: { kind: 'forbidden', message: `${type} is not accepted from this sender.` } };
}

/**
 * A listener for `runtime.onMessage`: a promise of the Reply, or undefined (synchronously) for
 * a message that is someone else's to answer, so the browser leaves it to them.
 */
export function createRouter<T extends MessageType>(handlers: Handlers<T>, opts: RouterOptions & { parse: MessageParser }) {
  async function handle(type: T, payload: unknown, sender: SenderInfo): Promise<Reply<unknown>> {
    try {
      const handler = handlers[type] as (p: unknown, s: SenderInfo) => unknown;
      return { ok: true, value: await handler(payload, sender) };
    } catch (error) {
      if (error instanceof ApiError) return { ok: false, error: error.toJSON() };
      if (error instanceof Refusal) return { ok: false, error: { kind: 'forbidden', message: error.message } };
      const message = error instanceof Error ? error.message : String(error);
      return { ok: false, error: { kind: 'internal', message } };
    }
  }
  return function route(raw: unknown, sender: SenderInfo): Promise<Reply<unknown>> | undefined {
    const parsed = opts.parse(raw);
    if (parsed === null) return undefined;
    if (!parsed.ok) return Promise.resolve({ ok: false, error: parsed.error });
    const { type, payload } = parsed.envelope;
    // Not ours to answer (e.g. a tab:* message seen by the background): stay silent.
    if (!(type in handlers)) return undefined;
    if (!isAllowedSender(type, sender, opts)) return Promise.resolve(forbidden(type));
    return handle(type as T, payload, sender);
  };
}
