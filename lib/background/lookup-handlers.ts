/**
 * The lookup half of the background's message handlers: every message that looks IPs up or
 * reports on lookups. Built synchronously (the background registers its listeners at start-up,
 * as MV3 requires to be woken by a message); everything async starts lazily on first use.
 */
import { browser } from 'wxt/browser';
import { CircuitBreaker } from '../api/circuit';
import { sendToEveryTab } from '../message-client';
import type { Handlers, SenderInfo } from '../message-router';
import { createIdbCacheStore } from '../lookup/idb-cache-store';
import { LookupService, type LookupServiceOptions } from '../lookup/lookup-service';
import { DEFAULT_LOOKUP_POLICY, getSetting, watchSettings, type SettingKey } from '../settings';
import { clientFromSettings } from './client-from-settings';
import { systemClock } from '../lookup/clock';
import type { LookupResult } from '../lookup/types';
import { isCapReason } from '../severity';
import { DetailRate } from './detail-rate';
import { browserTabInFront, checkDetailedAsk, frameOf } from './detail-trust';
import { FrameAsks } from './frame-asks';
import { storageLedgerStore } from './quota-ledger-storage';
import { sessionValue } from './session-value';
import { onWakeAlarm, scheduleWakeAlarm } from './wake-alarm';

export type LookupMessageType =
  | 'ui:lookup'
  | 'ui:verify-key'
  | 'ui:test-key'
  | 'ui:get-status'
  | 'ui:refresh-quota'
  | 'ui:clear-cache'
  | 'ui:get-page-cap'
  | 'ui:look-up-past-cap'
  | 'cs:lookup'
  | 'cs:lookup-detailed';

/**
 * Settings that make a new client. The service sorts out what each one means: a new base URL
 * drops the cached answers (another server's data); a new key or base URL starts another quota
 * ledger; a new auth header keeps both (same server, same key).
 */
const CREDENTIALS: readonly SettingKey[] = ['apiKey', 'apiBaseUrl', 'authHeader', 'gatewayUrl', 'gatewayAuth', 'gatewayToken'];

/** The site of a URL for the caps: its host (with any port); '?' when unknown or not a URL. */
export function siteOfUrl(url: string | undefined): string {
  try {
    return url ? new URL(url).host || '?' : '?';
  } catch {
    return '?';
  }
}

/**
 * Whom a content script's automatic lookups are counted against: its tab and the site of the
 * tab's top page, so every frame of a tab (whatever its own origin) and every reload count
 * together. The browser fills `sender.tab.url`, not the page: a frame cannot pick its site.
 */
export function capKeyOf(tabId: number | undefined, tabUrl: string | undefined): { source: string; site: string } {
  const site = siteOfUrl(tabUrl);
  return { source: `${tabId ?? 'none'}|${site}`, site };
}

export interface LookupHandlerDeps {
  /** The URL of a tab's top page (browser.tabs.get); undefined when unknown. */
  tabUrl?: (tabId: number) => Promise<string | undefined>;
  /** Where the answers each frame was given are noted (the page handlers check summaries against it). */
  frameAsks?: FrameAsks;
  detailRate?: DetailRate;
  /** Whether a tab is the active tab of the last-focused window (detail-trust.ts). */
  tabInFront?: (tabId: number) => Promise<boolean>;
  /** A tab's page was refused lookups by the cap: the toolbar button's tooltip says so. */
  capReached?: (tabId: number) => Promise<void>;
}

/**
 * The toolbar button's tooltip of a tab past its cap (the badge keeps its one meaning, the
 * count of risky IPs). The browser resets it when the tab navigates.
 */
export const CAP_REACHED_TITLE = 'IP Reputation Lens: this page reached its cap of automatic lookups. Open to look up the rest.';

async function browserCapReached(tabId: number): Promise<void> {
  try {
    await browser.action.setTitle({ tabId, title: CAP_REACHED_TITLE });
  } catch {
    // The tab closed meanwhile: nothing to tell.
  }
}

const browserTabUrl = async (tabId: number) => (await browser.tabs.get(tabId)).url;

/** Tests replace the browser-bound parts (stores, client, clock). */
export type LookupHandlerOverrides = Partial<Omit<LookupServiceOptions, 'initialPolicy'>>;

export function createLookupHandlers(overrides: LookupHandlerOverrides = {}, deps: LookupHandlerDeps = {}) {
  const tabUrl = deps.tabUrl ?? browserTabUrl;
  const frameAsks = deps.frameAsks ?? new FrameAsks();
  const detailTrust = {
    frameAsks,
    rate: deps.detailRate ?? new DetailRate({ clock: overrides.clock ?? systemClock }),
    tabInFront: deps.tabInFront ?? browserTabInFront(browser),
  };
  const capReached = deps.capReached ?? browserCapReached;
  const told = (sender: SenderInfo, results: LookupResult[]) => {
    frameAsks.note(frameOf(sender), results);
    const tabId = sender.tab?.id;
    if (tabId !== undefined && results.some((r) => r.status === 'skipped' && isCapReason(r.reason))) void capReached(tabId);
    return results;
  };
  const capOfTab = async (tabId: number) => capKeyOf(tabId, await tabUrl(tabId).catch(() => undefined));
  // One breaker per endpoint for every client the settings make, and for the engine that plans
  // the calls; its state outlives the worker (storage.session), so a restarted worker does not
  // hammer an endpoint its predecessor found failing.
  const circuit =
    overrides.circuit ??
    new CircuitBreaker({ clock: overrides.clock ?? systemClock, store: sessionValue(browser.storage.session, 'circuits') });
  const service = new LookupService({
    clientSource: () => clientFromSettings({ circuit }),
    circuit,
    lostAnswerStore: sessionValue(browser.storage.session, 'lostAnswers'),
    probeCandidateStore: sessionValue(browser.storage.session, 'probeCandidates'),
    // The bulk circuit's next probe outlives the worker (wake-alarm.ts); start() listens.
    scheduleWake: (at) => scheduleWakeAlarm(at),
    policySource: () => getSetting('lookupPolicy'),
    initialPolicy: DEFAULT_LOOKUP_POLICY,
    cacheStore: createIdbCacheStore(),
    ledgerStore: storageLedgerStore,
    pageCapStore: sessionValue(browser.storage.session, 'pageCap'),
    // A site's day outlives a browser restart (storage.local, our pages and worker only).
    siteCapStore: sessionValue(browser.storage.local, 'siteDailyCap'),
    journalStore: sessionValue(browser.storage.session, 'callJournal'),
    recoveryStore: sessionValue(browser.storage.session, 'recoveryWatch'),
    // Open pages show the old server's answers: they forget them and ask again.
    onServerChanged: () => void sendToEveryTab('tab:results-stale', {}),
    // The server answers again after failures: pages re-ask the IPs that failed.
    onRecovered: () => void sendToEveryTab('tab:lookups-recovered', {}),
    ...overrides,
  });

  /** Registers the settings watcher (synchronously, like the worker's other listeners). */
  function start(): void {
    onWakeAlarm(() => void service.wake());
    watchSettings((changed) => {
      if (changed.some((key) => CREDENTIALS.includes(key))) service.credentialsChanged();
      if (changed.includes('lookupPolicy')) service.policyChanged();
    });
  }

  const handlers: Handlers<LookupMessageType> = {
    'ui:lookup': ({ ips, detailed, retryLost, resent }) =>
      service.lookup(ips, { priority: 'manual', detailed: detailed ?? false, retryLost: retryLost === true, resent: resent === true }),
    'ui:verify-key': () => service.verifyKey(),
    'ui:test-key': () => service.testKey(),
    'ui:get-status': () => service.status(),
    'ui:refresh-quota': () => service.refreshQuota(),
    'ui:clear-cache': () => service.clearCache(),
    'ui:get-page-cap': async ({ tabId }) => {
      const { source, site } = await capOfTab(tabId);
      return service.pageCapUsage(source, site);
    },
    'ui:look-up-past-cap': async ({ tabId, ips }) => service.lookUpPastCap(ips, await capOfTab(tabId)),
    'cs:lookup': async ({ ips, priority, now }, sender) => {
      await frameAsks.ready();
      // Noted as it arrives: the card's Details may follow before the answers.
      frameAsks.noteAsked(frameOf(sender), ips);
      return told(sender, await service.lookup(ips, { priority, answerNow: now === true, ...capKeyOf(sender.tab?.id, sender.tab?.url) }));
    },
    'cs:lookup-detailed': async ({ ip }, sender) => {
      // One unit each, past the page cap: only what the browser attests lets it through.
      await checkDetailedAsk(sender, ip, detailTrust);
      const [result] = await service.lookup([ip], { priority: 'manual', detailed: true });
      // lookup() answers every input; the fallback only satisfies the type checker.
      const answer: LookupResult = result ?? { ip, status: 'skipped', reason: 'invalid' };
      told(sender, [answer]);
      return answer;
    },
  };

  return { service, handlers, start };
}
