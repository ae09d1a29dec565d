/**
 * The page half of the background: where the content script runs ("Sites to scan" registered
 * at runtime, one-off scans through activeTab), the context menu and keyboard shortcut, and the
 * toolbar badge. Constructed synchronously; `start()` registers every listener synchronously,
 * as MV3 requires for events to wake a stopped service worker.
 */
import { browser } from 'wxt/browser';
import { findIps } from '../ip';
import type { LookupOptions } from '../lookup/lookup-service';
import type { LookupResult } from '../lookup/types';
import { sendToTab } from '../message-client';
import type { Handlers, SenderInfo } from '../message-router';
import { getSetting, saveSettings, sitePatternSchema, watchSettings } from '../settings';
import { createBadge, type BadgeApi } from './badge';
import { FrameAsks } from './frame-asks';
import { createMenus, menuAction, type MenuApi, type MenuClick } from './context-menu';
import { injectCard, injectContentScript, type InjectApi } from './inject-content-script';
import { nextIpCommand, NEXT_IP_COMMAND, type KeyboardApi } from './keyboard-command';
import type { PivotService } from './pivot-handlers';
import type { StixService } from './stix-handlers';
import { createSiteRegistration, type RegistrationApi, type SitesSetting } from './site-registration';

export type PageMessageType = 'ui:set-site-scanning' | 'ui:scan-tab' | 'cs:page-summary' | 'cs:load-card';

/** The browser APIs this module uses, so tests can pass fakes. */
export interface PageBrowserApi extends MenuApi {
  scripting: RegistrationApi['scripting'] & InjectApi['scripting'];
  action: BadgeApi['action'];
  session?: BadgeApi['session'];
  permissions: RegistrationApi['permissions'] & {
    onAdded: { addListener(cb: () => void): void };
    onRemoved: { addListener(cb: () => void): void };
  };
  contextMenus: MenuApi['contextMenus'] & {
    onClicked: { addListener(cb: (info: MenuClick, tab?: { id?: number }) => void): void };
  };
  commands: { onCommand: { addListener(cb: (command: string, tab?: { id?: number }) => void): void } };
  tabs: {
    onUpdated: { addListener(cb: (tabId: number, change: { status?: string; url?: string }) => void): void };
    onRemoved: { addListener(cb: (tabId: number) => void): void };
  };
  runtime: { onInstalled: { addListener(cb: () => void): void } };
  /** tab:show-lookup to one frame of a tab. */
  showLookup(tabId: number, frameId: number, text: string): Promise<void>;
  /** Writes text to the clipboard from one frame of a tab; false when the page refused. */
  copyInFrame(tabId: number, frameId: number, text: string): Promise<boolean>;
  /** `scripting.executeScript` with a function (the keyboard shortcut's way into a frame). */
  runInFrames: KeyboardApi['runInFrames'];
}

export interface PageHandlerDeps {
  /** The lookup service, for the context menu's selection lookup (a manual lookup). */
  lookup: { lookup(ips: readonly string[], options: LookupOptions): Promise<LookupResult[]> };
  api?: PageBrowserApi;
  sites?: SitesSetting & { watch(cb: () => void): void };
  /** Longest wait for the selection's lookup before the card opens anyway. */
  selectionWarmupMs?: number;
  /** What each frame was told (noted by the lookup handlers): page summaries are checked against it. */
  frameAsks?: FrameAsks;
  /** The "Open IP in" entries of the context menu (none without it). */
  pivots?: PivotService;
  /** "Copy IP as STIX 2.1" (the entry does nothing without it). */
  stix?: StixService;
}

/**
 * Runs in the page's frame (scripting.executeScript with `func`: it must hold no outer
 * reference). The Clipboard API where the page allows it; else a textarea in a closed shadow
 * root of our own, taken out again at once, and the old copy command.
 */
async function writeClipboardInPage(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const host = document.createElement('span');
    const area = document.createElement('textarea');
    area.value = text;
    host.attachShadow({ mode: 'closed' }).append(area);
    document.documentElement.append(host);
    try {
      area.select();
      return document.execCommand('copy');
    } catch {
      return false;
    } finally {
      host.remove();
    }
  }
}

export function browserPageApi(): PageBrowserApi {
  const b = browser as unknown as Omit<PageBrowserApi, 'session' | 'showLookup' | 'copyInFrame' | 'runInFrames'> & {
    storage: { session: NonNullable<BadgeApi['session']> };
  };
  return {
    scripting: b.scripting,
    permissions: b.permissions,
    action: b.action,
    session: b.storage.session,
    contextMenus: b.contextMenus,
    commands: b.commands,
    tabs: b.tabs,
    runtime: b.runtime,
    runInFrames: (injection) => (browser.scripting.executeScript as (i: typeof injection) => Promise<unknown[]>)(injection),
    async showLookup(tabId, frameId, text) {
      const reply = await sendToTab(tabId, 'tab:show-lookup', { text }, frameId);
      if (!reply.ok) throw new Error(reply.error.message);
    },
    async copyInFrame(tabId, frameId, text) {
      const [first] = await browser.scripting.executeScript({ target: { tabId, frameIds: [frameId] }, func: writeClipboardInPage, args: [text] });
      return first?.result === true;
    },
  };
}

const settingsSites: SitesSetting & { watch(cb: () => void): void } = {
  get: () => getSetting('sitesToScan'),
  set: async (patterns) => void (await saveSettings({ sitesToScan: patterns })),
  // The user's list or the organisation's policy (a managed list is registered the same way).
  watch: (cb) => void watchSettings((changed) => changed.includes('sitesToScan') && cb()),
};

export function createPageHandlers(deps: PageHandlerDeps) {
  const api = deps.api ?? browserPageApi();
  const sites = deps.sites ?? settingsSites;
  const registration = createSiteRegistration(api, sites);
  const badge = createBadge(api);
  const frameAsks = deps.frameAsks ?? new FrameAsks();

  async function lookupSelection(tabId: number, frameId: number, text: string): Promise<void> {
    await injectContentScript(api, tabId, [frameId]);
    const ips = [...new Set(findIps(text).map((m) => m.ip))].slice(0, 100);
    if (ips.length) {
      // A manual lookup (it may use the quota reserve, the analyst asked for it); the card's own
      // request then answers from the cache. Capped so a slow API cannot hold the card back.
      const warm = deps.lookup.lookup(ips, { priority: 'manual' }).catch(() => undefined);
      await Promise.race([warm, new Promise((r) => setTimeout(r, deps.selectionWarmupMs ?? 3000))]);
    }
    await api.showLookup(tabId, frameId, text);
  }

  /**
   * "Open IP in …" on a selection: the first IP in it. Without one, the selection card says
   * "No IP address in the selected text" rather than nothing happening.
   */
  async function openSelectionIn(tabId: number, frameId: number, pivotId: string, text: string): Promise<void> {
    const ip = findIps(text)[0]?.ip;
    if (!ip || !deps.pivots) return lookupSelection(tabId, frameId, '');
    await deps.pivots.open(pivotId, ip, tabId);
  }

  /**
   * "Copy IP as STIX 2.1": the selection's first IP, looked up as a manual lookup, its bundle
   * built here and written to the clipboard from the page's frame. A page that refuses the
   * clipboard (no focus, a plain-http console) gets the selection card instead, whose
   * "Copy as STIX" button copies on the analyst's click.
   */
  async function copySelectionAsStix(tabId: number, frameId: number, text: string): Promise<void> {
    if (!deps.stix) return;
    const built = await deps.stix.stixForSelection(text, (t) => findIps(t)[0]?.ip).catch(() => null);
    const copied = built ? await api.copyInFrame(tabId, frameId, built.text).catch(() => false) : false;
    if (!copied) await lookupSelection(tabId, frameId, text);
  }

  async function refreshMenus(): Promise<void> {
    await createMenus(api, deps.pivots ? await deps.pivots.choices() : []);
  }

  const handlers: Handlers<PageMessageType> = {
    'ui:set-site-scanning': async ({ pattern, enabled }) => {
      const parsed = sitePatternSchema.safeParse(pattern);
      if (!parsed.success) throw new Error(parsed.error.issues[0]?.message ?? 'Not a valid site pattern.');
      return { patterns: await registration.setSite(parsed.data, enabled) };
    },
    'ui:scan-tab': async ({ tabId }) => {
      await injectContentScript(api, tabId);
      return { injected: true };
    },
    'cs:page-summary': async ({ riskyIps }, sender: SenderInfo) => {
      const tabId = sender.tab?.id;
      if (typeof tabId === 'number') {
        const frame = { tabId, frameId: sender.frameId ?? 0, documentId: sender.documentId ?? '' };
        // Only IPs this frame was given a reputation for: a frame cannot set the badge at will.
        await frameAsks.ready();
        await badge.report(tabId, frame.frameId, frame.documentId, riskyIps, (ip) => frameAsks.wasTold(frame, ip));
      }
      return { ok: true as const };
    },
    'cs:load-card': async (_payload, sender: SenderInfo) => {
      const tabId = sender.tab?.id;
      if (typeof tabId !== 'number') throw new Error('The hover card loads only into a tab.');
      await injectCard(api, tabId, sender.frameId ?? 0);
      return { loaded: true as const };
    },
  };

  function start(): void {
    api.runtime.onInstalled.addListener(() => void refreshMenus().catch(() => undefined));
    deps.pivots?.watch(() => void refreshMenus().catch(() => undefined));
    api.contextMenus.onClicked.addListener((info, tab) => {
      const action = menuAction(info, tab?.id);
      if (action?.kind === 'scan-page') void injectContentScript(api, action.tabId).catch(() => undefined);
      if (action?.kind === 'lookup-selection') {
        void lookupSelection(action.tabId, action.frameId, action.text).catch(() => undefined);
      }
      if (action?.kind === 'copy-stix') {
        void copySelectionAsStix(action.tabId, action.frameId, action.text).catch(() => undefined);
      }
      if (action?.kind === 'pivot') {
        void openSelectionIn(action.tabId, action.frameId, action.pivotId, action.text).catch(() => undefined);
      }
    });
    api.commands.onCommand.addListener((command, tab) => {
      if (command === 'scan-page' && typeof tab?.id === 'number') {
        void injectContentScript(api, tab.id).catch(() => undefined);
      }
      if (command === NEXT_IP_COMMAND && typeof tab?.id === 'number') {
        const keyboard = { runInFrames: api.runInFrames, scan: (tabId: number) => injectContentScript(api, tabId) };
        void nextIpCommand(keyboard, tab.id).catch(() => undefined);
      }
    });
    api.tabs.onUpdated.addListener((tabId, change) => {
      // A new URL loading in the tab: its old counts are gone (Chrome resets the badge too).
      if (change.status === 'loading' && change.url) void badge.clearTab(tabId);
    });
    api.tabs.onRemoved.addListener((tabId) => void badge.forgetTab(tabId));
    api.permissions.onAdded.addListener(() => void registration.sync().catch(() => undefined));
    api.permissions.onRemoved.addListener(() => void registration.sync().catch(() => undefined));
    sites.watch(() => void registration.sync().catch(() => undefined));
    // The setting may have changed while the worker was stopped (or registrations were lost).
    void registration.sync().catch(() => undefined);
  }

  return { handlers, start, registration, badge };
}
