/**
 * Checks the `tab:*` messages the content script answers, by hand: the same rules as their zod
 * schemas in lib/messaging.ts (a unit test compares both), without shipping zod to every page.
 */
import { MAX_UPDATED_IPS, type MessagePayload, type MessageReplies, type Reply } from '../messaging';
import { parseDisplaySettings } from './display-settings';

export type TabMessage =
  | { type: 'tab:get-page-ips'; payload: MessagePayload<'tab:get-page-ips'> }
  | { type: 'tab:show-lookup'; payload: MessagePayload<'tab:show-lookup'> }
  | { type: 'tab:results-stale'; payload: MessagePayload<'tab:results-stale'> }
  | { type: 'tab:results-updated'; payload: MessagePayload<'tab:results-updated'> }
  | { type: 'tab:display-settings'; payload: MessagePayload<'tab:display-settings'> };

export type TabMessageType = TabMessage['type'];

const MAX_TEXT = 100_000;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}

/**
 * `{ ok: true, message }` for a valid tab message; `{ ok: false }` with the reason for one of
 * ours that is malformed; `null` for anything that is not a tab message (not ours to answer).
 */
export function parseTabMessage(raw: unknown): { ok: true; message: TabMessage } | { ok: false; reason: string } | null {
  if (!isPlainObject(raw) || typeof raw.type !== 'string' || !raw.type.startsWith('tab:')) return null;
  const keys = Object.keys(raw);
  if (keys.some((k) => k !== 'type' && k !== 'payload') || !('payload' in raw)) return { ok: false, reason: 'Unknown message.' };
  const payload = raw.payload ?? {};
  if (!isPlainObject(payload)) return { ok: false, reason: `Invalid ${raw.type} message: payload.` };
  switch (raw.type) {
    case 'tab:get-page-ips':
    case 'tab:results-stale':
      if (Object.keys(payload).length) return { ok: false, reason: `Invalid ${raw.type} message: unexpected field.` };
      return { ok: true, message: { type: raw.type, payload: {} } };
    case 'tab:show-lookup': {
      const extra = Object.keys(payload).filter((k) => k !== 'text');
      if (extra.length || typeof payload.text !== 'string' || payload.text.length > MAX_TEXT) {
        return { ok: false, reason: 'Invalid tab:show-lookup message: text.' };
      }
      return { ok: true, message: { type: 'tab:show-lookup', payload: { text: payload.text } } };
    }
    case 'tab:results-updated': {
      const ips = payload.ips;
      const valid =
        Object.keys(payload).every((k) => k === 'ips') &&
        Array.isArray(ips) &&
        ips.length >= 1 &&
        ips.length <= MAX_UPDATED_IPS &&
        ips.every((ip) => typeof ip === 'string' && ip.length >= 2 && ip.length <= 100);
      if (!valid) return { ok: false, reason: 'Invalid tab:results-updated message: ips.' };
      return { ok: true, message: { type: 'tab:results-updated', payload: { ips: [...(ips as string[])] } } };
    }
    case 'tab:display-settings': {
      const settings = parseDisplaySettings(payload);
      if (!settings) return { ok: false, reason: 'Invalid tab:display-settings message: settings.' };
      return { ok: true, message: { type: 'tab:display-settings', payload: settings } };
    }
    default:
      return { ok: false, reason: 'Unknown message.' };
  }
}

export type TabReply<T extends TabMessageType> = Reply<MessageReplies[T]>;

export function forbidden(type: string): Reply<never> {
  return { ok: false, error: { kind: 'forbidden', message: `${type} is not accepted from this sender.` } };
}

export function invalid(reason: string): Reply<never> {
  return { ok: false, error: { kind: 'invalid-message', message: reason } };
}
