/**
 * UiServices for unit tests: a scripted background (handlers per message type), in-memory
 * settings with the real all-or-nothing validation, and recorded permission requests.
 */
import type { MessagePayload, MessageReplies, MessageType } from '@/lib/messaging';
import type { Reply } from '@/lib/protocol';
import { DEFAULT_SETTINGS, settingsSchema, type Settings, type SettingKey } from '@/lib/settings';
import type { TabInfo, UiServices } from '@/lib/ui/shared/services';

type Handler<T extends MessageType> = (payload: MessagePayload<T>) => Reply<MessageReplies[T]> | Promise<Reply<MessageReplies[T]>>;
export type FakeHandlers = { [T in MessageType]?: Handler<T> };

export interface FakeServices extends UiServices {
  sent: { type: MessageType; payload: unknown }[];
  tabSent: { tabId: number; type: MessageType; payload: unknown }[];
  handlers: FakeHandlers;
  tabHandlers: FakeHandlers;
  stored: Settings;
  granted: Set<string>;
  requested: string[][];
  removed: string[][];
  denyRequests: boolean;
  tab: TabInfo | null;
  files: { name: string; mime: string; text: string }[];
  clipboard: string[];
  openedOptions: number;
}

export function ok<T>(value: T): Reply<T> {
  return { ok: true, value };
}

export function createFakeServices(init: Partial<Settings> = {}, now = Date.UTC(2025, 0, 15, 12, 0, 0)): FakeServices {
  const watchers = new Set<(changed: SettingKey[]) => void>();
  const fake: FakeServices = {
    sent: [],
    tabSent: [],
    handlers: {},
    tabHandlers: {},
    stored: { ...DEFAULT_SETTINGS, ...init },
    granted: new Set(),
    requested: [],
    removed: [],
    denyRequests: false,
    tab: null,
    files: [],
    clipboard: [],
    openedOptions: 0,
    send: async (type, payload) => {
      fake.sent.push({ type, payload });
      const handler = fake.handlers[type] as Handler<typeof type> | undefined;
      if (!handler) return { ok: false, error: { kind: 'unreachable', message: `no fake handler for ${type}` } };
      return handler(payload);
    },
    sendToTab: async (tabId, type, payload) => {
      fake.tabSent.push({ tabId, type, payload });
      const handler = fake.tabHandlers[type] as Handler<typeof type> | undefined;
      if (!handler) return { ok: false, error: { kind: 'unreachable', message: 'The page did not answer.' } };
      return handler(payload);
    },
    settings: {
      get: async () => structuredClone(fake.stored),
      save: async (patch) => {
        const next = settingsSchema.parse({ ...fake.stored, ...patch });
        fake.stored = next;
        const changed = Object.keys(patch) as SettingKey[];
        for (const w of watchers) w(changed);
        return structuredClone(next);
      },
      watch: (callback) => {
        watchers.add(callback);
        return () => watchers.delete(callback);
      },
    },
    permissions: {
      contains: async (origins) => origins.every((o) => fake.granted.has(o)),
      request: async (origins) => {
        fake.requested.push(origins);
        if (fake.denyRequests) return false;
        origins.forEach((o) => fake.granted.add(o));
        return true;
      },
      remove: async (origins) => {
        fake.removed.push(origins);
        origins.forEach((o) => fake.granted.delete(o));
        return true;
      },
    },
    currentTab: async () => fake.tab,
    openOptions: async () => {
      fake.openedOptions++;
    },
    copyText: async (text) => {
      fake.clipboard.push(text);
    },
    saveFile: (name, mime, text) => {
      fake.files.push({ name, mime, text });
    },
    now: () => now,
  };
  return fake;
}

/** Waits until pending promise callbacks (fake replies, signal updates) have run. */
export async function settle(rounds = 5): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise((r) => setTimeout(r, 0));
}
