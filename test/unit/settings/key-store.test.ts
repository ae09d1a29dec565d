import { openDB } from 'idb';
import { beforeEach, describe, expect, it } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { createKeyStore, KEY_DB_NAME, KEY_REVISION_NAME, type LegacyArea } from '@/lib/settings/key-store';
import { getSetting, getSettings, migrateApiKeyStorage, saveSettings, watchSettings } from '@/lib/settings';

const local = () => fakeBrowser.storage.local as unknown as LegacyArea;
const idbKey = async () => {
  const db = await openDB(KEY_DB_NAME, 1);
  try {
    return db.objectStoreNames.contains('secrets') ? await db.get('secrets', 'apiKey') : undefined;
  } finally {
    db.close();
  }
};
/** What an older version of the extension left: WXT's item plus its version metadata. */
const oldProfile = (key: string) => fakeBrowser.storage.local.set({ apiKey: key, apiKey$: { v: 1 }, apiBaseUrl: 'https://a.example/api/v1' });

beforeEach(() => fakeBrowser.reset());

describe('API key store (IndexedDB)', () => {
  it('keeps a saved key in IndexedDB, never in storage.local or storage.sync', async () => {
    await saveSettings({ apiKey: 'secret-key' });
    expect(await getSetting('apiKey')).toBe('secret-key');
    expect(await idbKey()).toBe('secret-key');
    expect(JSON.stringify(await fakeBrowser.storage.local.get(null))).not.toContain('secret-key');
    expect(await fakeBrowser.storage.sync.get(null)).toEqual({});
  });

  it('moves a key an older version left in storage.local, and removes the old copy', async () => {
    await oldProfile('old-key');
    expect(await getSettings()).toMatchObject({ apiKey: 'old-key', apiBaseUrl: 'https://a.example/api/v1' });
    expect(await idbKey()).toBe('old-key');
    const left = await fakeBrowser.storage.local.get(null);
    expect(left).not.toHaveProperty('apiKey');
    expect(left).not.toHaveProperty('apiKey$');
    expect(left).toHaveProperty('apiBaseUrl'); // only the key moves
  });

  it('is idempotent: a second migration finds nothing to move and keeps the key', async () => {
    await oldProfile('old-key');
    const store = createKeyStore(local());
    expect(await store.migrateLegacyKey()).toBe('moved');
    expect(await store.migrateLegacyKey()).toBe('nothing-to-move');
    expect(await store.read()).toBe('old-key');
  });

  it('finishes a migration a worker stop cut between the IndexedDB write and the removal', async () => {
    await oldProfile('old-key');
    let stops = 1;
    const stopping: LegacyArea = {
      get: (k) => local().get(k),
      set: (v) => local().set(v),
      remove: async (k) => {
        if (stops-- > 0) throw new Error('worker stopped');
        return local().remove(k);
      },
    };
    await expect(createKeyStore(stopping).migrateLegacyKey()).rejects.toThrow('worker stopped');
    expect(await idbKey()).toBe('old-key');
    expect(await fakeBrowser.storage.local.get('apiKey')).toEqual({ apiKey: 'old-key' }); // both copies, none lost
    // The next worker's first read finishes the move.
    expect(await getSetting('apiKey')).toBe('old-key');
    expect(await fakeBrowser.storage.local.get('apiKey')).toEqual({});
  });

  it('keeps using the old copy when IndexedDB fails, and removes nothing', async () => {
    await oldProfile('old-key');
    globalThis.indexedDB = { open: () => { throw new Error('IndexedDB is broken'); } } as unknown as IDBFactory;
    expect(await getSetting('apiKey')).toBe('old-key');
    expect(await fakeBrowser.storage.local.get('apiKey')).toEqual({ apiKey: 'old-key' });
    const warnings: string[] = [];
    await migrateApiKeyStorage((m) => warnings.push(m));
    expect(warnings).toEqual([expect.stringMatching(/stays in storage.local.*IndexedDB is broken/)]);
  });

  it('takes a key an older version wrote after the move (downgrade, new key, upgrade)', async () => {
    await saveSettings({ apiKey: 'first-key' });
    await fakeBrowser.storage.local.set({ apiKey: 'set-while-downgraded' });
    expect(await getSetting('apiKey')).toBe('set-while-downgraded');
  });

  it('never overwrites a key the options page saved while the migration was reading the old one', async () => {
    await oldProfile('old-key');
    let reads = 0;
    const racing: LegacyArea = {
      get: async (k) => {
        const value = await local().get(k);
        // The read of the old key that follows the database read: the options page's Save lands here.
        if (++reads === 2) {
          const db = await openDB(KEY_DB_NAME, 1);
          await db.put('secrets', 'saved-meanwhile', 'apiKey');
          db.close();
        }
        return value;
      },
      set: (v) => local().set(v),
      remove: (k) => local().remove(k),
    };
    await createKeyStore(racing).migrateLegacyKey();
    expect(await idbKey()).toBe('saved-meanwhile');
    expect(await fakeBrowser.storage.local.get('apiKey')).toEqual({});
  });

  it('ignores a non-string legacy value instead of treating it as a key', async () => {
    await fakeBrowser.storage.local.set({ apiKey: 42 });
    await saveSettings({ apiKey: 'real-key' });
    expect(await getSetting('apiKey')).toBe('real-key');
    expect(await fakeBrowser.storage.local.get('apiKey')).toEqual({});
  });

  it('tells every context the key changed, through a marker that holds no secret', async () => {
    const changes: string[][] = [];
    const unwatch = watchSettings((keys) => changes.push(keys));
    await saveSettings({ apiKey: 'watched-key' });
    await expect.poll(() => changes.flat()).toContain('apiKey');
    const marker = (await fakeBrowser.storage.local.get(KEY_REVISION_NAME))[KEY_REVISION_NAME];
    expect(typeof marker).toBe('string');
    expect(marker).not.toContain('watched-key');
    unwatch();
  });
});
