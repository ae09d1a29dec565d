/**
 * Every stored setting's type and validation, as zod schemas. Defaults: ./defaults.ts;
 * storage: ./store.ts.
 */
import { z } from '../zod';
import { MAX_PIVOTS, PIVOT_ID, nameError, pivotListError, templateError, type Pivot } from '../pivots';
import { SITE_PATTERN, SITE_PATTERN_HINT } from './site-pattern';

export const authHeaderSchema = z.enum(['authorization', 'x-api-key']);

export const apiBaseUrlSchema = z
  .string()
  .trim()
  .min(1, 'Enter the API base URL.')
  .refine(isHttpUrl, 'Enter a full http(s) URL, such as https://ipswamp.com/api/v1.')
  // A user:pass@ would travel to the server beside the key and be quoted by fetch errors.
  .refine((value) => !hasUrlCredentials(value), 'Leave the user name and password out of the URL: the API key is the only credential sent.')
  .transform((value) => value.replace(/\/+$/, ''));

export const apiKeySchema = z
  .string()
  .trim()
  .max(512, 'That key is too long to be an API key.')
  .refine((v) => !/\s/.test(v), 'An API key has no spaces or line breaks.')
  // Printable ASCII only: a NUL or control character cannot be a real key and breaks headers.
  .refine((v) => /^[\x21-\x7e]*$/.test(v), 'An API key uses printable ASCII characters only (no control or accented characters).');

/**
 * The team gateway's address ('' = no gateway): its root, under which it serves `/api/v1` and
 * `/auth`. An address typed with the API path (`…/api/v1`, what the gateway's docs once said to
 * put in the API base URL) is taken for its root.
 */
export const gatewayUrlSchema = z
  .string()
  .trim()
  .refine((value) => value === '' || isHttpUrl(value), "Enter the gateway's full http(s) address, such as https://ipl-gateway.example.org.")
  .refine((value) => !hasUrlCredentials(value), 'Leave the user name and password out of the URL: your token or sign-in is the only credential sent.')
  .refine((value) => value === '' || !/[?#]/.test(value), "The gateway's address has no query or fragment.")
  .transform((value) => value.replace(/\/+$/, '').replace(/\/api\/v1$/, ''));

/**
 * How the analyst proves who they are to the gateway: a personal token the operator gave them,
 * or signing in with the organisation (the gateway's single sign-on, a short-lived session).
 */
export const gatewayAuthSchema = z.enum(['token', 'sign-in']);
export type GatewayAuth = z.infer<typeof gatewayAuthSchema>;

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

function hasUrlCredentials(value: string): boolean {
  try {
    const url = new URL(value);
    return url.username !== '' || url.password !== '';
  } catch {
    return false;
  }
}

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

/** One "Open in …" service; the rules are lib/pivots.ts's, shared with the options editor. */
export const pivotSchema = z
  .object({
    id: z.string().regex(PIVOT_ID, 'A pivot id is lower-case letters, digits and dashes.'),
    name: z.string().trim().superRefine((v, ctx) => addIssue(ctx, nameError(v))),
    urlTemplate: z.string().trim().superRefine((v, ctx) => addIssue(ctx, templateError(v))),
    enabled: z.boolean(),
  })
  .strict() satisfies z.ZodType<Pivot>;

export const pivotsSchema = z
  .array(pivotSchema)
  .max(MAX_PIVOTS, `At most ${MAX_PIVOTS} services.`)
  .superRefine((list, ctx) => addIssue(ctx, pivotListError(list)));

function addIssue(ctx: z.RefinementCtx, message: string | null): void {
  if (message) ctx.addIssue({ code: 'custom', message });
}

/** A Chrome match pattern for "Sites to scan", e.g. `https://kibana.example.org/*`. */
export const sitePatternSchema = z.string().trim().regex(SITE_PATTERN, SITE_PATTERN_HINT);

/** The case-tool exports (STIX 2.1, MISP): what counts as reported-malicious. */
export const exportOptionsSchema = z
  .object({
    /** Medium severity becomes a STIX indicator (MISP: to_ids) too, not only high and critical. */
    mediumIndicators: z.boolean(),
  })
  .strict();
export type ExportOptions = z.infer<typeof exportOptionsSchema>;

export const settingsSchema = z.object({
  apiBaseUrl: apiBaseUrlSchema,
  apiKey: apiKeySchema,
  authHeader: authHeaderSchema,
  sitesToScan: z.array(sitePatternSchema),
  lookupPolicy: lookupPolicySchema,
  thresholds: thresholdsSchema,
  markStyle: markStyleSchema,
  /** "Open in …" links for the card, the popup rows and the context menu. */
  pivots: pivotsSchema,
  exportOptions: exportOptionsSchema,
  /** The team gateway ('' = none): lookups go there instead of apiBaseUrl (./team-gateway.ts). */
  gatewayUrl: gatewayUrlSchema,
  gatewayAuth: gatewayAuthSchema,
  /** The personal gateway token; a secret kept with the API key (./key-store.ts). */
  gatewayToken: apiKeySchema,
});
export type Settings = z.infer<typeof settingsSchema>;
export type SettingKey = keyof Settings;

/** The settings that are secrets, kept in the extension's IndexedDB (./key-store.ts). */
export const SECRET_SETTINGS = ['apiKey', 'gatewayToken'] as const;
export type SecretSetting = (typeof SECRET_SETTINGS)[number];

/** Settings as exported to a file: everything except the key and the gateway token. */
export const exportableSettingsSchema = settingsSchema.omit({ apiKey: true, gatewayToken: true });
export type ExportableSettings = z.infer<typeof exportableSettingsSchema>;

/**
 * Settings an imported file may change: not the key, and not where the key is sent (server and
 * header). A settings file travels between analysts; if it could change the API address, the
 * next lookup would hand the key to whoever wrote the file, with no permission prompt.
 */
export const importableSettingsSchema = exportableSettingsSchema.omit({ apiBaseUrl: true, authHeader: true, gatewayUrl: true, gatewayAuth: true });
export type ImportableSettings = z.infer<typeof importableSettingsSchema>;
