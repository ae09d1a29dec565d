/**
 * The real UiServices: the extension's messaging, storage.local settings, the permissions API
 * and the tabs API. Only the popup and options entry points create it.
 */
import { browser } from 'wxt/browser';
import { sendToBackground, sendToTab } from '../../message-client';
import type { TabInfo, UiServices } from './services';

/** `?tab=<id>` lets tests (and the keyboard command) name the tab the popup inspects. */
export function tabIdFromSearch(search: string): number | null {
  const raw = new URLSearchParams(search).get('tab');
  if (raw === null || !/^\d{1,10}$/.test(raw)) return null;
  return Number(raw);
}

async function currentTab(search: string): Promise<TabInfo | null> {
  const named = tabIdFromSearch(search);
  try {
    const tab =
      named !== null
        ? await browser.tabs.get(named)
        : (await browser.tabs.query({ active: true, currentWindow: true }))[0];
    if (!tab || typeof tab.id !== 'number') return null;
    // The popup opened in a tab of its own (a test, or a pinned popup tab) inspects itself:
    // Chromium 150 gives no URL of the extension's own tab without the "tabs" permission, and
    // an unknown URL is tried as a web page ("not scanned") instead of "cannot read it".
    const url = tab.url ?? (tab.id === (await browser.tabs.getCurrent())?.id ? location.href : undefined);
    return { id: tab.id, url, title: tab.title };
  } catch {
    // A closed tab or a window without tabs: the popup shows "no page" instead of failing.
    return null;
  }
}

function saveFile(name: string, mime: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: mime }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.rel = 'noopener';
  document.body.append(link);
  link.click();
  link.remove();
  // Revoke later: revoking at once can cancel the download in some browsers.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

async function copyText(text: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    // Clipboard API refused (no focus): fall back to a hidden textarea and execCommand.
    const area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.style.position = 'fixed';
    area.style.opacity = '0';
    document.body.append(area);
    area.select();
    const ok = document.execCommand('copy');
    area.remove();
    if (!ok) throw new Error('The browser refused to copy to the clipboard.');
  }
}

/**
 * lib/settings (and zod inside it, most of the pages' shared chunk) loads on first use, so
 * the popup's first render does not wait to parse it: the quota and page list come from
 * messages, and settings arrive alongside them.
 */
const settingsModule = () => import('../../settings');

function lazySettings(): UiServices['settings'] {
  return {
    get: async () => (await settingsModule()).getSettings(),
    // Written by the background, which finishes a save even if this page closes right after
    // the click (lib/background/settings-handlers.ts).
    save: async (patch) => {
      const reply = await sendToBackground('ui:save-settings', { patch });
      if (!reply.ok) throw new Error(reply.error.message);
      return reply.value;
    },
    policy: async () => {
      const m = await settingsModule();
      return m.managedView(await m.readManagedPolicy());
    },
    watch: (callback) => {
      let stopped = false;
      let unwatch: (() => void) | null = null;
      void settingsModule().then((m) => {
        if (!stopped) unwatch = m.watchSettings(callback);
      });
      return () => {
        stopped = true;
        unwatch?.();
      };
    },
  };
}

export function createBrowserServices(search = location.search): UiServices {
  return {
    send: sendToBackground,
    sendToTab: (tabId, type, payload) => sendToTab(tabId, type, payload),
    settings: lazySettings(),
    permissions: {
      contains: (origins) => browser.permissions.contains({ origins }),
      request: (origins) => browser.permissions.request({ origins }),
      // Never give back what the extension ships with (the default API, the e2e build's
      // loopback): Chrome refuses anyway, but Firefox revokes it, and a later change of API
      // address would then strand the extension without access to its own default server.
      remove: (origins) => {
        const required = new Set(browser.runtime.getManifest().host_permissions ?? []);
        const removable = origins.filter((origin) => !required.has(origin));
        return removable.length ? browser.permissions.remove({ origins: removable }) : Promise.resolve(false);
      },
    },
    currentTab: () => currentTab(search),
    openOptions: () => browser.runtime.openOptionsPage(),
    copyText,
    saveFile,
    now: () => Date.now(),
  };
}
