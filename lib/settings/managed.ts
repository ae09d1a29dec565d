/**
 * Settings an administrator sets by policy: Chrome's `storage.managed` (shaped by
 * public/managed_schema.json) and Firefox's enterprise policies (`3rdparty.Extensions.<id>` in
 * policies.json), which both browsers hand to `browser.storage.managed`.
 *
 * Rules (README, "For administrators"):
 * - A value given by policy wins over the user's and is locked: options shows it disabled,
 *   "Set by your organisation"; saving, importing or a popup action cannot change it.
 * - `lockedSettings` locks settings at the user's current value without giving one.
 * - Each value is checked alone with the same zod schema as the user's: an invalid one is
 *   ignored with a message for options, the rest still apply. Policy never breaks the extension.
 * - The managed key is read by the background only (client-from-settings.ts): `getSettings()`
 *   never returns it, so no extension page can show it. `proxyAddsKey` sends no key at all.
 */
import { browser } from 'wxt/browser';
import { z } from '../zod';
import {
  apiBaseUrlSchema,
  apiKeySchema,
  authHeaderSchema,
  gatewayUrlSchema,
  lookupPolicySchema,
  markStyleSchema,
  sitePatternSchema,
  thresholdsSchema,
  type LookupPolicy,
  type SettingKey,
  type Settings,
} from './schema';

/** Pivot links (lib/pivots, another stream): the same shape, checked for https and one `{ip}`. */
const managedPivotSchema = z.object({
  id: z.string().min(1).max(64),
  name: z.string().min(1).max(80),
  urlTemplate: z
    .string()
    .refine((t) => t.startsWith('https://') && t.split('{ip}').length === 2, 'A pivot URL must be https:// with one {ip}.'),
  enabled: z.boolean(),
});

/** Settings a policy may set, each with the schema its value must pass. */
const VALUE_SCHEMAS = {
  apiBaseUrl: apiBaseUrlSchema,
  authHeader: authHeaderSchema,
  sitesToScan: z.array(sitePatternSchema).max(500),
  thresholds: thresholdsSchema,
  markStyle: markStyleSchema,
  pivots: z.array(managedPivotSchema).max(50),
  /** The team gateway every lookup goes through ('' = none, locked so). */
  gatewayUrl: gatewayUrlSchema,
} as const;

type ValueKey = keyof typeof VALUE_SCHEMAS;
export type ManagedValues = { [K in ValueKey]?: z.infer<(typeof VALUE_SCHEMAS)[K]> } & {
  lookupPolicy?: Partial<LookupPolicy>;
  /** From `gatewaySignIn: "required"`: analysts sign in with the organisation, no personal token. */
  gatewayAuth?: 'sign-in';
};

/** What can be locked: a setting, or one field of the lookup policy (`lookupPolicy.reservePercent`). */
export type LockPath = SettingKey | 'pivots' | `lookupPolicy.${keyof LookupPolicy}`;

export interface ManagedPolicy {
  values: ManagedValues;
  /** Background only. Null: no managed key (the user's own applies, unless proxyAddsKey). */
  apiKey: string | null;
  /** The API base URL is a proxy that adds the key: the extension sends none. */
  proxyAddsKey: boolean;
  locked: ReadonlySet<LockPath>;
  /** One sentence per ignored policy value, for options. */
  problems: string[];
}

export const NO_POLICY: ManagedPolicy = { values: {}, apiKey: null, proxyAddsKey: false, locked: new Set(), problems: [] };

const POLICY_FIELDS = Object.keys(lookupPolicySchema.shape) as (keyof LookupPolicy)[];
const SETTING_LOCKS = ['apiBaseUrl', 'apiKey', 'authHeader', 'sitesToScan', 'thresholds', 'markStyle', 'pivots', 'gatewayUrl', 'gatewayAuth'] as const;
const KNOWN = new Set<string>([...Object.keys(VALUE_SCHEMAS), 'lookupPolicy', 'apiKey', 'proxyAddsKey', 'gatewaySignIn', 'lockedSettings']);

function firstIssue(error: z.ZodError): string {
  return error.issues[0]?.message ?? 'not a valid value';
}

/** Validates a raw `storage.managed` object; never throws. */
export function parseManagedPolicy(raw: unknown): ManagedPolicy {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return NO_POLICY;
  const input = raw as Record<string, unknown>;
  const values: ManagedValues = {};
  const locked = new Set<LockPath>();
  const problems: string[] = [];
  const ignore = (name: string, why: string) => problems.push(`${name}: ${why} Ignored.`);

  for (const key of Object.keys(VALUE_SCHEMAS) as ValueKey[]) {
    if (input[key] === undefined) continue;
    const parsed = VALUE_SCHEMAS[key].safeParse(input[key]);
    if (!parsed.success) {
      ignore(key, firstIssue(parsed.error));
      continue;
    }
    (values as Record<string, unknown>)[key] = parsed.data;
    locked.add(key);
  }

  const policy = input.lookupPolicy;
  if (policy !== undefined) {
    if (!policy || typeof policy !== 'object' || Array.isArray(policy)) ignore('lookupPolicy', 'not an object.');
    else {
      const fields: Partial<LookupPolicy> = {};
      for (const [field, value] of Object.entries(policy as Record<string, unknown>)) {
        const schema = lookupPolicySchema.shape[field as keyof LookupPolicy] as z.ZodType | undefined;
        if (!schema) {
          ignore(`lookupPolicy.${field}`, 'not a setting of this extension.');
          continue;
        }
        const parsed = schema.safeParse(value);
        if (!parsed.success) ignore(`lookupPolicy.${field}`, firstIssue(parsed.error));
        else {
          (fields as Record<string, unknown>)[field] = parsed.data;
          locked.add(`lookupPolicy.${field as keyof LookupPolicy}`);
        }
      }
      if (Object.keys(fields).length) values.lookupPolicy = fields;
    }
  }

  let apiKey: string | null = null;
  if (input.apiKey !== undefined) {
    const parsed = apiKeySchema.safeParse(input.apiKey);
    // The key itself is never quoted in a message.
    if (!parsed.success || !parsed.data) ignore('apiKey', parsed.success ? 'empty.' : firstIssue(parsed.error));
    else {
      apiKey = parsed.data;
      locked.add('apiKey');
    }
  }

  let proxyAddsKey = false;
  if (input.proxyAddsKey !== undefined) {
    if (typeof input.proxyAddsKey !== 'boolean') ignore('proxyAddsKey', 'must be true or false.');
    else if (input.proxyAddsKey && !values.apiBaseUrl) ignore('proxyAddsKey', 'needs apiBaseUrl, the address of the proxy.');
    else if (input.proxyAddsKey) {
      proxyAddsKey = true;
      // No key is sent, so none may be typed in: the proxy is the only credential.
      locked.add('apiKey');
      locked.add('authHeader');
    }
  }

  if (input.gatewaySignIn !== undefined) {
    if (input.gatewaySignIn !== 'required') ignore('gatewaySignIn', 'the only value is "required".');
    else {
      // Personal tokens are off: a lost laptop holds a session that ends, not a token that lasts.
      values.gatewayAuth = 'sign-in';
      locked.add('gatewayAuth');
    }
  }

  if (input.lockedSettings !== undefined) {
    if (!Array.isArray(input.lockedSettings)) ignore('lockedSettings', 'must be a list of setting names.');
    else {
      for (const name of input.lockedSettings) {
        const path = lockPathOf(name);
        if (path) locked.add(path);
        else ignore('lockedSettings', `"${String(name).slice(0, 60)}" is not a setting of this extension.`);
      }
    }
  }

  const unknown = Object.keys(input).filter((k) => !KNOWN.has(k));
  if (unknown.length) problems.push(`Unknown policy names: ${unknown.slice(0, 10).join(', ')}. Ignored.`);
  return { values, apiKey, proxyAddsKey, locked, problems };
}

function lockPathOf(name: unknown): LockPath | null {
  if (typeof name !== 'string') return null;
  if ((SETTING_LOCKS as readonly string[]).includes(name)) return name as LockPath;
  if (name === 'lookupPolicy') return null; // ambiguous: lock its fields one by one
  const field = name.startsWith('lookupPolicy.') ? name.slice('lookupPolicy.'.length) : null;
  return field && (POLICY_FIELDS as string[]).includes(field) ? (name as LockPath) : null;
}

/** The settings in force: policy values over the user's. The key stays the user's (see top). */
export function applyManaged(stored: Settings, policy: ManagedPolicy): Settings {
  const { lookupPolicy, ...rest } = policy.values;
  const merged = { ...stored } as Record<string, unknown>;
  for (const [key, value] of Object.entries(rest)) {
    // Only settings this build has (`pivots` joins when its setting exists).
    if (value !== undefined && key in stored) merged[key] = value;
  }
  if (lookupPolicy) merged.lookupPolicy = { ...stored.lookupPolicy, ...lookupPolicy };
  return merged as Settings;
}

/** Names each locked setting a patch would change; empty when the patch may be saved. */
export function lockedChanges(policy: ManagedPolicy, effective: Settings, patch: Partial<Settings>): string[] {
  const changed: string[] = [];
  for (const key of Object.keys(patch) as SettingKey[]) {
    if (key === 'lookupPolicy') {
      const next = patch.lookupPolicy!;
      for (const field of POLICY_FIELDS) {
        if (policy.locked.has(`lookupPolicy.${field}`) && next[field] !== effective.lookupPolicy[field]) {
          changed.push(`lookupPolicy.${field}`);
        }
      }
    } else if (policy.locked.has(key) && JSON.stringify(patch[key]) !== JSON.stringify(effective[key])) {
      changed.push(key);
    }
  }
  return changed;
}

export class LockedSettingError extends Error {
  constructor(readonly settings: string[]) {
    super(`Set by your organisation, so it cannot be changed here: ${settings.join(', ')}.`);
    this.name = 'LockedSettingError';
  }
}

/** The storage area policy lands in; tests pass a fake. */
export interface ManagedArea {
  get(): Promise<Record<string, unknown>>;
}

/**
 * Reads the policy. A browser with no policy for us (Firefox without policies.json rejects
 * with "Managed storage manifest not found") or no managed area at all reads as no policy.
 */
export async function readManagedPolicy(area: ManagedArea | undefined = defaultArea()): Promise<ManagedPolicy> {
  if (!area) return NO_POLICY;
  try {
    return parseManagedPolicy(await area.get());
  } catch {
    return NO_POLICY;
  }
}

function defaultArea(): ManagedArea | undefined {
  return (browser.storage as { managed?: ManagedArea } | undefined)?.managed;
}

/** Calls back when an administrator changes the policy while the browser runs. */
export function watchManagedPolicy(callback: () => void): () => void {
  const listener = (_changes: unknown, area: string) => {
    if (area === 'managed') callback();
  };
  browser.storage.onChanged.addListener(listener);
  return () => browser.storage.onChanged.removeListener(listener);
}

/** What extension pages may know of the policy: what is locked and why, never the key. */
export interface ManagedView {
  locked: LockPath[];
  keyManaged: boolean;
  proxyAddsKey: boolean;
  problems: string[];
}

export function managedView(policy: ManagedPolicy): ManagedView {
  return {
    locked: [...policy.locked],
    keyManaged: policy.apiKey !== null,
    proxyAddsKey: policy.proxyAddsKey,
    problems: policy.problems,
  };
}
