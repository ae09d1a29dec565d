/**
 * Checks the `tab:*` messages the content script answers, by hand: the same rules as their zod
 * schemas in lib/messaging.ts (a unit test compares both), without shipping zod to every page.
 * It is the content script's parser for lib/message-router.ts.
 */
import type { MessagePayload, ParsedMessage } from '../../messaging';
import { MAX_SHOW_LOOKUP_TEXT, MAX_UPDATED_IPS } from '../../protocol';
import { parseDisplaySettings } from './display-settings';

export type TabMessage =
  | { type: 'tab:get-page-ips'; payload: MessagePayload<'tab:get-page-ips'> }
  | { type: 'tab:show-lookup'; payload: MessagePayload<'tab:show-lookup'> }
  | { type: 'tab:results-stale'; payload: MessagePayload<'tab:results-stale'> }
  | { type: 'tab:lookups-recovered'; payload: MessagePayload<'tab:lookups-recovered'> }
  | { type: 'tab:results-updated'; payload: MessagePayload<'tab:results-updated'> }
  | { type: 'tab:display-settings'; payload: MessagePayload<'tab:display-settings'> };

export type TabMessageType = TabMessage['type'];

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}

function invalid(message: string): ParsedMessage {
  return { ok: false, error: { kind: 'invalid-message', message } };
}

function valid(envelope: TabMessage): ParsedMessage {
  return { ok: true, envelope };
}

/**
 * `{ ok: true, envelope }` for a valid tab message; `{ ok: false, error }` for one of ours that
 * is malformed; `null` for anything that is not a tab message (not ours to answer).
 */
export function parseTabMessage(raw: unknown): ParsedMessage | null {
  if (!isPlainObject(raw) || typeof raw.type !== 'string' || !raw.type.startsWith('tab:')) return null;
  const keys = Object.keys(raw);
  if (keys.some((k) => k !== 'type' && k !== 'payload') || !('payload' in raw)) return invalid('Unknown message.');
  const payload = raw.payload ?? {};
  // One template for every field: the content script's size is held to a limit.
  const bad = (field: string) => invalid(`Invalid ${raw.type} message: ${field}.`);
  if (!isPlainObject(payload)) return bad('payload');
  switch (raw.type) {
    case 'tab:get-page-ips':
    case 'tab:results-stale':
    case 'tab:lookups-recovered':
      if (Object.keys(payload).length) return bad('unexpected field');
      return valid({ type: raw.type, payload: {} });
    case 'tab:show-lookup': {
      const extra = Object.keys(payload).filter((k) => k !== 'text');
      if (extra.length || typeof payload.text !== 'string' || payload.text.length > MAX_SHOW_LOOKUP_TEXT) {
        return bad('text');
      }
      return valid({ type: 'tab:show-lookup', payload: { text: payload.text } });
    }
    case 'tab:results-updated': {
      const ips = payload.ips;
      const wellFormed =
        Object.keys(payload).every((k) => k === 'ips') &&
        Array.isArray(ips) &&
        ips.length >= 1 &&
        ips.length <= MAX_UPDATED_IPS &&
        ips.every((ip) => typeof ip === 'string' && ip.length >= 2 && ip.length <= 100);
      if (!wellFormed) return bad('ips');
      return valid({ type: 'tab:results-updated', payload: { ips: [...(ips as string[])] } });
    }
    case 'tab:display-settings': {
      const settings = parseDisplaySettings(payload);
      if (!settings) return bad('settings');
      return valid({ type: 'tab:display-settings', payload: settings });
    }
    default:
      return invalid('Unknown message.');
  }
}
