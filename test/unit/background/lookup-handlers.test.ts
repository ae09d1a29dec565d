/**
 * The lookup message handlers as the background builds them: settings from (fake) browser
 * storage, the real API client against the simulator, the cache in (fake) IndexedDB.
 */
import 'fake-indexeddb/auto';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { ApiError } from '@/lib/api/errors';
import { createLookupHandlers, sourceOf } from '@/lib/background/lookup-handlers';
import { createIdbCacheStore } from '@/lib/lookup/idb-cache-store';
import { DEFAULT_LOOKUP_POLICY, saveSettings } from '@/lib/settings';
import { DEMO_KEY, EXPIRED_KEY } from '../../sim/keys';
import { startSimulator, type Simulator } from '../../sim/server';

let sim: Simulator;
let db = 0;
const popup = { id: 'ext', url: 'chrome-extension://ext/popup.html' };
const page = (tab: number, documentId = 'doc') => ({ id: 'ext', url: 'https://siem.example/', tab: { id: tab }, frameId: 0, documentId });

beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(async () => {
  await sim.close();
});
beforeEach(async () => {
  fakeBrowser.reset();
  sim.reset();
  await saveSettings({ apiKey: DEMO_KEY, apiBaseUrl: sim.baseUrl });
});

function build() {
  return createLookupHandlers({ cacheStore: createIdbCacheStore({ name: `handlers-${++db}` }) });
}

describe('lookup handlers', () => {
  it('derives the page of a content script from tab, frame and document', () => {
    expect(sourceOf({ tab: { id: 7 }, frameId: 3, documentId: 'abc' })).toBe('7:3:abc');
    expect(sourceOf({ tab: { id: 7 } })).toBe('7:0:');
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
    const { handlers } = build();
    const ips = ['23.1.0.1', '23.1.0.2', '23.1.0.3'];
    const first = await handlers['cs:lookup']({ ips, priority: 'background' }, page(1));
    expect(first.slice(0, 2).every((r) => r.status === 'found' || r.status === 'not-found')).toBe(true);
    expect(first[2]).toEqual({ ip: '23.1.0.3', status: 'skipped', reason: 'page-cap' });
    const otherTab = await handlers['cs:lookup']({ ips: ['23.1.0.3'], priority: 'background' }, page(2));
    expect(otherTab[0]?.status).not.toBe('skipped');
  });

  it('cs:lookup-detailed returns one detailed result', async () => {
    const { handlers } = build();
    const result = await handlers['cs:lookup-detailed']({ ip: '185.220.101.1' }, page(1));
    expect(result.status).toBe('found');
    expect(result.status === 'found' && result.data.ipInfo).toBeTruthy();
    expect(sim.requestLog.filter((e) => e.path === '/checkIP')).toHaveLength(1);
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
