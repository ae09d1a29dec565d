/**
 * Every stored setting, defined once: schema (./schema.ts), default (./defaults.ts), version
 * and migrations. Everything lives in storage.local: the API key must never sync to other
 * devices, and the rest is per-browser console configuration.
 */
import { storage } from 'wxt/utils/storage';
import { DEFAULT_SETTINGS } from './defaults';
import { settingsSchema, type SettingKey, type Settings } from './schema';

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
  pivots: settingItem('pivots'),
} satisfies { [K in keyof Settings]: unknown };

/**
 * Reads one setting and validates it; a value that no longer fits its schema (hand-edited
 * storage, a bug in an older version) falls back to the default instead of breaking the UI.
 */
export async function getSetting<K extends SettingKey>(key: K): Promise<Settings[K]> {
  const raw: unknown = await settingItems[key].getValue();
  const parsed = settingsSchema.shape[key].safeParse(raw);
  return parsed.success ? (parsed.data as Settings[K]) : DEFAULT_SETTINGS[key];
}

export async function getSettings(): Promise<Settings> {
  const keys = Object.keys(settingItems) as SettingKey[];
  const values = await Promise.all(keys.map((k) => getSetting(k)));
  return Object.fromEntries(keys.map((k, i) => [k, values[i]])) as Settings;
}

/**
 * Validates then writes several settings at once: either every value is valid and all are
 * written, or nothing is written and the zod error says which field is wrong.
 */
export async function saveSettings(patch: Partial<Settings>): Promise<Settings> {
  const current = await getSettings();
  const next = settingsSchema.parse({ ...current, ...patch });
  const keys = Object.keys(patch) as SettingKey[];
  await storage.setItems(
    keys.map((k) => ({ item: settingItems[k] as never, value: next[k] as never })),
  );
  return next;
}

export function watchSettings(callback: (changed: SettingKey[]) => void): () => void {
  const unwatchers = (Object.keys(settingItems) as SettingKey[]).map((k) =>
    settingItems[k].watch(() => callback([k])),
  );
  return () => unwatchers.forEach((u) => u());
}
