/** A recording stand-in for the browser APIs lib/background/page-handlers.ts uses. */
import { vi } from 'vitest';
import type { PageBrowserApi } from '@/lib/background/page-handlers';
import type { RegisteredScript, ScriptRegistration } from '@/lib/background/site-registration';

type Listener<A extends unknown[]> = (...args: A) => void;

function event<A extends unknown[]>() {
  const listeners: Listener<A>[] = [];
  return {
    addListener: (cb: Listener<A>) => void listeners.push(cb),
    fire: (...args: A) => listeners.forEach((l) => l(...args)),
    get count() {
      return listeners.length;
    },
  };
}

export function fakePageApi(options: { granted?: string[] } = {}) {
  const granted = new Set(options.granted ?? []);
  const registered = new Map<string, ScriptRegistration>();
  const badges = new Map<number, string>();
  const session = new Map<string, unknown>();
  const menus: { id: string; title: string; contexts: string[] }[] = [];
  const injections: { tabId: number; allFrames?: boolean; frameIds?: number[] }[] = [];
  const shown: { tabId: number; frameId: number; text: string }[] = [];
  const copied: { tabId: number; frameId: number; text: string }[] = [];
  /** What copyInFrame answers: the page may refuse the clipboard. */
  const clipboard = { allowed: true };
  /** What each frame answers to a function run in it (the keyboard shortcut), by tab. */
  const frames = new Map<number, { frameId: number; lens: boolean; focused: boolean }[]>();
  const keys: { tabId: number; frameId: number }[] = [];
  const events = {
    onInstalled: event<[]>(),
    onClicked: event<[{ menuItemId: string; selectionText?: string; frameId?: number }, { id?: number } | undefined]>(),
    onCommand: event<[string, { id?: number } | undefined]>(),
    onUpdated: event<[number, { status?: string; url?: string }]>(),
    onRemoved: event<[number]>(),
    permAdded: event<[]>(),
    permRemoved: event<[]>(),
  };
  const api: PageBrowserApi = {
    scripting: {
      getRegisteredContentScripts: vi.fn(async (filter?: { ids?: string[] }) =>
        [...registered.values()].filter((s) => !filter?.ids || filter.ids.includes(s.id)) as RegisteredScript[],
      ),
      registerContentScripts: vi.fn(async (scripts: ScriptRegistration[]) => {
        for (const s of scripts) {
          if (registered.has(s.id)) throw new Error(`Duplicate script ID '${s.id}'`);
          registered.set(s.id, s);
        }
      }),
      updateContentScripts: vi.fn(async (scripts: ScriptRegistration[]) => {
        for (const s of scripts) registered.set(s.id, { ...registered.get(s.id)!, ...s });
      }),
      unregisterContentScripts: vi.fn(async (filter?: { ids?: string[] }) => {
        for (const id of filter?.ids ?? [...registered.keys()]) registered.delete(id);
      }),
      executeScript: vi.fn(async (injection: { target: { tabId: number; allFrames?: boolean; frameIds?: number[] }; files: string[] }) => {
        if (injection.target.tabId === 666) throw new Error('Cannot access a chrome:// URL');
        injections.push(injection.target);
        return [];
      }),
    },
    permissions: {
      contains: vi.fn(async ({ origins }: { origins: string[] }) => origins.every((o) => granted.has(o))),
      onAdded: events.permAdded,
      onRemoved: events.permRemoved,
    },
    action: {
      setBadgeText: vi.fn(async ({ tabId, text }: { tabId: number; text: string }) => void badges.set(tabId, text)),
      setBadgeBackgroundColor: vi.fn(async () => {}),
    },
    session: {
      get: async (key: string) => (session.has(key) ? { [key]: structuredClone(session.get(key)) } : {}),
      set: async (items: Record<string, unknown>) => {
        for (const [k, v] of Object.entries(items)) session.set(k, structuredClone(v));
      },
    },
    contextMenus: {
      removeAll: vi.fn(async () => void (menus.length = 0)),
      create: vi.fn((p: { id: string; title: string; contexts: string[] }) => void menus.push(p)),
      onClicked: events.onClicked,
    },
    commands: { onCommand: events.onCommand },
    tabs: { onUpdated: events.onUpdated, onRemoved: events.onRemoved },
    runtime: { onInstalled: events.onInstalled },
    showLookup: vi.fn(async (tabId: number, frameId: number, text: string) => void shown.push({ tabId, frameId, text })),
    copyInFrame: vi.fn(async (tabId: number, frameId: number, text: string) => {
      if (clipboard.allowed) copied.push({ tabId, frameId, text });
      return clipboard.allowed;
    }),
    runInFrames: vi.fn(async ({ target, func }) => {
      const all = frames.get(target.tabId) ?? [];
      const chosen = target.allFrames ? all : all.filter((f) => target.frameIds?.includes(f.frameId));
      if (func.name === 'pressKey') {
        for (const f of chosen) keys.push({ tabId: target.tabId, frameId: f.frameId });
        return chosen.map((f) => ({ frameId: f.frameId, result: f.lens }));
      }
      return chosen.map(({ frameId, lens, focused }) => ({ frameId, result: { lens, focused } }));
    }),
  };
  return { api, granted, registered, badges, session, menus, injections, shown, copied, clipboard, events, frames, keys };
}

export function memorySites(initial: string[] = []) {
  let value = [...initial];
  const watchers: (() => void)[] = [];
  return {
    get: async () => [...value],
    set: async (next: string[]) => {
      value = [...next];
      watchers.forEach((w) => w());
    },
    watch: (cb: () => void) => void watchers.push(cb),
    get value() {
      return value;
    },
  };
}
