/**
 * Answer profiles: the ways a server that follows the public documentation (or its gaps) may
 * answer where `ip-threat-api.md` is silent or differs. Our client must read every one of them;
 * the contract and lookup-engine tests run under each (`describe.each(PROFILE_NAMES)`).
 *
 * - `spec`: the spec to the letter (unknown IPs: 404 on checkIP, `data: null` rows in bulk).
 * - `docs`: the documentation's own examples: a zero-hit **data row** for an unknown IP in bulk,
 *   a clean 200 from checkIP, `ipInfo` always sent and without `isp` (older docs), the nested
 *   `whitelist` object of the types page, `ip_rep: "whitelisted"` on whitelisted bulk rows, the
 *   authentication page's 403 texts, the server framework's own JSON 404 for missing routes.
 * - `odd`: plausible variants nobody documents: other per-row not-found texts, flat
 *   `whitelist_*` fields only, a 403 "Forbidden" for the usage limit, an HTML 404 for missing
 *   routes, and rows with `ip: null` or `score: "n/a"`.
 * - `org-pool`: the demo key has no limit of its own (`max_api_requests: null`) and draws on an
 *   organisation pool of 1,000 that a sibling key's own limit (300) is allocated from, so
 *   `available_api_key_quota` (700) is not what remains.
 *
 * Half-broken profiles (`HALF_BROKEN_PROFILE_NAMES`): the spec's answers, but the bulk endpoint
 * fails for as long as the profile is in force while the free `/account` answers at once, the
 * most common way a real API degrades (a busy gateway during an incident):
 * - `half-broken-slow`: bulk serves and bills each call on arrival, then answers after 17 s
 *   (past the client's 15 s timeout), whether or not the client still listens;
 * - `half-broken-503`: bulk answers a gateway's HTML 503 (not billed);
 * - `half-broken-429`: bulk answers 429 without Retry-After (billed 1, as every 429);
 * - `half-broken-429-retry-after`: the same with `Retry-After: 120`.
 */
import type { NotFoundMode } from './endpoints';
import { DEMO_KEY, type SimKeyConfig, type SimOrganization } from './keys';

/** Answer profiles: every endpoint works; they differ in how answers are spelled. */
export const PROFILE_NAMES = ['spec', 'docs', 'odd', 'org-pool'] as const;
export const HALF_BROKEN_PROFILE_NAMES = ['half-broken-slow', 'half-broken-503', 'half-broken-429', 'half-broken-429-retry-after'] as const;
/** Every profile, for walks that must hold under all of them (the screen text, the CLI). */
export const ALL_PROFILE_NAMES = [...PROFILE_NAMES, ...HALF_BROKEN_PROFILE_NAMES] as const;
export type ProfileName = (typeof ALL_PROFILE_NAMES)[number];
export type HalfBrokenProfileName = (typeof HALF_BROKEN_PROFILE_NAMES)[number];

/** How the bulk endpoint fails under a half-broken profile (nothing else does). */
export type BulkBreakage =
  | { mode: 'slow'; latencyMs: number }
  | { mode: '503' }
  | { mode: '429'; retryAfterSeconds?: number };

/** The latency of `half-broken-slow`: past the client's 15 s timeout, as seen in the field. */
export const HALF_BROKEN_SLOW_MS = 17_000;

export interface SimProfile {
  name: ProfileName;
  notFoundMode: NotFoundMode;
  /** Bulk: an unknown IP is a zero-hit data row (free), not `data: null` with an error. */
  zeroHitRows: boolean;
  /** The per-row error text for an IP not in the database. */
  notFoundRowText: string;
  /** checkIP sends ipInfo even when not asked, without `isp`. */
  ipInfoAlways: boolean;
  /** How a whitelisted IP's whitelist data is sent. */
  whitelist: 'object-and-flat' | 'nested-object' | 'flat-only';
  /** Whitelisted bulk rows say `ip_rep: "whitelisted"`. */
  whitelistedRep: boolean;
  /** 403 texts. */
  texts: { invalidKey: string; expiredKey: string; quota: string };
  /** What a route missing below the API prefix answers. */
  missingRoute: 'api-json' | 'framework-json' | 'html';
  /** Rows the server garbles: `ip: null` for these IPs, `score: "n/a"` for those. */
  nullIpRows: readonly string[];
  naScoreRows: readonly string[];
  /** Keys and organisations replacing the defaults' entries of the same key / id. */
  keys?: SimKeyConfig[];
  organizations?: SimOrganization[];
  /** Half-broken profiles: how `/checkIP/bulk` fails while every other endpoint works. */
  bulkBreakage?: BulkBreakage;
}

const SPEC: SimProfile = {
  name: 'spec',
  notFoundMode: '404',
  zeroHitRows: false,
  notFoundRowText: 'IP not found in database',
  ipInfoAlways: false,
  whitelist: 'object-and-flat',
  whitelistedRep: false,
  texts: { invalidKey: 'Invalid API key', expiredKey: 'API key expired', quota: 'API usage limit exceeded' },
  missingRoute: 'api-json',
  nullIpRows: [],
  naScoreRows: [],
};

/** The sibling key of the org-pool profile: its own limit is what `allocated_api_key_quota` counts. */
export const POOL_SIBLING_KEY = 'pool-sibling-key';

export const PROFILES: Record<ProfileName, SimProfile> = {
  spec: SPEC,
  docs: {
    ...SPEC,
    name: 'docs',
    notFoundMode: 'clean-row',
    zeroHitRows: true,
    ipInfoAlways: true,
    whitelist: 'nested-object',
    whitelistedRep: true,
    texts: { invalidKey: 'Invalid API key', expiredKey: 'Expired API key', quota: 'Usage limit exceeded' },
    missingRoute: 'framework-json',
  },
  odd: {
    ...SPEC,
    name: 'odd',
    notFoundRowText: 'No threat intelligence for this address',
    whitelist: 'flat-only',
    texts: { invalidKey: 'Invalid API key', expiredKey: 'Forbidden', quota: 'Forbidden' },
    missingRoute: 'html',
    // A not-found IP and a found one (FIXTURES.low): neither may sink its chunk.
    nullIpRows: ['4.2.2.2'],
    naScoreRows: ['80.82.77.139'],
  },
  'org-pool': {
    ...SPEC,
    name: 'org-pool',
    keys: [
      { key: DEMO_KEY, name: 'SOC demo key', uid: 'key-demo-0001', maxApiRequests: null, organizationId: 'org-pool', createdAt: '2025-03-01T09:00:00.000Z' },
      { key: POOL_SIBLING_KEY, name: 'Sibling with its own limit', uid: 'key-sibling', maxApiRequests: 300, organizationId: 'org-pool', createdAt: '2025-03-02T09:00:00.000Z' },
    ],
    organizations: [{ id: 'org-pool', maxApiRequests: 1000, source: 'partner_status' }],
  },
  'half-broken-slow': { ...SPEC, name: 'half-broken-slow', bulkBreakage: { mode: 'slow', latencyMs: HALF_BROKEN_SLOW_MS } },
  'half-broken-503': { ...SPEC, name: 'half-broken-503', bulkBreakage: { mode: '503' } },
  'half-broken-429': { ...SPEC, name: 'half-broken-429', bulkBreakage: { mode: '429' } },
  'half-broken-429-retry-after': { ...SPEC, name: 'half-broken-429-retry-after', bulkBreakage: { mode: '429', retryAfterSeconds: 120 } },
};

export function isProfileName(value: unknown): value is ProfileName {
  return typeof value === 'string' && (ALL_PROFILE_NAMES as readonly string[]).includes(value);
}

/** The defaults with the profile's keys and organisations put over them. */
export function mergeById<T>(defaults: readonly T[], overrides: readonly T[] | undefined, id: (item: T) => string): T[] {
  if (!overrides?.length) return [...defaults];
  const byId = new Map(defaults.map((item) => [id(item), item]));
  for (const item of overrides) byId.set(id(item), item);
  return [...byId.values()];
}
