/**
 * Every stored setting, defined once: schema (./schema.ts), default (./defaults.ts), version
 * and migrations. Everything lives in storage.local: the API key must never sync to other
 * devices, and the rest is per-browser console configuration.
 */
import { storage } from 'wxt/utils/storage';
import { DEFAULT_SETTINGS } from './defaults';
import { settingsSchema, type SettingKey, type Settings } from './schema';
import { applyManaged, LockedSettingError, lockedChanges, readManagedPolicy, watchManagedPolicy } from './managed';

/** Bump with a migration when a stored shape changes. */
const VERSION = 1;

/** One stored value: `local:<key>`, its default as fallback, the current version. */
function settingItem<K extends keyof Settings>(key: K) {
  return storage.defineItem<Settings[K]>(`local:${key}`, { fallback: DEFAULT_SETTINGS[key], version: VERSION });
}

export const settingItems = {
  apiBaseUrl: settingItem('apiBaseUrl'),
  apiKey: settingItem('apiKey'),
  authHeader: settingItem('authHeader'),
  sitesToScan: settingItem('sitesToScan'),
  lookupPolicy: settingItem('lookupPolicy'),
  thresholds: settingItem('thresholds'),
  markStyle: settingItem('markStyle'),
} satisfies { [K in keyof Settings]: unknown };

/**
 * Reads one stored setting and validates it; a value that no longer fits its schema
 * (hand-edited storage, a bug in an older version) falls back to the default instead of
 * breaking the UI.
 */
async function getStoredSetting<K extends SettingKey>(key: K): Promise<Settings[K]> {
  const raw: unknown = await settingItems[key].getValue();
  const parsed = settingsSchema.shape[key].safeParse(raw);
  return parsed.success ? (parsed.data as Settings[K]) : DEFAULT_SETTINGS[key];
}

async function getStoredSettings(): Promise<Settings> {
  const keys = Object.keys(settingItems) as SettingKey[];
  const values = await Promise.all(keys.map((k) => getStoredSetting(k)));
  return Object.fromEntries(keys.map((k, i) => [k, values[i]])) as Settings;
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

/**
 * Validates then writes several settings at once: either every value is valid and all are
 * written, or nothing is written and the zod error says which field is wrong.
 */
export async function saveSettings(patch: Partial<Settings>): Promise<Settings> {
  const [stored, policy] = await Promise.all([getStoredSettings(), readManagedPolicy()]);
  const current = applyManaged(stored, policy);
  // Options disables these fields; this also stops settings imports and popup actions.
  const locked = lockedChanges(policy, current, patch);
  if (locked.length) throw new LockedSettingError(locked);
  const next = settingsSchema.parse({ ...current, ...patch });
  const keys = Object.keys(patch) as SettingKey[];
  await storage.setItems(
    keys.map((k) => ({ item: settingItems[k] as never, value: next[k] as never })),
  );
  return next;
}

/** Follows the user's changes and the organisation's (a policy change may touch every setting). */
export function watchSettings(callback: (changed: SettingKey[]) => void): () => void {
  const keys = Object.keys(settingItems) as SettingKey[];
  const unwatchers = keys.map((k) => settingItems[k].watch(() => callback([k])));
  unwatchers.push(watchManagedPolicy(() => callback(keys)));
  return () => unwatchers.forEach((u) => u());
}
