/**
 * The lookup message handlers as the background builds them: settings from (fake) browser
 * storage, the real API client against the simulator, the cache in (fake) IndexedDB.
 */
import 'fake-indexeddb/auto';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { ApiError } from '@/lib/api/errors';
import { FrameAsks } from '@/lib/background/frame-asks';
import { capKeyOf, createLookupHandlers } from '@/lib/background/lookup-handlers';
import { sessionValue } from '@/lib/background/session-value';
import { createRouter } from '@/lib/message-router';
import { parseEnvelope } from '@/lib/messaging';
import { createIdbCacheStore } from '@/lib/lookup/idb-cache-store';
import { DEFAULT_LOOKUP_POLICY, saveSettings } from '@/lib/settings';
import { DEMO_KEY, EXPIRED_KEY } from '../../sim/keys';
import { startSimulator, type Simulator } from '../../sim/server';

let sim: Simulator;
/** A second server following the same API (a mirror), for base-URL changes. */
let mirror: Simulator;
let db = 0;
const popup = { id: 'ext', url: 'chrome-extension://ext/popup.html' };
const page = (tab: number, documentId = 'doc', frameId = 0, frameUrl = 'https://siem.example/') => ({
  id: 'ext',
  url: frameUrl,
  tab: { id: tab, url: 'https://siem.example/alerts' },
  frameId,
  documentId,
});

beforeAll(async () => {
  [sim, mirror] = await Promise.all([startSimulator(), startSimulator()]);
});
afterAll(async () => {
  await Promise.all([sim.close(), mirror.close()]);
});
beforeEach(async () => {
  fakeBrowser.reset();
  sim.reset();
  mirror.reset();
  await saveSettings({ apiKey: DEMO_KEY, apiBaseUrl: sim.baseUrl });
});

/** As the worker does: built, then its watchers registered. */
function startHandlers(overrides: Parameters<typeof createLookupHandlers>[0], deps?: Parameters<typeof createLookupHandlers>[1]) {
  const built = createLookupHandlers(overrides, deps);
  built.start();
  return built;
}

function build(extra: Parameters<typeof createLookupHandlers>[1] = {}) {
  const capTold: number[] = [];
  const built = startHandlers(
    { cacheStore: createIdbCacheStore({ name: `handlers-${++db}` }) },
    {
      tabUrl: async () => 'https://siem.example/alerts',
      capReached: async (tabId) => void capTold.push(tabId),
      // Every tab is in front unless a test says otherwise (detail-trust.ts, rule 2).
      tabInFront: async () => true,
      ...extra,
    },
  );
  return { ...built, capTold };
}

const ipsFrom = (n: number, from: number) => Array.from({ length: n }, (_, i) => `23.${8 + ((from + i) >> 16)}.${((from + i) >> 8) & 255}.${(from + i) & 255}`);
const sent = (results: { status: string }[]) => results.filter((r) => r.status === 'found' || r.status === 'not-found').length;

describe('lookup handlers', () => {
  it('counts a content script against its tab and the site of the tab top page, never its own frame', () => {
    expect(capKeyOf(7, 'https://siem.example:8443/a?b')).toEqual({ source: '7|siem.example:8443', site: 'siem.example:8443' });
    expect(capKeyOf(7, undefined)).toEqual({ source: '7|?', site: '?' });
    expect(capKeyOf(undefined, 'not a url')).toEqual({ source: 'none|?', site: '?' });
  });

  it('a hostile site cannot spend more than its cap with frames, reloads or tabs', async () => {
    await saveSettings({ lookupPolicy: { ...DEFAULT_LOOKUP_POLICY, perPageCap: 20, siteDailyCap: 50 } });
    const { handlers } = build();
    // One tab, ten frames (some of other origins), 30 IPs each: 20 in all.
    let total = 0;
    for (let f = 0; f < 10; f++) {
      const frame = page(1, `doc-${f}`, f, f % 2 ? 'https://evil.example/frame' : 'https://siem.example/');
      total += sent(await handlers['cs:lookup']({ ips: ipsFrom(30, f * 30), priority: 'visible' }, frame));
    }
    expect(total).toBe(20);
    // Five reloads of that tab (new documents), new IPs each time: nothing more.
    for (let r = 0; r < 5; r++) {
      total += sent(await handlers['cs:lookup']({ ips: ipsFrom(30, 1_000 + r * 30), priority: 'visible' }, page(1, `reload-${r}`)));
    }
    expect(total).toBe(20);
    // Five more tabs of the site: the daily ceiling stops them at 50 in all.
    for (let t = 2; t <= 6; t++) {
      total += sent(await handlers['cs:lookup']({ ips: ipsFrom(30, 5_000 + t * 30), priority: 'visible' }, page(t)));
    }
    expect(total).toBe(50);
    expect(sim.ipLog.all().length).toBe(50);
  });

  it('ui:get-page-cap shows used / cap for the tab site', async () => {
    await saveSettings({ lookupPolicy: { ...DEFAULT_LOOKUP_POLICY, perPageCap: 3, siteDailyCap: 100 } });
    const { handlers } = build();
    expect(await handlers['ui:get-page-cap']({ tabId: 1 }, popup)).toMatchObject({ site: 'siem.example', used: 0, cap: 3 });
    await handlers['cs:lookup']({ ips: ipsFrom(5, 0), priority: 'visible' }, page(1));
    expect(await handlers['ui:get-page-cap']({ tabId: 1 }, popup)).toMatchObject({ used: 3, cap: 3, siteUsed: 3, siteCap: 100 });
  });

  it('ui:lookup and cs:lookup answer one result per IP through the simulator', async () => {
    const { handlers } = build();
    const manual = await handlers['ui:lookup']({ ips: ['185.220.101.1', '10.0.0.1', 'nope'] }, popup);
    expect(manual.map((r) => r.status)).toEqual(['found', 'skipped', 'skipped']);
    const scan = await handlers['cs:lookup']({ ips: ['185.220.101.1', '4.2.2.2'], priority: 'visible' }, page(1));
    expect(scan.map((r) => r.status)).toEqual(['found', 'not-found']);
    expect(sim.requestLog.filter((e) => e.path === '/checkIP/bulk')).toHaveLength(2);
  });

  it('cs:lookup applies the per-page cap from the stored policy, per page', async () => {
    await saveSettings({ lookupPolicy: { ...DEFAULT_LOOKUP_POLICY, perPageCap: 2 } });
    const { handlers, capTold } = build();
    const ips = ['23.1.0.1', '23.1.0.2', '23.1.0.3'];
    const first = await handlers['cs:lookup']({ ips, priority: 'background' }, page(1));
    expect(first.slice(0, 2).every((r) => r.status === 'found' || r.status === 'not-found')).toBe(true);
    expect(first[2]).toEqual({ ip: '23.1.0.3', status: 'skipped', reason: 'page-cap', limit: 2 });
    const otherTab = await handlers['cs:lookup']({ ips: ['23.1.0.3'], priority: 'background' }, page(2));
    expect(otherTab[0]?.status).not.toBe('skipped');
    // The toolbar button of the capped tab says the cap was reached; the other tab's does not.
    expect(capTold).toEqual([1]);
  });

  it('cs:lookup with now answers the cap at once and leaves out the IPs queued for a call', async () => {
    await saveSettings({ lookupPolicy: { ...DEFAULT_LOOKUP_POLICY, perPageCap: 1 } });
    const { handlers, service } = build();
    const first = await handlers['cs:lookup']({ ips: ['23.1.0.1', '23.1.0.2'], priority: 'visible', now: true }, page(1));
    expect(first).toEqual([{ ip: '23.1.0.2', status: 'skipped', reason: 'page-cap', limit: 1 }]);
    const rest = await handlers['cs:lookup']({ ips: ['23.1.0.1'], priority: 'visible' }, page(1));
    expect(rest[0]?.status === 'found' || rest[0]?.status === 'not-found').toBe(true);
    await service.whenIdle();
    expect(sim.requestLog.filter((e) => e.path === '/checkIP/bulk')).toHaveLength(1);
  });

  it('ui:look-up-past-cap looks up the capped IPs of the tab in one call, and the page then asks them free', async () => {
    await saveSettings({ lookupPolicy: { ...DEFAULT_LOOKUP_POLICY, perPageCap: 1 } });
    const { handlers, service } = build();
    const ips = ['23.1.0.1', '23.1.0.2', '23.1.0.3'];
    await handlers['cs:lookup']({ ips, priority: 'visible' }, page(1));
    const rest = await handlers['ui:look-up-past-cap']({ tabId: 1, ips: ips.slice(1) }, popup);
    expect(rest.map((r) => r.status).every((s) => s === 'found' || s === 'not-found')).toBe(true);
    const again = await handlers['cs:lookup']({ ips, priority: 'visible' }, page(1));
    expect(again.some((r) => r.status === 'skipped')).toBe(false);
    await service.whenIdle();
    expect(sim.requestLog.filter((e) => e.path === '/checkIP/bulk')).toHaveLength(2);
  });

  it('cs:lookup-detailed returns one detailed result', async () => {
    const { handlers } = build();
    await handlers['cs:lookup']({ ips: ['185.220.101.1'], priority: 'visible' }, page(1));
    const result = await handlers['cs:lookup-detailed']({ ip: '185.220.101.1' }, page(1));
    expect(result.status).toBe('found');
    expect(result.status === 'found' && result.data.ipInfo).toBeTruthy();
    expect(sim.requestLog.filter((e) => e.path === '/checkIP')).toHaveLength(1);
  });

  it('cs:lookup-detailed is rate-limited per tab with a clear error; other tabs keep their allowance', async () => {
    const { handlers } = build();
    const ips = [...Array.from({ length: 10 }, (_, i) => `23.20.0.${i}`), '23.20.0.99'];
    await handlers['cs:lookup']({ ips, priority: 'visible' }, page(1));
    await handlers['cs:lookup']({ ips, priority: 'visible' }, page(2));
    for (let i = 0; i < 10; i++) await handlers['cs:lookup-detailed']({ ip: `23.20.0.${i}` }, page(1));
    await expect(handlers['cs:lookup-detailed']({ ip: '23.20.0.99' }, page(1))).rejects.toMatchObject({
      kind: 'rate-limited',
      message: expect.stringMatching(/Too many detailed lookups from this tab/),
    });
    expect(sim.requestLog.filter((e) => e.path === '/checkIP')).toHaveLength(10);
    expect((await handlers['cs:lookup-detailed']({ ip: '23.20.0.99' }, page(2))).status).not.toBe('error');
  });

  it('status, refresh, test-key and clear-cache report what the popup shows', async () => {
    const { handlers } = build();
    await handlers['ui:lookup']({ ips: ['185.220.101.1'] }, popup);
    const quota = await handlers['ui:refresh-quota']({}, popup);
    expect(quota).toMatchObject({ state: 'ok', limit: 1000, used: sim.usage(DEMO_KEY), pendingLocalCost: 0 });
    await handlers['ui:test-key']({}, popup);
    const status = await handlers['ui:get-status']({}, popup);
    expect(status.quota).toMatchObject({ used: sim.usage(DEMO_KEY), pendingLocalCost: 1 });
    expect(status).toMatchObject({ queueLength: 0, inFlight: 0, cacheSize: 1, lastError: null });
    expect(await handlers['ui:clear-cache']({}, popup)).toEqual({ cleared: 1 });
  });

  it('verify-key uses the stored settings and follows a change of key', async () => {
    const { handlers } = build();
    expect((await handlers['ui:verify-key']({}, popup)).key.maxApiRequests).toBe(1000);
    await saveSettings({ apiKey: EXPIRED_KEY });
    await vi.waitFor(async () => {
      const error = await Promise.resolve(handlers['ui:verify-key']({}, popup)).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({ kind: 'invalid-key', status: 403 });
    });
    const [result] = await handlers['ui:lookup']({ ips: ['185.220.101.1'] }, popup);
    expect(result).toMatchObject({ status: 'error', error: { kind: 'invalid-key' } });
    await saveSettings({ apiKey: '' });
    await vi.waitFor(async () => {
      const [noKey] = await handlers['ui:lookup']({ ips: ['185.220.101.9'] }, popup);
      expect(noKey).toEqual({ ip: '185.220.101.9', status: 'skipped', reason: 'no-key' });
    });
  });
});

describe('lookup handlers across settings changes and restarts', () => {
  const bulkCalls = (server: Simulator) => server.requestLog.filter((e) => e.path === '/checkIP/bulk').length;
  const accountCalls = () => sim.requestLog.filter((e) => e.path === '/account').length;

  it('a new auth header keeps the cached answers; a new base URL drops them and asks the new server', async () => {
    const { handlers } = build();
    await handlers['ui:lookup']({ ips: ['185.220.101.1'] }, popup);
    expect(bulkCalls(sim)).toBe(1);

    const before = accountCalls();
    await saveSettings({ authHeader: 'x-api-key' });
    await vi.waitFor(() => expect(accountCalls()).toBeGreaterThan(before)); // the new client is in use
    expect((await handlers['ui:lookup']({ ips: ['185.220.101.1'] }, popup))[0]?.status).toBe('found');
    expect(bulkCalls(sim)).toBe(1);

    await saveSettings({ apiBaseUrl: mirror.baseUrl });
    await vi.waitFor(async () => expect((await handlers['ui:get-status']({}, popup)).cacheSize).toBe(0));
    expect((await handlers['ui:lookup']({ ips: ['185.220.101.1'] }, popup))[0]?.status).toBe('found');
    expect(bulkCalls(mirror)).toBe(1);
    expect(bulkCalls(sim)).toBe(1);
  });

  it('a base URL changed while the worker was stopped drops the old answers at the next start', async () => {
    const cacheDb = `handlers-${++db}`;
    const first = startHandlers({ cacheStore: createIdbCacheStore({ name: cacheDb }) });
    await first.handlers['ui:lookup']({ ips: ['185.220.101.1'] }, popup);
    await first.service.whenIdle();

    await saveSettings({ apiBaseUrl: mirror.baseUrl });
    const restarted = startHandlers({ cacheStore: createIdbCacheStore({ name: cacheDb }) });
    await restarted.handlers['ui:lookup']({ ips: ['185.220.101.1'] }, popup);
    expect(bulkCalls(mirror)).toBe(1);
  });

  describe('cs:lookup-detailed spends only on what the browser attests (detail-trust.ts)', () => {
    const EXT = { extensionId: 'ext', extensionOrigin: 'chrome-extension://ext/', parse: parseEnvelope };
    const singles = () => sim.requestLog.filter((e) => e.path === '/checkIP').length;
    const detailedOf = (route: ReturnType<typeof createRouter>, ip: string, sender: object) =>
      route({ type: 'cs:lookup-detailed', payload: { ip } }, sender as never);
    const sessionFrames = () => new FrameAsks({ store: sessionValue(fakeBrowser.storage.session, 'frameAsks') });

    it('refuses a tab that is not in front, an IP the frame never asked, another frame and a cached page', async () => {
      const { handlers } = build({ tabInFront: async (tabId) => tabId === 1 });
      const route = createRouter(handlers, EXT);
      await handlers['cs:lookup']({ ips: ['185.220.101.1'], priority: 'visible' }, page(1));
      await handlers['cs:lookup']({ ips: ['185.220.101.1'], priority: 'visible' }, page(2));
      const before = singles();
      const refusals = [
        [await detailedOf(route, '185.220.101.1', page(2)), /tab in front/],
        [await detailedOf(route, '45.33.32.156', page(1)), /addresses this page showed; look 45\.33\.32\.156 up in the popup/],
        [await detailedOf(route, '185.220.101.1', page(1, 'other-doc')), /addresses this page showed/],
        [await detailedOf(route, '185.220.101.1', page(1, 'doc', 2)), /addresses this page showed/],
        [await detailedOf(route, '185.220.101.1', { ...page(1), documentLifecycle: 'prerender' }), /page on screen/],
      ] as const;
      for (const [reply, message] of refusals) expect(reply).toMatchObject({ ok: false, error: { kind: 'forbidden', message: expect.stringMatching(message) } });
      expect(singles()).toBe(before);
      // The same IP from the frame that asked it, in the tab in front: one call, defanged or not.
      expect(await detailedOf(route, '185.220.101[.]1', { ...page(1), documentLifecycle: 'active' })).toMatchObject({ ok: true, value: { status: 'found' } });
      expect(singles()).toBe(before + 1);
    });

    it('refusals spend none of the tab allowance', async () => {
      let inFront = false;
      const { handlers } = build({ tabInFront: async () => inFront });
      const ips = Array.from({ length: 10 }, (_, i) => `23.21.0.${i}`);
      await handlers['cs:lookup']({ ips, priority: 'visible' }, page(1));
      for (const ip of ips) await expect(handlers['cs:lookup-detailed']({ ip }, page(1))).rejects.toThrow(/tab in front/);
      inFront = true;
      for (const ip of ips) expect((await handlers['cs:lookup-detailed']({ ip }, page(1))).status).not.toBe('error');
    });

    it('what a frame asked outlives a worker restart through storage.session', async () => {
      const first = build({ frameAsks: sessionFrames() });
      await first.handlers['cs:lookup']({ ips: ['185.220.101.1'], priority: 'visible' }, page(1));
      await first.service.whenIdle();
      // The worker stops (its memory is gone) before the analyst clicks Details.
      await vi.waitFor(async () => expect((await fakeBrowser.storage.session.get('frameAsks')).frameAsks).toBeTruthy(), { timeout: 5_000 });
      const restarted = build({ frameAsks: sessionFrames() });
      expect((await restarted.handlers['cs:lookup-detailed']({ ip: '185.220.101.1' }, page(1))).status).toBe('found');
      await expect(restarted.handlers['cs:lookup-detailed']({ ip: '185.220.101.1' }, page(1, 'reloaded'))).rejects.toThrow(/addresses this page showed/);
    });
  });

  it('a site\'s daily ceiling outlives a browser restart through storage.local', async () => {
    await saveSettings({ lookupPolicy: { ...DEFAULT_LOOKUP_POLICY, perPageCap: 5, siteDailyCap: 3 } });
    const first = build();
    await first.handlers['cs:lookup']({ ips: ['23.1.0.1', '23.1.0.2', '23.1.0.3'], priority: 'background' }, page(1));
    await first.service.whenIdle();
    // The browser closes: storage.session and the tabs are gone, storage.local stays.
    await fakeBrowser.storage.session.clear();
    const restarted = build();
    const [capped] = await restarted.handlers['cs:lookup']({ ips: ['23.1.0.4'], priority: 'background' }, page(7, 'new-doc'));
    expect(capped).toEqual({ ip: '23.1.0.4', status: 'skipped', reason: 'site-cap', limit: 3 });
    expect(await restarted.handlers['ui:get-page-cap']({ tabId: 7 }, popup)).toMatchObject({ used: 0, siteUsed: 3, siteCap: 3 });
  });

  it('per-page counts outlive a worker restart through storage.session', async () => {
    await saveSettings({ lookupPolicy: { ...DEFAULT_LOOKUP_POLICY, perPageCap: 2 } });
    const first = build();
    await first.handlers['cs:lookup']({ ips: ['23.1.0.1', '23.1.0.2'], priority: 'background' }, page(1));
    await first.service.whenIdle();

    const restarted = build();
    const [capped] = await restarted.handlers['cs:lookup']({ ips: ['23.1.0.3'], priority: 'background' }, page(1));
    expect(capped).toEqual({ ip: '23.1.0.3', status: 'skipped', reason: 'page-cap', limit: 2 });
    // A reload of the page (a new document in the same tab and site) counts on: still capped.
    const [reloaded] = await restarted.handlers['cs:lookup']({ ips: ['23.1.0.3'], priority: 'background' }, page(1, 'next-doc'));
    expect(reloaded).toEqual({ ip: '23.1.0.3', status: 'skipped', reason: 'page-cap', limit: 2 });
    const [otherTab] = await restarted.handlers['cs:lookup']({ ips: ['23.1.0.3'], priority: 'background' }, page(2));
    expect(otherTab?.status).not.toBe('skipped');
  });

  describe('tells open pages when their results are stale', () => {
    const STALE = { type: 'tab:results-stale', payload: {} };

    /** tabs.sendMessage as the broadcast uses it; `onSend` runs at the moment a tab is told. */
    function watchBroadcast(onSend: () => Promise<void> | void = () => {}) {
      vi.spyOn(fakeBrowser.tabs, 'query').mockResolvedValue([{ id: 3 }] as never);
      return vi.spyOn(fakeBrowser.tabs, 'sendMessage').mockImplementation((async () => {
        await onSend();
        return { ok: true, value: { ok: true } };
      }) as never);
    }

    it('after a base-URL change, once the cache is the new server\'s: a page asking then reaches it', async () => {
      const { handlers } = build();
      await handlers['cs:lookup']({ ips: ['185.220.101.1'], priority: 'visible' }, page(3));
      let asked: unknown;
      const send = watchBroadcast(() => {
        asked = handlers['cs:lookup']({ ips: ['185.220.101.1'], priority: 'visible' }, page(3));
      });
      await saveSettings({ authHeader: 'x-api-key' }); // same server: nothing to tell
      await saveSettings({ apiBaseUrl: mirror.baseUrl });
      // Only stale notices count: the auth-header change may also end in "lookups recovered"
      // (its first /account success), depending on how fast the key's store answers.
      const staleNotices = () => send.mock.calls.filter(([, message]) => (message as { type: string }).type === STALE.type);
      await vi.waitFor(() => expect(staleNotices()).toHaveLength(1));
      expect(send).toHaveBeenCalledWith(3, STALE);
      await asked;
      expect(bulkCalls(mirror)).toBe(1);
      expect(bulkCalls(sim)).toBe(1);
    });

    it('at a worker start that finds the base URL changed, and not at a first or unchanged start', async () => {
      const send = watchBroadcast();
      const cacheDb = `handlers-${++db}`;
      const start = async () => {
        const worker = startHandlers({ cacheStore: createIdbCacheStore({ name: cacheDb }) });
        await worker.handlers['ui:get-status']({}, popup);
        await worker.service.whenIdle();
        await new Promise((r) => setTimeout(r, 0));
      };
      await start(); // first run: the cache had no server yet
      await start(); // same server
      expect(send).not.toHaveBeenCalled();

      // Changed while the worker is stopped: the earlier runs' listeners are gone.
      fakeBrowser.reset();
      await saveSettings({ apiKey: DEMO_KEY, apiBaseUrl: mirror.baseUrl });
      expect(send).not.toHaveBeenCalled();
      await start();
      expect(send).toHaveBeenCalledTimes(1);
      expect(send).toHaveBeenCalledWith(3, STALE);
    });
  });
});
