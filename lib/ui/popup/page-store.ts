/**
 * The popup's "This page": the IPs the tab's content script found, and the actions that start
 * or stop scanning. A tab without our content script is normal (a site not in "Sites to scan"),
 * not an error: it gets "Scan this page" and "Scan this site".
 */
import { computed, signal } from '@preact/signals';
import type { PageCapUsage } from '../../lookup/page-cap';
import type { ReplyError } from '../../protocol';
import { isCapReason } from '../../severity';
import type { IpRow } from '../shared/ip-rows';
import { markTime, PERF_MARKS } from './perf-marks';
import type { TabInfo, UiServices } from '../shared/services';
import { patternMatchesUrl, sitePatternForUrl } from '../shared/site-pattern';
import { releaseHostPermission } from '../shared/host-permissions';

export type PageState =
  | { phase: 'loading' }
  | { phase: 'no-tab' }
  | { phase: 'unsupported'; tab: TabInfo }
  | { phase: 'not-scanned'; tab: TabInfo }
  | { phase: 'ready'; tab: TabInfo; url: string; title: string; rows: IpRow[]; scanning: boolean; limited: boolean };

export type PageAction = 'scan-page' | 'scan-site' | 'stop-site' | 'look-up-capped';

/** What one `ui:lookup` may carry (the protocol's list limit). */
const LOOKUP_CHUNK = 10_000;

/** Pages an extension may never script: the browser's own, the web store, other extensions. */
export function isScannableUrl(url: string | undefined): boolean {
  if (url === undefined) return true; // unknown without activeTab: try the content script
  return /^(https?|file):/i.test(url) && !/^https:\/\/(chrome\.google\.com\/webstore|chromewebstore\.google\.com)/i.test(url);
}

const addresses = (n: number) => (n === 1 ? '1 address' : `${n.toLocaleString('en-US')} addresses`);

/** What "Look up the rest" did, including what the site's ceiling or the reserve held back. */
export function restNotice(asked: number, overCeiling: number, overReserve: number): string {
  const looked = asked - overCeiling - overReserve;
  const parts = [`Looked up ${addresses(looked)} past this page's cap.`];
  if (overCeiling) parts.push(`${addresses(overCeiling)} not: this site reached its daily ceiling (set it in Options).`);
  if (overReserve) parts.push(`${addresses(overReserve)} not: your quota reserve is reached (look them up one by one to use it).`);
  return parts.join(' ');
}

export function createPageStore(
  services: Pick<UiServices, 'send' | 'sendToTab' | 'currentTab'> & Partial<Pick<UiServices, 'permissions' | 'settings'>>,
  initialPatterns: string[] = [],
) {
  const state = signal<PageState>({ phase: 'loading' });
  const patterns = signal<string[]>(initialPatterns);
  const busy = signal<PageAction | null>(null);
  const actionError = signal<ReplyError | null>(null);
  const notice = signal<string | null>(null);
  /** The automatic-lookup cap of this tab's site, once known. */
  const cap = signal<PageCapUsage | null>(null);
  let tab: TabInfo | null = null;

  async function loadCap(current: TabInfo): Promise<void> {
    const reply = await services.send('ui:get-page-cap', { tabId: current.id });
    if (tab?.id === current.id) cap.value = reply.ok ? reply.value : null;
  }

  const url = computed(() => {
    const s = state.value;
    return s.phase === 'ready' ? s.url || s.tab.url : 'tab' in s ? s.tab.url : undefined;
  });
  const sitePattern = computed(() => sitePatternForUrl(url.value));
  const matchingPatterns = computed(() => patterns.value.filter((p) => patternMatchesUrl(p, url.value)));
  /**
   * IPs the background left unasked because this page reached its cap of automatic lookups
   * (however the background counts the cap: per page or per tab and site, the answer says so).
   */
  const cappedIps = computed(() => {
    const s = state.value;
    if (s.phase !== 'ready') return [];
    return s.rows.filter((r) => r.result?.status === 'skipped' && isCapReason(r.result.reason)).map((r) => r.ip);
  });

  async function ask(current: TabInfo): Promise<void> {
    const reply = await services.sendToTab(current.id, 'tab:get-page-ips', {});
    markTime(PERF_MARKS.pageAnswered);
    if (tab?.id !== current.id) return;
    if (!reply.ok) {
      // No content script in this tab (or it went away with a navigation).
      state.value = { phase: 'not-scanned', tab: current };
      return;
    }
    const { url: pageUrl, title, ips, scanning, limited = false } = reply.value;
    state.value = {
      phase: 'ready',
      tab: current,
      url: pageUrl,
      title,
      scanning,
      limited,
      rows: ips.map((p) => ({ ip: p.ip, count: p.count, result: p.result })),
    };
    void loadCap(current);
  }

  async function load(): Promise<void> {
    tab = await services.currentTab();
    markTime(PERF_MARKS.tabKnown);
    if (!tab) {
      state.value = { phase: 'no-tab' };
      return;
    }
    if (!isScannableUrl(tab.url)) {
      state.value = { phase: 'unsupported', tab };
      return;
    }
    await ask(tab);
  }

  /** Re-reads the list (results arrive while the popup is open). */
  async function refresh(): Promise<void> {
    if (tab && (state.value.phase === 'ready' || state.value.phase === 'not-scanned')) await ask(tab);
  }

  async function run(action: PageAction, work: () => Promise<ReplyError | null>): Promise<void> {
    busy.value = action;
    actionError.value = null;
    notice.value = null;
    try {
      actionError.value = await work();
    } finally {
      busy.value = null;
    }
  }

  function scanPage(): Promise<void> {
    return run('scan-page', async () => {
      if (!tab) return null;
      const reply = await services.send('ui:scan-tab', { tabId: tab.id });
      if (!reply.ok) return reply.error;
      await ask(tab);
      return null;
    });
  }

  /**
   * `granted` is the permissions.request promise, started in the click handler (user gesture).
   * Chrome closes the popup while a permission prompt is up, so nothing after an await is sure
   * to run: the site joins the list in the same task as the request, and the background
   * registers it when the permission arrives (permissions.onAdded). A refusal seen while the
   * popup is still open takes the site out again.
   */
  function scanSite(pattern: string, granted: Promise<boolean>): Promise<void> {
    const added = services.send('ui:set-site-scanning', { pattern, enabled: true });
    return run('scan-site', async () => {
      const [ok, reply] = await Promise.all([granted.catch(() => false), added]);
      if (!reply.ok) return reply.error;
      patterns.value = reply.value.patterns;
      if (!ok) {
        const undo = await services.send('ui:set-site-scanning', { pattern, enabled: false });
        if (undo.ok) patterns.value = undo.value.patterns;
        notice.value = `Permission for ${pattern} was not granted, so this site is not scanned automatically.`;
        return null;
      }
      // Registration applies to the next page loads; scan the page in front of the analyst now.
      if (tab && state.value.phase !== 'ready') {
        const scan = await services.send('ui:scan-tab', { tabId: tab.id });
        if (!scan.ok) return scan.error;
      }
      if (tab) await ask(tab);
      notice.value = `Pages on ${pattern} are now scanned when they load.`;
      return null;
    });
  }

  function stopSite(): Promise<void> {
    return run('stop-site', async () => {
      const stopped = [...matchingPatterns.value];
      for (const pattern of stopped) {
        const reply = await services.send('ui:set-site-scanning', { pattern, enabled: false });
        if (!reply.ok) return reply.error;
        patterns.value = reply.value.patterns;
      }
      // As Options' Remove does: give the access back unless the API or another site needs it.
      if (services.permissions && services.settings) {
        const apiBaseUrl = (await services.settings.get().catch(() => null))?.apiBaseUrl ?? null;
        for (const pattern of stopped) {
          await releaseHostPermission(services.permissions, pattern, { sitePatterns: patterns.value, apiBaseUrl });
        }
      }
      notice.value = 'This site is no longer scanned automatically. Marks stay until the page reloads.';
      if (tab) await ask(tab);
      return null;
    });
  }

  /**
   * The one cap control, "Look up the rest": the IPs past this tab's cap, looked up because the
   * analyst clicked (the tab's cap makes room for exactly these; the site's daily ceiling and
   * the quota reserve still hold, and the notice says what they held back). The page then
   * forgets its answers and asks again for what is near the viewport, which the background now
   * answers from its cache; IPs further away get theirs from the cache as they come near.
   */
  function lookUpCapped(): Promise<void> {
    return run('look-up-capped', async () => {
      const ips = cappedIps.value;
      const current = tab;
      if (!current || ips.length === 0) return null;
      const held: Record<'site-cap' | 'quota-reserve', number> = { 'site-cap': 0, 'quota-reserve': 0 };
      for (let i = 0; i < ips.length; i += LOOKUP_CHUNK) {
        const reply = await services.send('ui:look-up-past-cap', { tabId: current.id, ips: ips.slice(i, i + LOOKUP_CHUNK) });
        if (!reply.ok) return reply.error;
        for (const r of reply.value) if (r.status === 'skipped' && (r.reason === 'site-cap' || r.reason === 'quota-reserve')) held[r.reason]++;
      }
      const again = await services.sendToTab(current.id, 'tab:results-stale', {});
      if (!again.ok) return again.error;
      await ask(current);
      notice.value = restNotice(ips.length, held['site-cap'], held['quota-reserve']);
      return null;
    });
  }

  return {
    state,
    patterns,
    busy,
    actionError,
    notice,
    cap,
    sitePattern,
    matchingPatterns,
    load,
    refresh,
    scanPage,
    scanSite,
    stopSite,
    cappedIps,
    lookUpCapped,
  };
}
export type PageStore = ReturnType<typeof createPageStore>;
