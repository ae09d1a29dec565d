/**
 * Receiving side of the protocol: checks who sent a message and that its payload fits the
 * schema before a handler runs, and turns every outcome (value, ApiError, bug) into a Reply.
 */
import { ApiError } from './api/errors';
import {
  parseEnvelope,
  type MessagePayload,
  type MessageReplies,
  type MessageType,
  type Reply,
} from './messaging';

export interface SenderInfo {
  id?: string;
  url?: string;
  tab?: { id?: number; url?: string };
  frameId?: number;
  documentId?: string;
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

export function createRouter<T extends MessageType>(handlers: Handlers<T>, opts: RouterOptions) {
  return async function route(raw: unknown, sender: SenderInfo): Promise<Reply<unknown> | undefined> {
    const parsed = parseEnvelope(raw);
    if (!parsed.ok) return { ok: false, error: parsed.error };
    const { type, payload } = parsed.envelope;
    // Not ours to answer (e.g. a tab:* message seen by the background): stay silent.
    if (!(type in handlers)) return undefined;
    if (!isAllowedSender(type, sender, opts)) {
      return { ok: false, error: { kind: 'forbidden', message: `${type} is not accepted from this sender.` } };
    }
    try {
      const handler = handlers[type as T] as (p: unknown, s: SenderInfo) => unknown;
      return { ok: true, value: await handler(payload, sender) };
    } catch (error) {
      if (error instanceof ApiError) return { ok: false, error: error.toJSON() };
      const message = error instanceof Error ? error.message : String(error);
      return { ok: false, error: { kind: 'internal', message } };
    }
  };
}
