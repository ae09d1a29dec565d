/**
 * The API key leaves storage.local, which Firefox lets content scripts read, for the extension's
 * IndexedDB, which no content script can open. Written once for both browsers (./driver.ts).
 */
import { expect } from '@playwright/test';
import type { Simulator } from '../../sim/server';
import { waitUntil, type ExtensionDriver } from './driver';
import { CRITICAL_IP, expectMarked, framesShadowUrl } from './extension-scenarios';

/** Where the key is, read from an extension page: storage.local's entries and the key database. */
async function keyLocations(driver: ExtensionDriver): Promise<{ local: string; idbKey: string | null }> {
  const options = await driver.openExtensionPage('options.html');
  try {
    return await options.evaluate(async () => {
      type Api = { storage: { local: { get(k: null): Promise<object> } } };
      const local = JSON.stringify(await (globalThis as unknown as { chrome: Api }).chrome.storage.local.get(null));
      const idbKey = await new Promise<string | null>((resolve, reject) => {
        const open = indexedDB.open('ip-lens-secrets');
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const db = open.result;
          if (!db.objectStoreNames.contains('secrets')) return resolve(null), db.close();
          const get = db.transaction('secrets').objectStore('secrets').get('apiKey');
          get.onsuccess = () => (resolve(typeof get.result === 'string' ? get.result : null), db.close());
        };
      });
      return { local, idbKey };
    }, null);
  } finally {
    await options.close();
  }
}

/**
 * What the content script of the tab showing `url` finds in storage.local: its entries as JSON,
 * or "denied: …". Run with scripting.executeScript, in the same isolated world as our content
 * script and with the same storage rights.
 */
async function readStorageFromContentScript(driver: ExtensionDriver, url: string): Promise<string> {
  const options = await driver.openExtensionPage('options.html');
  try {
    return await options.evaluate(async (wanted) => {
      type Api = {
        tabs: { query(q: object): Promise<{ id?: number; url?: string }[]> };
        scripting: { executeScript(d: object): Promise<{ result?: unknown }[]> };
      };
      const api = (globalThis as unknown as { chrome: Api }).chrome;
      const tab = (await api.tabs.query({})).find((t) => t.url === wanted);
      if (tab?.id === undefined) throw new Error(`no tab shows ${wanted}`);
      const [injection] = await api.scripting.executeScript({
        target: { tabId: tab.id },
        func: () =>
          (globalThis as unknown as { chrome: { storage: { local: { get(k: null): Promise<object> } } } }).chrome.storage.local
            .get(null)
            .then((v) => JSON.stringify(v), (e: Error) => `denied: ${e.message}`),
      });
      return String(injection?.result);
    }, url);
  } finally {
    await options.close();
  }
}

/**
 * An older version's profile (the key in storage.local, with WXT's version record) is moved:
 * the key ends up only in IndexedDB, the extension goes on using it, and a content script
 * reading storage.local finds no key, in Firefox where that read is allowed too. Needs the
 * fixture site registered and `key` a simulator key other than the one stored now.
 */
export async function keyMovesOutOfContentScriptsReach(driver: ExtensionDriver, sim: Simulator, key: string): Promise<void> {
  const options = await driver.openExtensionPage('options.html');
  await options.evaluate(
    (k) => (globalThis as unknown as { chrome: { storage: { local: { set(v: object): Promise<void> } } } }).chrome.storage.local.set({ apiKey: k, apiKey$: { v: 1 } }),
    key,
  );
  await options.close();

  const moved = await waitUntil(() => keyLocations(driver), (where) => where.idbKey === key && !where.local.includes(key), 'the key to move to IndexedDB');
  expect(JSON.parse(moved.local)).not.toHaveProperty('apiKey');

  // Lookups go on, with the moved key: an address no cache holds is asked with it.
  const fresh = Array.from({ length: 4000 }, (_, i) => `23.46.${i >> 8}.${i & 255}`).find((a) => sim.dataset.lookup(a)?.threatLevel === 'CRITICAL')!;
  const page = await driver.openPage(framesShadowUrl(sim));
  await page.evaluate((ip) => {
    const p = document.createElement('p');
    p.textContent = `Moved-key check: ${ip}`;
    document.querySelector('main')!.append(p);
  }, fresh);
  await expectMarked(page, 'critical', [CRITICAL_IP, fresh]);
  expect(sim.requestLog.some((e) => e.key === key && e.path.startsWith('/check'))).toBe(true);

  const seen = await readStorageFromContentScript(driver, page.url);
  if (driver.browserName === 'firefox') {
    // Firefox cannot close storage.local to content scripts: the read succeeds, and finds no key.
    expect(seen).toContain('apiBaseUrl');
  }
  expect(seen).not.toContain(key);
  expect(seen).not.toContain('"apiKey"');
  await page.close();
}
