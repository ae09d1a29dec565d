/**
 * The lookup half of the background's message handlers: every message that looks IPs up or
 * reports on lookups. Built synchronously (the background registers its listeners at start-up,
 * as MV3 requires to be woken by a message); everything async starts lazily on first use.
 */
import { browser } from 'wxt/browser';
import { sendToEveryTab } from '../message-client';
import type { Handlers, SenderInfo } from '../message-router';
import { createIdbCacheStore } from '../lookup/idb-cache-store';
import { LookupService, type LookupServiceOptions } from '../lookup/lookup-service';
import { DEFAULT_LOOKUP_POLICY, getSetting, watchSettings, type SettingKey } from '../settings';
import { clientFromSettings } from './client-from-settings';
import { storageLedgerStore } from './quota-ledger-storage';
import { sessionValue } from './session-value';

export type LookupMessageType =
  | 'ui:lookup'
  | 'ui:verify-key'
  | 'ui:test-key'
  | 'ui:get-status'
  | 'ui:refresh-quota'
  | 'ui:clear-cache'
  | 'cs:lookup'
  | 'cs:lookup-detailed';

/**
 * Settings that make a new client. The service sorts out what each one means: a new base URL
 * drops the cached answers (another server's data); a new key or base URL starts another quota
 * ledger; a new auth header keeps both (same server, same key).
 */
const CREDENTIALS: readonly SettingKey[] = ['apiKey', 'apiBaseUrl', 'authHeader'];

/** The page a content script runs in: the per-page cap counts per tab, frame and document. */
export function sourceOf(sender: SenderInfo): string {
  return `${sender.tab?.id ?? 'none'}:${sender.frameId ?? 0}:${sender.documentId ?? ''}`;
}

/** Tests replace the browser-bound parts (stores, client, clock). */
export type LookupHandlerOverrides = Partial<Omit<LookupServiceOptions, 'initialPolicy'>>;

export function createLookupHandlers(overrides: LookupHandlerOverrides = {}) {
  const service = new LookupService({
    clientSource: clientFromSettings,
    policySource: () => getSetting('lookupPolicy'),
    initialPolicy: DEFAULT_LOOKUP_POLICY,
    cacheStore: createIdbCacheStore(),
    ledgerStore: storageLedgerStore,
    pageCapStore: sessionValue(browser.storage.session, 'pageCap'),
    journalStore: sessionValue(browser.storage.session, 'callJournal'),
    // Open pages show the old server's answers: they forget them and ask again.
    onServerChanged: () => void sendToEveryTab('tab:results-stale', {}),
    // The server answers again after failures: pages re-ask the IPs that failed.
    onRecovered: () => void sendToEveryTab('tab:lookups-recovered', {}),
    ...overrides,
  });

  /** Registers the settings watcher (synchronously, like the worker's other listeners). */
  function start(): void {
    watchSettings((changed) => {
      if (changed.some((key) => CREDENTIALS.includes(key))) service.credentialsChanged();
      if (changed.includes('lookupPolicy')) service.policyChanged();
    });
  }

  const handlers: Handlers<LookupMessageType> = {
    'ui:lookup': ({ ips, detailed }) => service.lookup(ips, { priority: 'manual', detailed: detailed ?? false }),
    'ui:verify-key': () => service.verifyKey(),
    'ui:test-key': () => service.testKey(),
    'ui:get-status': () => service.status(),
    'ui:refresh-quota': () => service.refreshQuota(),
    'ui:clear-cache': () => service.clearCache(),
    'cs:lookup': ({ ips, priority }, sender) => service.lookup(ips, { priority, source: sourceOf(sender) }),
    'cs:lookup-detailed': async ({ ip }) => {
      const [result] = await service.lookup([ip], { priority: 'manual', detailed: true });
      // lookup() answers every input; the fallback only satisfies the type checker.
      return result ?? { ip, status: 'skipped', reason: 'invalid' };
    },
  };

  return { service, handlers, start };
}
