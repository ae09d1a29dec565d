/**
 * Every stored setting, defined once: zod schema (type + validation), default, version and
 * migrations. Everything lives in storage.local: the API key must never sync to other
 * devices, and the rest is per-browser console configuration.
 */
import { storage } from 'wxt/utils/storage';
import { z } from 'zod';
import { DEFAULT_SETTINGS, SITE_PATTERN, SITE_PATTERN_HINT } from './settings-defaults';

export { DEFAULT_LOOKUP_POLICY, DEFAULT_SETTINGS } from './settings-defaults';

export const authHeaderSchema = z.enum(['authorization', 'x-api-key']);

export const apiBaseUrlSchema = z
  .string()
  .trim()
  .min(1, 'Enter the API base URL.')
  .refine((value) => {
    try {
      const url = new URL(value);
      return url.protocol === 'https:' || url.protocol === 'http:';
    } catch {
      return false;
    }
  }, 'Enter a full http(s) URL, such as https://ipswamp.com/api/v1.')
  .transform((value) => value.replace(/\/+$/, ''));

export const apiKeySchema = z
  .string()
  .trim()
  .max(512, 'That key is too long to be an API key.')
  .refine((v) => !/\s/.test(v), 'An API key has no spaces or line breaks.');

export const lookupPolicySchema = z.object({
  /** Send private/reserved addresses to the API too (off: they are marked "skipped"). */
  sendPrivate: z.boolean(),
  /** Look up the IPs found on scanned pages without being asked. */
  automatic: z.boolean(),
  /** At most this many IPs per page are looked up automatically. */
  perPageCap: z.number().int().min(1).max(100_000),
  /**
   * At most this many IPs per site and day, all tabs together. Defaulted so that a policy
   * stored before this setting existed still parses (and keeps the user's other values).
   */
  siteDailyCap: z.number().int().min(1).max(1_000_000).default(2_000),
  /** Automatic lookups stop when this % of the limit is left. */
  reservePercent: z.number().min(0).max(100),
  ttlFoundMinutes: z.number().int().min(1).max(525_600),
  ttlNotFoundMinutes: z.number().int().min(1).max(525_600),
  ttlDetailedMinutes: z.number().int().min(1).max(525_600),
  cacheMaxEntries: z.number().int().min(100).max(1_000_000),
});
export type LookupPolicy = z.infer<typeof lookupPolicySchema>;

export const thresholdsSchema = z
  .object({
    critical: z.number().min(0).max(100),
    high: z.number().min(0).max(100),
    medium: z.number().min(0).max(100),
    low: z.number().min(0).max(100),
  })
  .refine((t) => t.critical > t.high && t.high > t.medium && t.medium > t.low, {
    message: 'Thresholds must fall in order: critical > high > medium > low.',
  });

export const markStyleSchema = z.enum(['underline', 'background']);

/** A Chrome match pattern for "Sites to scan", e.g. `https://kibana.example.org/*`. */
export const sitePatternSchema = z.string().trim().regex(SITE_PATTERN, SITE_PATTERN_HINT);

export const settingsSchema = z.object({
  apiBaseUrl: apiBaseUrlSchema,
  apiKey: apiKeySchema,
  authHeader: authHeaderSchema,
  sitesToScan: z.array(sitePatternSchema),
  lookupPolicy: lookupPolicySchema,
  thresholds: thresholdsSchema,
  markStyle: markStyleSchema,
});
export type Settings = z.infer<typeof settingsSchema>;


/** Bump with a migration when a stored shape changes. */
const VERSION = 1;

export const settingItems = {
  apiBaseUrl: storage.defineItem<string>('local:apiBaseUrl', {
    fallback: DEFAULT_SETTINGS.apiBaseUrl,
    version: VERSION,
  }),
  apiKey: storage.defineItem<string>('local:apiKey', {
    fallback: DEFAULT_SETTINGS.apiKey,
    version: VERSION,
  }),
  authHeader: storage.defineItem<Settings['authHeader']>('local:authHeader', {
    fallback: DEFAULT_SETTINGS.authHeader,
    version: VERSION,
  }),
  sitesToScan: storage.defineItem<string[]>('local:sitesToScan', {
    fallback: DEFAULT_SETTINGS.sitesToScan,
    version: VERSION,
  }),
  lookupPolicy: storage.defineItem<LookupPolicy>('local:lookupPolicy', {
    fallback: DEFAULT_SETTINGS.lookupPolicy,
    version: VERSION,
  }),
  thresholds: storage.defineItem<Settings['thresholds']>('local:thresholds', {
    fallback: DEFAULT_SETTINGS.thresholds,
    version: VERSION,
  }),
  markStyle: storage.defineItem<Settings['markStyle']>('local:markStyle', {
    fallback: DEFAULT_SETTINGS.markStyle,
    version: VERSION,
  }),
} satisfies { [K in keyof Settings]: unknown };

export type SettingKey = keyof Settings;

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

/** Settings as exported to a file: everything except the key. */
export const exportableSettingsSchema = settingsSchema.omit({ apiKey: true });
export type ExportableSettings = z.infer<typeof exportableSettingsSchema>;
