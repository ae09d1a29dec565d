/**
 * Every stored setting, defined once: schema (./schema.ts), default (./defaults.ts), version
 * and migrations. The API key lives in the extension's IndexedDB (./key-store.ts), out of any
 * content script's reach; the rest is per-browser console configuration in storage.local.
 * Nothing syncs to other devices.
 */
import { browser } from 'wxt/browser';
import { storage } from 'wxt/utils/storage';
import { DEFAULT_SETTINGS } from './defaults';
import { createKeyStore, KEY_REVISION_NAME, LEGACY_KEY_NAMES } from './key-store';
import { SECRET_SETTINGS, settingsSchema, type LookupPolicy, type SecretSetting, type SettingKey, type Settings } from './schema';
import {
  applyManaged,
  LockedSettingError,
  lockedChanges,
  readManagedPolicy,
  watchManagedPolicy,
  type ManagedPolicy,
} from './managed';

/** Bump with a migration when a stored shape changes. */
const VERSION = 1;

/** One stored value: `local:<key>`, its default as fallback, the current version. */
function settingItem<K extends keyof Settings>(key: K) {
  return storage.defineItem<Settings[K]>(`local:${key}`, { fallback: DEFAULT_SETTINGS[key], version: VERSION });
}

/** Every setting but the secrets (the key, the gateway token), which have their own store. */
type StoredKey = Exclude<SettingKey, SecretSetting>;
const isSecret = (key: SettingKey): key is SecretSetting => (SECRET_SETTINGS as readonly string[]).includes(key);

export const settingItems = {
  apiBaseUrl: settingItem('apiBaseUrl'),
  authHeader: settingItem('authHeader'),
  sitesToScan: settingItem('sitesToScan'),
  lookupPolicy: settingItem('lookupPolicy'),
  thresholds: settingItem('thresholds'),
  markStyle: settingItem('markStyle'),
  pivots: settingItem('pivots'),
  exportOptions: settingItem('exportOptions'),
  gatewayUrl: settingItem('gatewayUrl'),
  gatewayAuth: settingItem('gatewayAuth'),
} satisfies { [K in StoredKey]: unknown };

/** Created on first use: `browser.storage` must exist by then (tests swap it between cases). */
const keyStore = () => createKeyStore(browser.storage.local);

/** Storage items whose change means the key changed: the revision marker, and a legacy key written by an older version. */
const keyChangeSignals = [
  storage.defineItem(`local:${KEY_REVISION_NAME}`),
  storage.defineItem(`local:${LEGACY_KEY_NAMES[0]}`),
];

/**
 * Reads one stored setting and validates it; a value that no longer fits its schema
 * (hand-edited storage, a bug in an older version) falls back to the default instead of
 * breaking the UI.
 */
async function getStoredSetting<K extends SettingKey>(key: K): Promise<Settings[K]> {
  const raw: unknown =
    key === 'apiKey'
      ? await keyStore().read()
      : key === 'gatewayToken'
        ? await keyStore().readSecret('gatewayToken')
        : await settingItems[key as StoredKey].getValue();
  return validStored(key, raw);
}

/** A stored value if it fits its schema, else the setting's default. */
function validStored<K extends SettingKey>(key: K, raw: unknown): Settings[K] {
  const parsed = settingsSchema.shape[key].safeParse(raw);
  return parsed.success ? (parsed.data as Settings[K]) : DEFAULT_SETTINGS[key];
}

async function getStoredSettings(): Promise<Settings> {
  const keys = [...(Object.keys(settingItems) as StoredKey[]), ...SECRET_SETTINGS] as SettingKey[];
  const values = await Promise.all(keys.map((k) => getStoredSetting(k)));
  return Object.fromEntries(keys.map((k, i) => [k, values[i]])) as Settings;
}

/**
 * Several stored settings in force, read together: one storage read and one of the policy,
 * where getSetting makes two per key. A content script's start asks for three (display
 * settings): six extension API calls in the browser's main thread at every page load, which
 * on a 2-core machine compete with the page's own frames (measured under a mutation storm).
 */
export async function getSettingsOf<K extends StoredKey>(
  keys: readonly K[],
  /** The organisation's policy when the caller has it already (or must not wait for it). */
  given?: ManagedPolicy,
): Promise<Pick<Settings, K>> {
  const [read, policy] = await Promise.all([storage.getItems(keys.map((k) => settingItems[k])), given ?? readManagedPolicy()]);
  const stored: Partial<Settings> = {};
  keys.forEach((key, i) => {
    stored[key] = validStored(key, read[i]?.value) as never;
  });
  const all = applyManaged({ ...DEFAULT_SETTINGS, ...stored }, policy);
  return Object.fromEntries(keys.map((k) => [k, all[k]])) as Pick<Settings, K>;
}

/** One setting in force: the organisation's policy value (./managed.ts) over the user's. */
export async function getSetting<K extends SettingKey>(key: K): Promise<Settings[K]> {
  const [stored, policy] = await Promise.all([getStoredSetting(key), readManagedPolicy()]);
  return applyManaged({ ...DEFAULT_SETTINGS, [key]: stored }, policy)[key];
}

/** Every setting in force. The API key is always the user's: a managed key never leaves the background. */
export async function getSettings(): Promise<Settings> {
  const [stored, policy] = await Promise.all([getStoredSettings(), readManagedPolicy()]);
  return applyManaged(stored, policy);
}

/** The save running now, if any: the next one starts after it. */
let saving: Promise<unknown> = Promise.resolve();

/**
 * Validates then writes several settings at once: either every value is valid and all are
 * written, or nothing is written and the zod error says which field is wrong.
 *
 * Saves run one after the other, in the order they were asked for. A save reads what is stored
 * before it writes (locked fields, the user's own values under a policy); two saves side by
 * side could both read the state before either wrote, and the older one's write land last.
 */
export function saveSettings(patch: Partial<Settings>): Promise<Settings> {
  const run = saving.then(() => writeSettings(patch));
  saving = run.catch(() => undefined);
  return run;
}

async function writeSettings(patch: Partial<Settings>): Promise<Settings> {
  const [stored, policy] = await Promise.all([getStoredSettings(), readManagedPolicy()]);
  const current = applyManaged(stored, policy);
  // Options disables these fields; this also stops settings imports and popup actions.
  const locked = lockedChanges(policy, current, patch);
  if (locked.length) throw new LockedSettingError(locked);
  const next = settingsSchema.parse({ ...current, ...patch });
  // A locked setting is unchanged here (checked above): writing it would store the
  // organisation's value as the user's own, which would outlive the policy.
  const keys = (Object.keys(patch) as SettingKey[]).filter(
    (k): k is StoredKey => !isSecret(k) && !policy.locked.has(k),
  );
  // The secrets first: a failed key write leaves the other fields of the save unwritten too.
  if ('apiKey' in patch) await keyStore().write(next.apiKey);
  if ('gatewayToken' in patch) await keyStore().writeSecret('gatewayToken', next.gatewayToken || undefined);
  await storage.setItems(
    keys.map((k) => ({ item: settingItems[k] as never, value: userValueOf(k, next, stored, policy) as never })),
  );
  return next;
}

/**
 * What to store as the user's value: the lookup policy's fields set by policy keep the user's
 * own value underneath, so removing the policy gives back what the user had chosen.
 */
function userValueOf(key: StoredKey, next: Settings, stored: Settings, policy: ManagedPolicy): unknown {
  if (key !== 'lookupPolicy') return next[key];
  const managed = policy.values.lookupPolicy ?? {};
  const own = { ...next.lookupPolicy };
  for (const field of Object.keys(managed) as (keyof LookupPolicy)[]) {
    (own as Record<string, unknown>)[field] = stored.lookupPolicy[field];
  }
  return own;
}

/** Follows the user's changes and the organisation's (a policy change may touch every setting). */
export function watchSettings(callback: (changed: SettingKey[]) => void): () => void {
  const keys = [...(Object.keys(settingItems) as StoredKey[]), ...SECRET_SETTINGS] as SettingKey[];
  const unwatchers = [
    ...(Object.keys(settingItems) as StoredKey[]).map((k) => settingItems[k].watch(() => callback([k]))),
    // One signal for every secret (key, gateway token, sign-in session): each reader re-reads.
    ...keyChangeSignals.map((item) => item.watch(() => callback([...SECRET_SETTINGS]))),
  ];
  unwatchers.push(watchManagedPolicy(() => callback(keys)));
  return () => unwatchers.forEach((u) => u());
}

/**
 * Moves a key left in storage.local by an older version into IndexedDB. The background runs it at
 * start-up so the old copy is gone before any page loads; every read runs it too, so a worker
 * stopped halfway finishes the move on its next read. Never rejects: the key stays usable where it is.
 */
export async function migrateApiKeyStorage(warn: (message: string) => void = console.warn): Promise<void> {
  try {
    await keyStore().migrateLegacyKey();
  } catch (error) {
    warn(`The API key stays in storage.local for now: ${error instanceof Error ? error.message : String(error)}`);
  }
}
