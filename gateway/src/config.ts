/**
 * The gateway's configuration, read from the environment once at start. Every variable is
 * checked here, and a bad one stops the start with a message naming it, so an operator never
 * finds a typo hours later as a strange behaviour.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { z } from '../../lib/zod';

const HOUR_S = 3600;

export interface GatewayConfig {
  upstreamUrl: string;
  /** The organisation's key: held in memory, never logged, never sent to a client. */
  upstreamKey: string;
  /** One URL: a single Redis; several: the nodes of a Redis Cluster; empty: the embedded store. */
  redisUrls: string[];
  dataDir: string;
  host: string;
  port: number;
  /** null: any chrome-extension:// or moz-extension:// origin. */
  allowedOrigins: string[] | null;
  ttls: { foundMs: number; notFoundMs: number; detailedMs: number };
  /** Share of the organisation's limit automatic buying never spends. */
  reservePercent: number;
  /** Requests a token may make per minute before 429s. */
  rateLimitPerMinute: number;
  /** Private and reserved addresses go upstream only when the operator allows it. */
  sendPrivate: boolean;
  /** A claim's lease; extended while the upstream call runs. */
  leaseMs: number;
  upstreamTimeoutMs: number;
  tls: { cert: string; key: string } | null;
  logLevel: string;
  /** Single sign-on: bearer JWTs of the organisation's identity provider; null: off. */
  oidc: OidcSettings | null;
  /** "Sign in with your organisation": the gateway as a confidential client; null: off. */
  signIn: SignInSettings | null;
  /** The team dashboard: who may open it and how long its history is kept. */
  dashboard: DashboardSettings;
  sightings: SightingSettings;
}

export interface DashboardSettings {
  /** SHA-256 (hex) of the admin token; null: no token opens the dashboard. */
  adminTokenHash: string | null;
  /** Signed-in users of this group (single sign-on's group claim) open it too; null: none. */
  adminGroup: string | null;
  /** Days of per-day counters kept. */
  historyDays: number;
}

/** An admin token shorter than this is refused at start: it guards the whole team's usage. */
export const ADMIN_TOKEN_MIN_LENGTH = 32;

/** Team sightings: who on the team looked an IP up (store/sightings.ts). */
export interface SightingSettings {
  /** How long a sighting is kept; 0: sightings are neither recorded nor shown. */
  retentionMs: number;
  /** Answers name the analysts (off: only how many, and when). */
  names: boolean;
  /** IPs merely present on a page count as sightings too (off: only what an analyst asked). */
  pageIps: boolean;
}

export const DEFAULT_SIGHTINGS: SightingSettings = { retentionMs: 30 * 24 * HOUR_S * 1000, names: false, pageIps: false };

/** The extension's identity redirect URLs: Chromium's and Firefox's launchWebAuthFlow targets. */
export const EXTENSION_REDIRECTS = [/^https:\/\/[a-p]{32}\.chromiumapp\.org\//, /^https:\/\/[0-9a-f]{40}\.extensions\.allizom\.org\//];

export interface SignInSettings {
  clientId: string;
  /** Held in memory, sent to the identity provider's token endpoint only. */
  clientSecret: string;
  /** The gateway's own URL as browsers reach it; the provider redirects to `<publicUrl>/auth/callback`. */
  publicUrl: string;
  scopes: string;
  /** Where a finished sign-in may be handed: exact URL prefixes, or the extension patterns. */
  redirects: string[] | null;
  /** A session token's life; the extension refreshes it before then. */
  sessionTtlMs: number;
  /** How long one sign-in lasts, refreshes included: then the analyst signs in again. */
  signInMaxMs: number;
}

/** JWT signature algorithms a gateway may accept: asymmetric only (no `none`, no HS*). */
export const ASYMMETRIC_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'] as const;

export interface OidcSettings {
  /** The issuer URL exactly as the provider's tokens and discovery document spell it. */
  issuer: string;
  /** The `aud` a token must carry to be meant for this gateway. */
  audience: string;
  algorithms: string[];
  /** A group the analyst must be in (null: any signed-in analyst), read from `groupClaim`. */
  group: string | null;
  groupClaim: string;
  /** Units per UTC day for each signed-in analyst; null: no budget of their own. */
  budget: number | null;
}

const positiveSeconds = (fallback: number) => z.coerce.number().int().positive().default(fallback);
const flag = z.enum(['true', 'false', '1', '0', 'yes', 'no']).default('false').transform((v) => ['true', '1', 'yes'].includes(v));

const envSchema = z.object({
  GATEWAY_UPSTREAM_URL: z.url({ protocol: /^https?$/ }).default('https://ipswamp.com/api/v1'),
  GATEWAY_UPSTREAM_KEY: z.string().trim().min(1).optional(),
  GATEWAY_UPSTREAM_KEY_FILE: z.string().trim().min(1).optional(),
  GATEWAY_REDIS_URL: z
    .string()
    .trim()
    .optional()
    .transform((v) => (v ? v.split(',').map((u) => u.trim()).filter(Boolean) : []))
    .pipe(z.array(z.url({ protocol: /^rediss?$/, error: 'each URL must look like redis://host:port' }))),
  GATEWAY_DATA_DIR: z.string().trim().min(1).default('.gateway-data'),
  GATEWAY_HOST: z.string().trim().min(1).default('127.0.0.1'),
  GATEWAY_PORT: z.coerce.number().int().min(0).max(65535).default(8790),
  GATEWAY_ALLOWED_ORIGINS: z
    .string()
    .trim()
    .optional()
    .transform((v) => (v ? v.split(',').map((o) => o.trim()).filter(Boolean) : null)),
  GATEWAY_TTL_FOUND_S: positiveSeconds(24 * HOUR_S),
  GATEWAY_TTL_NOT_FOUND_S: positiveSeconds(6 * HOUR_S),
  GATEWAY_TTL_DETAILED_S: positiveSeconds(7 * 24 * HOUR_S),
  GATEWAY_RESERVE_PERCENT: z.coerce.number().min(0).max(100).default(10),
  GATEWAY_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(600),
  GATEWAY_SEND_PRIVATE: flag,
  GATEWAY_LEASE_MS: z.coerce.number().int().min(1000).default(30_000),
  GATEWAY_UPSTREAM_TIMEOUT_MS: z.coerce.number().int().min(100).default(15_000),
  GATEWAY_TLS_CERT: z.string().trim().min(1).optional(),
  GATEWAY_TLS_KEY: z.string().trim().min(1).optional(),
  GATEWAY_OIDC_ISSUER: z.url({ protocol: /^https?$/, error: 'must be the identity provider\'s issuer URL (https://…)' }).optional(),
  GATEWAY_OIDC_AUDIENCE: z.string().trim().min(1).optional(),
  GATEWAY_OIDC_ALGORITHMS: z
    .string()
    .trim()
    .optional()
    .transform((v) => (v ? v.split(',').map((a) => a.trim()).filter(Boolean) : [...ASYMMETRIC_ALGORITHMS]))
    .pipe(
      z
        .array(z.enum(ASYMMETRIC_ALGORITHMS, { error: `each must be one of ${ASYMMETRIC_ALGORITHMS.join(', ')} (none and HS* are refused: a public key must not verify a shared-secret signature)` }))
        .min(1),
    ),
  GATEWAY_OIDC_GROUP: z.string().trim().min(1).optional(),
  GATEWAY_OIDC_GROUP_CLAIM: z.string().trim().min(1).default('groups'),
  GATEWAY_OIDC_BUDGET: z.coerce.number().int().positive().optional(),
  GATEWAY_OIDC_CLIENT_ID: z.string().trim().min(1).optional(),
  GATEWAY_OIDC_CLIENT_SECRET: z.string().trim().min(1).optional(),
  GATEWAY_OIDC_CLIENT_SECRET_FILE: z.string().trim().min(1).optional(),
  GATEWAY_OIDC_SCOPES: z.string().trim().min(1).default('openid email profile'),
  GATEWAY_PUBLIC_URL: z.url({ protocol: /^https?$/, error: 'must be the URL browsers reach the gateway at (https://…)' }).optional(),
  GATEWAY_SIGN_IN_REDIRECTS: z
    .string()
    .trim()
    .optional()
    .transform((v) => (v ? v.split(',').map((o) => o.trim()).filter(Boolean) : null))
    .pipe(z.array(z.url({ protocol: /^https$/, error: 'each must be an https extension redirect URL' })).nullable()),
  GATEWAY_SESSION_TTL_S: positiveSeconds(15 * 60),
  GATEWAY_SIGN_IN_MAX_S: positiveSeconds(12 * HOUR_S),
  GATEWAY_ADMIN_TOKEN: z.string().trim().min(1).optional(),
  GATEWAY_ADMIN_TOKEN_FILE: z.string().trim().min(1).optional(),
  GATEWAY_OIDC_ADMIN_GROUP: z.string().trim().min(1).optional(),
  GATEWAY_HISTORY_DAYS: z.coerce.number().int().min(1).max(3660).default(90),
  GATEWAY_SIGHTINGS_DAYS: z.coerce.number().min(0).max(3650).default(30),
  GATEWAY_SIGHTINGS_NAMES: flag,
  GATEWAY_SIGHTINGS_PAGE_IPS: flag,
  GATEWAY_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

function readSecretFile(variable: string, file: string): string {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch (error) {
    throw new ConfigError(`${variable}: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'}).`);
  }
}

/**
 * `needsKey: false` for the token commands, which never talk to the upstream. The messages
 * name the variable and what was wrong, never the value (it may be a secret).
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, { needsKey = true } = {}): GatewayConfig {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'environment'}: ${issue.message}`);
    throw new ConfigError(`Invalid gateway configuration:\n  ${lines.join('\n  ')}`);
  }
  const e = parsed.data;
  if (e.GATEWAY_UPSTREAM_KEY && e.GATEWAY_UPSTREAM_KEY_FILE) {
    throw new ConfigError('GATEWAY_UPSTREAM_KEY and GATEWAY_UPSTREAM_KEY_FILE are both set: set one.');
  }
  const upstreamKey = e.GATEWAY_UPSTREAM_KEY ?? (e.GATEWAY_UPSTREAM_KEY_FILE ? readSecretFile('GATEWAY_UPSTREAM_KEY_FILE', e.GATEWAY_UPSTREAM_KEY_FILE) : '');
  if (needsKey && !upstreamKey) {
    throw new ConfigError('GATEWAY_UPSTREAM_KEY (or GATEWAY_UPSTREAM_KEY_FILE) is required: the organisation\'s API key.');
  }
  if (!!e.GATEWAY_TLS_CERT !== !!e.GATEWAY_TLS_KEY) {
    throw new ConfigError('GATEWAY_TLS_CERT and GATEWAY_TLS_KEY go together: set both or neither.');
  }
  const tls =
    e.GATEWAY_TLS_CERT && e.GATEWAY_TLS_KEY
      ? { cert: readSecretFile('GATEWAY_TLS_CERT', e.GATEWAY_TLS_CERT), key: readSecretFile('GATEWAY_TLS_KEY', e.GATEWAY_TLS_KEY) }
      : null;
  return {
    dashboard: dashboardSettings(e),
    oidc: oidcSettings(e),
    signIn: signInSettings(e),
    upstreamUrl: e.GATEWAY_UPSTREAM_URL.replace(/\/+$/, ''),
    upstreamKey,
    redisUrls: e.GATEWAY_REDIS_URL,
    dataDir: e.GATEWAY_DATA_DIR,
    host: e.GATEWAY_HOST,
    port: e.GATEWAY_PORT,
    allowedOrigins: e.GATEWAY_ALLOWED_ORIGINS,
    ttls: {
      foundMs: e.GATEWAY_TTL_FOUND_S * 1000,
      notFoundMs: e.GATEWAY_TTL_NOT_FOUND_S * 1000,
      detailedMs: e.GATEWAY_TTL_DETAILED_S * 1000,
    },
    reservePercent: e.GATEWAY_RESERVE_PERCENT,
    rateLimitPerMinute: e.GATEWAY_RATE_LIMIT_PER_MINUTE,
    sendPrivate: e.GATEWAY_SEND_PRIVATE,
    leaseMs: e.GATEWAY_LEASE_MS,
    upstreamTimeoutMs: e.GATEWAY_UPSTREAM_TIMEOUT_MS,
    tls,
    logLevel: e.GATEWAY_LOG_LEVEL,
    sightings: { retentionMs: Math.round(e.GATEWAY_SIGHTINGS_DAYS * 24 * HOUR_S * 1000), names: e.GATEWAY_SIGHTINGS_NAMES, pageIps: e.GATEWAY_SIGHTINGS_PAGE_IPS },
  };
}

function isLoopback(url: URL): boolean {
  return url.hostname === 'localhost' || url.hostname === '[::1]' || /^127\./.test(url.hostname);
}

function oidcSettings(e: z.infer<typeof envSchema>): OidcSettings | null {
  const { GATEWAY_OIDC_ISSUER: issuer, GATEWAY_OIDC_AUDIENCE: audience } = e;
  if (!issuer && !audience) {
    if (e.GATEWAY_OIDC_GROUP) throw new ConfigError('GATEWAY_OIDC_GROUP is set but single sign-on is off: set GATEWAY_OIDC_ISSUER and GATEWAY_OIDC_AUDIENCE too.');
    return null;
  }
  if (!issuer) throw new ConfigError('GATEWAY_OIDC_AUDIENCE is set without GATEWAY_OIDC_ISSUER: single sign-on needs both.');
  if (!audience) throw new ConfigError('GATEWAY_OIDC_ISSUER is set without GATEWAY_OIDC_AUDIENCE: single sign-on needs both (the audience your identity provider puts in tokens meant for this gateway).');
  // Keys fetched over plain http could be swapped on the way: only a local test provider may use it.
  if (new URL(issuer).protocol === 'http:' && !isLoopback(new URL(issuer))) {
    throw new ConfigError('GATEWAY_OIDC_ISSUER must use https (plain http is allowed for a provider on this machine only).');
  }
  return {
    issuer,
    audience,
    algorithms: e.GATEWAY_OIDC_ALGORITHMS,
    group: e.GATEWAY_OIDC_GROUP ?? null,
    groupClaim: e.GATEWAY_OIDC_GROUP_CLAIM,
    budget: e.GATEWAY_OIDC_BUDGET ?? null,
  };
}

function signInSettings(e: z.infer<typeof envSchema>): SignInSettings | null {
  const { GATEWAY_OIDC_CLIENT_ID: clientId, GATEWAY_OIDC_CLIENT_SECRET: secret, GATEWAY_OIDC_CLIENT_SECRET_FILE: secretFile } = e;
  if (!clientId) {
    if (secret || secretFile) throw new ConfigError('GATEWAY_OIDC_CLIENT_SECRET is set without GATEWAY_OIDC_CLIENT_ID: sign-in needs both.');
    return null;
  }
  if (!e.GATEWAY_OIDC_ISSUER) throw new ConfigError('GATEWAY_OIDC_CLIENT_ID is set without GATEWAY_OIDC_ISSUER (and GATEWAY_OIDC_AUDIENCE): sign-in needs single sign-on on.');
  if (secret && secretFile) throw new ConfigError('GATEWAY_OIDC_CLIENT_SECRET and GATEWAY_OIDC_CLIENT_SECRET_FILE are both set: set one.');
  const clientSecret = secret ?? (secretFile ? readSecretFile('GATEWAY_OIDC_CLIENT_SECRET_FILE', secretFile) : '');
  if (!clientSecret) throw new ConfigError('GATEWAY_OIDC_CLIENT_SECRET (or GATEWAY_OIDC_CLIENT_SECRET_FILE) is required with GATEWAY_OIDC_CLIENT_ID: the gateway is a confidential client.');
  if (!e.GATEWAY_PUBLIC_URL) throw new ConfigError('GATEWAY_PUBLIC_URL is required with GATEWAY_OIDC_CLIENT_ID: register <GATEWAY_PUBLIC_URL>/auth/callback with the identity provider.');
  if (e.GATEWAY_SESSION_TTL_S >= e.GATEWAY_SIGN_IN_MAX_S) throw new ConfigError('GATEWAY_SESSION_TTL_S must be shorter than GATEWAY_SIGN_IN_MAX_S.');
  return {
    clientId,
    clientSecret,
    publicUrl: e.GATEWAY_PUBLIC_URL.replace(/\/+$/, ''),
    scopes: e.GATEWAY_OIDC_SCOPES,
    redirects: e.GATEWAY_SIGN_IN_REDIRECTS,
    sessionTtlMs: e.GATEWAY_SESSION_TTL_S * 1000,
    signInMaxMs: e.GATEWAY_SIGN_IN_MAX_S * 1000,
  };
}

function dashboardSettings(e: z.infer<typeof envSchema>): DashboardSettings {
  if (e.GATEWAY_ADMIN_TOKEN && e.GATEWAY_ADMIN_TOKEN_FILE) throw new ConfigError('GATEWAY_ADMIN_TOKEN and GATEWAY_ADMIN_TOKEN_FILE are both set: set one.');
  const token = e.GATEWAY_ADMIN_TOKEN ?? (e.GATEWAY_ADMIN_TOKEN_FILE ? readSecretFile('GATEWAY_ADMIN_TOKEN_FILE', e.GATEWAY_ADMIN_TOKEN_FILE) : '');
  if (token && token.length < ADMIN_TOKEN_MIN_LENGTH) {
    throw new ConfigError(`GATEWAY_ADMIN_TOKEN must be at least ${ADMIN_TOKEN_MIN_LENGTH} characters (for example: openssl rand -base64 32).`);
  }
  if (e.GATEWAY_OIDC_ADMIN_GROUP && !e.GATEWAY_OIDC_ISSUER) throw new ConfigError('GATEWAY_OIDC_ADMIN_GROUP is set but single sign-on is off: set GATEWAY_OIDC_ISSUER and GATEWAY_OIDC_AUDIENCE too.');
  return {
    adminTokenHash: token ? createHash('sha256').update(token, 'utf8').digest('hex') : null,
    adminGroup: e.GATEWAY_OIDC_ADMIN_GROUP ?? null,
    historyDays: e.GATEWAY_HISTORY_DAYS,
  };
}
