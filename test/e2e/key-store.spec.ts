/**
 * The API key lives in the extension's IndexedDB, out of a content script's reach even where
 * storage.local is readable by content scripts (Firefox, or Chromium without the access level).
 * Each test starts from a profile an older version left: the key in storage.local
 * (`usePageSimulator` writes it there, as those versions did).
 */
import type { CDPSession, Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { markedIps, pageUrl, UNLIMITED_KEY, usePageSimulator } from './page-support';

const env = usePageSimulator({ scanLoopback: true });

/** Reads, in an extension page, what storage.local and the key's database hold. */
const readStores = `(async () => {
  const local = await chrome.storage.local.get(null);
  const db = await new Promise((resolve, reject) => {
    const request = indexedDB.open('ip-lens-secrets');
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
  const key = db.objectStoreNames.contains('secrets')
    ? await new Promise((resolve) => {
        const get = db.transaction('secrets').objectStore('secrets').get('apiKey');
        get.onsuccess = () => resolve(get.result);
      })
    : undefined;
  db.close();
  return { local: JSON.stringify(local), idbKey: key ?? null };
})()`;

/** What a content script can find: storage.local (when readable) and its origin's IndexedDB. */
const probeFromContentScript = `(async () => {
  const local = await chrome.storage.local.get(null).then((v) => JSON.stringify(v), (e) => 'denied: ' + e.message);
  const stores = await new Promise((resolve) => {
    const request = indexedDB.open('ip-lens-secrets');
    request.onsuccess = () => { resolve(Array.from(request.result.objectStoreNames)); request.result.close(); };
    request.onerror = () => resolve('error: ' + request.error);
  });
  return { local, stores };
})()`;

interface ExecutionContext {
  id: number;
  origin: string;
  auxData?: { type?: string };
}

/** Opens a scanned page and returns a way to evaluate in our content script's isolated world. */
async function openScannedPage(page: Page, cdp: CDPSession, extensionId: string) {
  const contexts: ExecutionContext[] = [];
  cdp.on('Runtime.executionContextCreated', ({ context }: { context: ExecutionContext }) => contexts.push(context));
  await cdp.send('Runtime.enable');
  await page.goto(pageUrl(env.sim, 'frames-shadow.html'));
  // Marked critical: the lookup went out with the key, wherever it is stored now.
  await expect.poll(() => markedIps(page, 'critical')).toEqual(['185.220.101.1']);
  const ours = contexts.find((c) => c.auxData?.type === 'isolated' && c.origin.includes(extensionId));
  expect(ours, JSON.stringify(contexts)).toBeDefined();
  return async (expression: string) => {
    const reply = (await cdp.send('Runtime.evaluate', { expression, contextId: ours!.id, awaitPromise: true, returnByValue: true })) as {
      result: { value?: unknown };
    };
    return reply.result.value as { local: string; stores: string[] | string };
  };
}

test('a key an older version left in storage.local moves to IndexedDB, and lookups keep working', async ({ context, extensionId }) => {
  const options = await context.newPage();
  await options.goto(`chrome-extension://${extensionId}/options.html`);
  await expect.poll(() => options.evaluate(readStores)).toEqual({ local: expect.not.stringContaining(UNLIMITED_KEY), idbKey: UNLIMITED_KEY });
  expect(JSON.parse((await options.evaluate<{ local: string }>(readStores)).local)).not.toHaveProperty('apiKey');
  // Options shows the moved key, and the page is looked up with it.
  await options.reload();
  await expect(options.getByLabel('API key', { exact: true })).toHaveValue(UNLIMITED_KEY);
  const page = await context.newPage();
  await page.goto(pageUrl(env.sim, 'frames-shadow.html'));
  await expect.poll(() => markedIps(page, 'critical')).toEqual(['185.220.101.1']);
});

test('even with storage.local opened to content scripts (as in Firefox), a content script finds no key', async ({ context, extensionId }) => {
  const options = await context.newPage();
  await options.goto(`chrome-extension://${extensionId}/options.html`);
  await expect.poll(async () => (await options.evaluate<{ idbKey: unknown }>(readStores)).idbKey).toBe(UNLIMITED_KEY);
  // Firefox's storage.local has no access level: content scripts read it. Give Chromium the same rule.
  await options.evaluate(() =>
    (globalThis as unknown as { chrome: { storage: { local: { setAccessLevel(d: object): Promise<void> } } } }).chrome.storage.local.setAccessLevel({
      accessLevel: 'TRUSTED_AND_UNTRUSTED_CONTEXTS',
    }),
  );

  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  const probe = await openScannedPage(page, cdp, extensionId);
  const found = await probe(probeFromContentScript);
  // The probe can read storage.local (so it would have found a key there)...
  expect(found.local).toContain('apiBaseUrl');
  // ...and finds no key in it, nor in the IndexedDB of its own (the page's) origin.
  expect(found.local).not.toContain(UNLIMITED_KEY);
  expect(found.local).not.toContain('"apiKey"');
  expect(found.stores).not.toContain('secrets');
});
