import { describe, expect, it } from 'vitest';
import { createPageStore, isScannableUrl } from '@/lib/ui/popup/page-store';
import { createFakeServices, ok } from '../fake-services';
import { found } from '../samples';

/** The messages sent, without the cap reads that follow every listing. */
const notCap = <T extends { type: string }>(sent: T[]) => sent.filter((m) => m.type !== 'ui:get-page-cap');

const PAGE = { url: 'https://siem.example/app', title: 'Alerts', scanning: true, ips: [{ ip: '1.2.3.4', version: 4 as const, count: 2, result: found('1.2.3.4') }] };

describe('page store', () => {
  it('lists what the content script found', async () => {
    const services = createFakeServices();
    services.tab = { id: 7, url: 'https://siem.example/app' };
    services.tabHandlers['tab:get-page-ips'] = () => ok(PAGE);
    const store = createPageStore(services);
    await store.load();
    expect(services.tabSent).toEqual([{ tabId: 7, type: 'tab:get-page-ips', payload: {} }]);
    expect(store.state.value).toMatchObject({ phase: 'ready', title: 'Alerts', rows: [{ ip: '1.2.3.4', count: 2 }] });
    expect(store.sitePattern.value).toBe('https://siem.example/*');
  });

  it('tells apart no tab, a browser page and a page without the content script', async () => {
    const services = createFakeServices();
    const store = createPageStore(services);
    await store.load();
    expect(store.state.value.phase).toBe('no-tab');
    services.tab = { id: 1, url: 'chrome://settings' };
    await store.load();
    expect(store.state.value.phase).toBe('unsupported');
    services.tab = { id: 2, url: 'https://other.example/' };
    await store.load();
    expect(store.state.value.phase).toBe('not-scanned');
    expect(isScannableUrl('https://chromewebstore.google.com/detail/x')).toBe(false);
    expect(isScannableUrl(undefined)).toBe(true);
  });

  it('scans the page once, then lists it', async () => {
    const services = createFakeServices();
    services.tab = { id: 3, url: 'https://siem.example/app' };
    const store = createPageStore(services);
    await store.load();
    expect(store.state.value.phase).toBe('not-scanned');
    services.handlers['ui:scan-tab'] = () => {
      services.tabHandlers['tab:get-page-ips'] = () => ok(PAGE);
      return ok({ injected: true });
    };
    await store.scanPage();
    expect(notCap(services.sent)).toEqual([{ type: 'ui:scan-tab', payload: { tabId: 3 } }]);
    expect(store.state.value.phase).toBe('ready');
  });

  it('scans the site only when the permission is granted, and stops it again', async () => {
    const services = createFakeServices();
    services.tab = { id: 3, url: 'https://siem.example/app' };
    services.tabHandlers['tab:get-page-ips'] = () => ok(PAGE);
    let patterns: string[] = [];
    services.handlers['ui:set-site-scanning'] = ({ pattern, enabled }) => {
      patterns = enabled ? [...patterns, pattern] : patterns.filter((p) => p !== pattern);
      return ok({ patterns });
    };
    const store = createPageStore(services);
    await store.load();

    const enable = { type: 'ui:set-site-scanning', payload: { pattern: 'https://siem.example/*', enabled: true } };
    const disable = { type: 'ui:set-site-scanning', payload: { pattern: 'https://siem.example/*', enabled: false } };

    // Refused: the site was listed at once (the popup may close under the prompt), then removed.
    const refused = store.scanSite('https://siem.example/*', Promise.resolve(false));
    expect(notCap(services.sent)).toEqual([enable]); // sent in the click's own task, before any await
    await refused;
    expect(notCap(services.sent)).toEqual([enable, disable]);
    expect(store.matchingPatterns.value).toEqual([]);
    expect(store.notice.value).toContain('not granted');

    services.sent.length = 0;
    await store.scanSite('https://siem.example/*', Promise.resolve(true));
    expect(notCap(services.sent)).toEqual([enable]);
    expect(store.matchingPatterns.value).toEqual(['https://siem.example/*']);

    await store.stopSite();
    expect(notCap(services.sent).at(-1)).toEqual({ type: 'ui:set-site-scanning', payload: { pattern: 'https://siem.example/*', enabled: false } });
    expect(store.matchingPatterns.value).toEqual([]);
  });

  it('reports a failed action as an error', async () => {
    const services = createFakeServices();
    services.tab = { id: 3, url: 'https://siem.example/app' };
    services.handlers['ui:scan-tab'] = () => ({ ok: false, error: { kind: 'internal', message: 'Cannot access contents of the page' } });
    const store = createPageStore(services);
    await store.load();
    await store.scanPage();
    expect(store.actionError.value).toEqual({ kind: 'internal', message: 'Cannot access contents of the page' });
    expect(store.busy.value).toBeNull();
  });

  it('shows the cap of the tab site', async () => {
    const services = createFakeServices();
    services.tab = { id: 7, url: 'https://siem.example/app' };
    services.tabHandlers['tab:get-page-ips'] = () => ok(PAGE);
    const usage = { site: 'siem.example', used: 500, cap: 500, siteUsed: 500, siteCap: 2000, windowEndsAt: 1 };
    services.handlers['ui:get-page-cap'] = () => ok(usage);
    const store = createPageStore(services);
    await store.load();
    await new Promise((r) => setTimeout(r, 0));
    expect(store.cap.value).toEqual(usage);
  });
});

describe('page store: the per-page cap', () => {
  const capped = (ip: string) => ({ ip, version: 4 as const, count: 1, result: { ip, status: 'skipped' as const, reason: 'page-cap' as const } });

  it('tells which IPs the cap left out, and looks them up in one click', async () => {
    const services = createFakeServices();
    services.tab = { id: 7, url: 'https://siem.example/app' };
    let page = { ...PAGE, ips: [...PAGE.ips, capped('5.6.7.8'), capped('9.9.9.9')] };
    services.tabHandlers['tab:get-page-ips'] = () => ok(page);
    services.tabHandlers['tab:results-stale'] = () => {
      page = { ...PAGE, ips: [...PAGE.ips, { ...capped('5.6.7.8'), result: found('5.6.7.8') }, { ...capped('9.9.9.9'), result: found('9.9.9.9') }] };
      return ok({ ok: true });
    };
    services.handlers['ui:look-up-past-cap'] = ({ ips }) => ok(ips.map((ip: string) => found(ip)));
    const store = createPageStore(services);
    await store.load();
    expect(store.cappedIps.value).toEqual(['5.6.7.8', '9.9.9.9']);
    await store.lookUpCapped();
    // One ask for exactly the capped IPs of this tab, then the page asks again (from the cache).
    // (The cap line's own reads, ui:get-page-cap, come and go with each page load.)
    expect(services.sent.filter((m) => m.type !== 'ui:get-page-cap')).toEqual([
      { type: 'ui:look-up-past-cap', payload: { tabId: 7, ips: ['5.6.7.8', '9.9.9.9'] } },
    ]);
    expect(services.tabSent.map((m) => m.type)).toEqual(['tab:get-page-ips', 'tab:results-stale', 'tab:get-page-ips']);
    expect(store.cappedIps.value).toEqual([]);
    expect(store.notice.value).toBe("Looked up 2 addresses past this page's cap.");
  });

  it("says what the site's daily ceiling and the quota reserve held back", async () => {
    const services = createFakeServices();
    services.tab = { id: 7, url: 'https://siem.example/app' };
    services.tabHandlers['tab:get-page-ips'] = () => ok({ ...PAGE, ips: [capped('5.6.7.8'), capped('9.9.9.9'), capped('4.4.4.4')] });
    services.tabHandlers['tab:results-stale'] = () => ok({ ok: true });
    services.handlers['ui:look-up-past-cap'] = () =>
      ok([found('5.6.7.8'), { ip: '9.9.9.9', status: 'skipped', reason: 'site-cap', limit: 100 }, { ip: '4.4.4.4', status: 'skipped', reason: 'quota-reserve' }]);
    const store = createPageStore(services);
    await store.load();
    await store.lookUpCapped();
    expect(store.notice.value).toBe(
      "Looked up 1 address past this page's cap. 1 address not: this site reached its daily ceiling (set it in Options). 1 address not: your quota reserve is reached (look them up one by one to use it).",
    );
  });

  it('a failed lookup is reported and the page keeps its answers', async () => {
    const services = createFakeServices();
    services.tab = { id: 7, url: 'https://siem.example/app' };
    services.tabHandlers['tab:get-page-ips'] = () => ok({ ...PAGE, ips: [capped('5.6.7.8')] });
    services.handlers['ui:look-up-past-cap'] = () => ({ ok: false, error: { kind: 'quota-exhausted', message: 'No quota left.' } }) as never;
    const store = createPageStore(services);
    await store.load();
    await store.lookUpCapped();
    expect(store.actionError.value).toMatchObject({ kind: 'quota-exhausted' });
    expect(services.tabSent.map((m) => m.type)).toEqual(['tab:get-page-ips']);
    expect(store.cappedIps.value).toEqual(['5.6.7.8']);
  });
});
