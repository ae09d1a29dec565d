/**
 * The API key's own store: the extension origin's IndexedDB. storage.local is readable by
 * Firefox content scripts (setAccessLevel exists there only for storage.session), and a content
 * script runs inside every scanned page's process; IndexedDB belongs to an origin, and a content
 * script's origin is the page's, so only our worker and pages reach this database, in both
 * browsers, through one code path.
 *
 * Versions before this one kept the key in storage.local under `apiKey`. `migrateLegacyKey` moves
 * it: read the old key, write it to IndexedDB, read it back, and only then remove it from
 * storage.local. Every step can be cut by a worker stop; running it again from any point ends in
 * the same state (the key in IndexedDB, nothing in storage.local), so every read runs it first.
 *
 * A key found in storage.local is newer than the one in IndexedDB: only an older version of the
 * extension writes there (a downgrade, a key set, an upgrade again). The one race it could lose,
 * the options page saving a key while the worker migrates, is closed by a compare-and-set: the
 * legacy key is written only if IndexedDB still holds what it held before the legacy read.
 *
 * IndexedDB has no change event across contexts, so each write also sets a revision marker in
 * storage.local (a random id, nothing secret) that `storage.onChanged` carries to every context.
 */
import { openDB, type IDBPDatabase } from 'idb';

export const KEY_DB_NAME = 'ip-lens-secrets';
const DB_VERSION = 1;
const STORE = 'secrets';
const API_KEY = 'apiKey';
/** The storage.local name older versions kept the key under (and WXT's version metadata beside it). */
export const LEGACY_KEY_NAMES = ['apiKey', 'apiKey$'] as const;
/** storage.local entry that changes whenever the key is written: the cross-context change signal. */
export const KEY_REVISION_NAME = 'apiKeyRevision';

/** The part of `browser.storage.local` the store uses. */
export interface LegacyArea {
  get(keys: string | string[]): Promise<Record<string, unknown>>;
  set(items: Record<string, unknown>): Promise<void>;
  remove(keys: string | string[]): Promise<void>;
}

/**
 * The other secrets kept beside the key, in the same database and for the same reason: the team
 * gateway's personal token, and the organisation sign-in's session (session and refresh tokens).
 */
export type SecretName = 'gatewayToken' | 'gatewaySession';

export interface KeyStore {
  /** The stored key after migrating any legacy one; undefined when none was ever stored. */
  read(): Promise<string | undefined>;
  write(key: string): Promise<void>;
  /** Moves a storage.local key into IndexedDB; says what it did (for tests and logs). */
  migrateLegacyKey(): Promise<'moved' | 'nothing-to-move'>;
  /** Another secret (never in storage.local, so nothing to migrate); undefined when none. */
  readSecret(name: SecretName): Promise<unknown>;
  /** Writes, or with undefined removes, another secret; signals the change like a key write. */
  writeSecret(name: SecretName, value: unknown): Promise<void>;
}

/** Opened per use and closed after: the key is read rarely, and a worker may stop at any time. */
async function withDb<T>(work: (db: IDBPDatabase) => Promise<T>): Promise<T> {
  const db = await openDB(KEY_DB_NAME, DB_VERSION, {
    upgrade(database) {
      if (!database.objectStoreNames.contains(STORE)) database.createObjectStore(STORE);
    },
  });
  try {
    return await work(db);
  } finally {
    db.close();
  }
}

const getKey = (db: IDBPDatabase): Promise<unknown> => db.get(STORE, API_KEY);

export function createKeyStore(legacy: LegacyArea): KeyStore {
  const signalChange = () => legacy.set({ [KEY_REVISION_NAME]: crypto.randomUUID() });

  const migrateLegacyKey = async (): Promise<'moved' | 'nothing-to-move'> => {
    // The common case costs one storage read: nothing left to move, no database opened.
    if ((await legacy.get(API_KEY))[API_KEY] === undefined) return 'nothing-to-move';
    // Read before the legacy key, for the compare-and-set below.
    const before = await withDb(getKey);
    const old = (await legacy.get(API_KEY))[API_KEY];
    if (typeof old !== 'string') {
      // A non-string is not a key (hand-edited storage): drop it so it never shadows the real one.
      if (old !== undefined) await legacy.remove([...LEGACY_KEY_NAMES]);
      return 'nothing-to-move';
    }
    await withDb(async (db) => {
      const tx = db.transaction(STORE, 'readwrite');
      // Compare-and-set: a key saved by the options page since `before` was read wins.
      if ((await tx.store.get(API_KEY)) === before) await tx.store.put(old, API_KEY);
      await tx.done;
    });
    // Verify before removing: the old copy goes only once a readable copy exists.
    const stored = await withDb(getKey);
    if (typeof stored !== 'string') throw new Error('The API key could not be moved to IndexedDB; it stays where it was.');
    await legacy.remove([...LEGACY_KEY_NAMES]);
    await signalChange();
    return 'moved';
  };

  return {
    migrateLegacyKey,
    async read() {
      try {
        await migrateLegacyKey();
        const stored = await withDb(getKey);
        return typeof stored === 'string' ? stored : undefined;
      } catch (error) {
        // IndexedDB failed (disk full, a broken profile): the old copy is removed only after a
        // verified move, so a key that was never moved is still there to use.
        const old = (await legacy.get(API_KEY))[API_KEY];
        if (typeof old === 'string') return old;
        throw error;
      }
    },
    async write(key) {
      // A legacy key still waiting would otherwise overwrite this one at the next read.
      await migrateLegacyKey();
      await withDb((db) => db.put(STORE, key, API_KEY));
      await signalChange();
    },
    readSecret(name) {
      return withDb((db) => db.get(STORE, name));
    },
    async writeSecret(name, value) {
      await withDb(async (db) => {
        if (value === undefined) await db.delete(STORE, name);
        else await db.put(STORE, value, name);
      });
      await signalChange();
    },
  };
}
