/**
 * The API client's public, normalised types. Raw wire shapes (and their zod schemas) live in
 * schemas.ts; the client converts every answer into these so the rest of the extension never
 * deals with the service's variations (free-text ip_rep, `+0000` timestamps, `""` for never...).
 */
import type { CircuitBreaker } from './circuit';
import type { ApiErrorData, ApiErrorKind } from './errors';

export type AuthHeaderMode = 'authorization' | 'x-api-key';

export interface ApiClientOptions {
  /** e.g. `https://ipswamp.com/api/v1` (no trailing slash needed). */
  baseUrl: string;
  apiKey: string;
  /** 'none': a proxy adds the key (managed deployment); no key header is sent. */
  authHeader: AuthHeaderMode | 'none';
  fetch?: typeof globalThis.fetch;
  /** Per attempt. Default 15 s. */
  timeoutMs?: number;
  /** Retry policy for 429 / 5xx / network failures. Tests shorten the delays. */
  retry?: Partial<RetryPolicy>;
  /**
   * The breaker per endpoint (circuit.ts), shared with whoever plans the calls: an open endpoint
   * is not sent anything, and its timeout (lengthened after a timeout) replaces `timeoutMs`.
   */
  circuit?: CircuitBreaker;
  /** Time for timeouts and retry waits; the globals by default (tests pass a fake clock). */
  timers?: ApiTimers;
  /**
   * The server is the team's gateway: lookups say which IPs the analyst asked for (the bulk
   * body's `asked`, checkIP's `asked=true`), for the team's sightings. Never sent to the API.
   */
  teamGateway?: boolean;
  /**
   * A team gateway's sign-in: called when the session token is refused as ended
   * (`sign-in-again`); a new token (a refresh) makes the request go once more with it, null
   * leaves the refusal as it is.
   */
  renewKey?: () => Promise<string | null>;
}

export interface ApiTimers {
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface RetryPolicy {
  /** Retries after the first attempt. */
  limit: number;
  /** Base of the exponential backoff (full jitter: random(0, min(cap, base * 2^n))). */
  baseDelayMs: number;
  /** Cap of one backoff delay. */
  maxDelayMs: number;
  /** A `Retry-After` longer than this is not waited for: the error is returned instead. */
  maxRetryAfterMs: number;
  /** Total time bound: a retry whose wait would end later than this after the first attempt is not made. */
  maxElapsedMs: number;
}

/** ipInfo: every field optional (older documentation lacks `isp`). */
export interface IpInfo {
  ip?: string;
  asn?: string;
  as_name?: string;
  as_domain?: string;
  country_code?: string;
  country?: string;
  continent_code?: string;
  continent?: string;
  isp?: string;
}

export interface WhitelistInfo {
  /** The whitelist object as sent (fields not documented), rendered as text only. */
  entry: Record<string, unknown> | null;
  description: string | null;
  note: string | null;
  value: string | null;
}

/** Threat levels we know; anything else the server sends is kept as `UNKNOWN`. */
export type ThreatLevel = 'LOW' | 'MEDIUM' | 'HIGH' | 'CRITICAL' | 'UNKNOWN';

/** One IP's reputation, from a single or a bulk lookup. */
export interface Reputation {
  ip: string;
  /** 0-100, may be fractional. null when the server sent none. */
  score: number | null;
  /** Bulk rows only; null when absent. Unknown words become 'UNKNOWN'. */
  threatLevel: ThreatLevel | null;
  /** Free text (`malicious`, `known attacker`, `bot, crawler`...); null when absent. */
  reputation: string | null;
  totalHits: number | null;
  /** ISO 8601 (UTC, `Z`), or null when none recorded / unparseable / `""`. */
  lastAttack: string | null;
  whitelisted: boolean;
  whitelist: WhitelistInfo | null;
  /** Human-readable description (`Cloudflare DNS`); null when absent. */
  description: string | null;
  /** Present when the lookup was detailed (or the server sent it anyway). */
  ipInfo?: IpInfo;
}

/**
 * Where a team gateway's answer came from (its additive `gateway` field). Answers of the public
 * API carry none.
 */
export interface GatewayProvenance {
  /** `hit`: from the team's cache; `miss`: bought for this request; `coalesced`: bought by another request just then. */
  cache: 'hit' | 'miss' | 'coalesced';
  /** How old the answer was when the gateway gave it (the time since adds to it). */
  ageMs: number;
  /** Who on the team looked the IP up before; null when the gateway keeps no sightings. */
  sightings: TeamSightings | null;
}

export interface TeamSightings {
  /** Distinct analysts within the gateway's retention period. */
  count: number;
  /** ISO times of the earliest and latest sightings kept. */
  firstSeen: string | null;
  lastSeen: string | null;
  newToTeam: boolean;
  /** The analyst asking is one of `count`. */
  byYou: boolean;
  /** Only when the gateway's operator shares names; most recent first. */
  names: string[] | null;
}

/** `gateway`: present only on a team gateway's answers. */
export type SingleLookup =
  | { status: 'found'; data: Reputation; gateway?: GatewayProvenance }
  /** A 404 (free) for an IP that is not in the database. */
  | { status: 'not-found'; ip: string; gateway?: GatewayProvenance };

export type BulkItem =
  | { ip: string; status: 'found'; data: Reputation; gateway?: GatewayProvenance }
  | { ip: string; status: 'not-found'; gateway?: GatewayProvenance }
  /**
   * No usable answer for this IP: the server failed it inside a 200 (`server`), its row was
   * unreadable (`bad-response`), it was missing, or the IP is malformed (`bad-request`).
   */
  | {
      ip: string;
      status: 'error';
      message: string;
      kind: ApiErrorKind;
      /**
       * The server did send a row for this IP, but it could not be read (or held neither data
       * nor an error). It may have been billed, so the lookup engine remembers it for a while.
       */
      unreadable?: true;
    };

export interface BulkLookup {
  /** One per requested IP (after de-duplication), in request order. */
  items: BulkItem[];
  /** Number of HTTP requests made (chunks of at most 100). */
  requests: number;
  /**
   * Set when a chunk after the first failed (rate limit, quota...): the IPs of that chunk and of
   * the chunks not sent are `status: 'error'` items with this message. A failure of the first
   * chunk is thrown instead, as nothing was looked up.
   */
  failure?: ApiErrorData;
}

export interface ApiKeyInfo {
  uid: string | null;
  name: string | null;
  currentUsage: number | null;
  /** null when the key has no limit of its own (the organisation's applies). */
  maxApiRequests: number | null;
  createdAt: string | null;
}

export interface OrganizationQuota {
  totalUsage: number | null;
  totalQuota: number | null;
  currentUsage: number | null;
  maxApiRequests: number | null;
  allocatedApiKeyQuota: number | null;
  availableApiKeyQuota: number | null;
  source: string | null;
  unlimited: boolean;
}

/**
 * What a team gateway adds to /account (the public API sends nothing of the kind): the
 * analyst's own daily budget, and the team's shared pool with the reserve the gateway keeps.
 */
export interface TeamQuota {
  analyst: { usedToday: number; dailyBudget: number | null; day: string };
  team: {
    used: number;
    /** null: unlimited. */
    limit: number | null;
    reservePercent: number;
    /** Units the gateway's purchases may reach (limit minus reserve); null: no ceiling. */
    allowed: number | null;
    /** The gateway buys nothing more, for anyone, until the quota resets. */
    reserveReached: boolean;
  };
}

/** From the free `/account` call. */
export interface AccountInfo {
  organizationId: string | null;
  key: ApiKeyInfo;
  organization: OrganizationQuota | null;
  /** Only through a team gateway. */
  team?: TeamQuota;
}

/** From `test-key` (costs one request). */
export interface TestKeyResult {
  success: boolean;
  message: string;
  timestamp: string | null;
  organizationId: string | null;
  key: ApiKeyInfo;
}

export interface SubnetLookup {
  cidr: string;
  /** Only the IPs found. */
  items: Reputation[];
  summary: {
    total: number | null;
    malicious: number | null;
    clean: number | null;
    averageScore: number | null;
    foundCount: number | null;
  } | null;
}

export interface ApiClient {
  /** `asked`: the analyst asked for it (told to a team gateway only). */
  checkIp(ip: string, options?: { detailed?: boolean; signal?: AbortSignal; asked?: boolean }): Promise<SingleLookup>;
  /** `asked`: the IPs the analyst asked for; the others were on a page (told to a team gateway only). */
  checkIpBulk(ips: readonly string[], options?: { signal?: AbortSignal; asked?: ReadonlySet<string> }): Promise<BulkLookup>;
  testKey(options?: { signal?: AbortSignal }): Promise<TestKeyResult>;
  account(options?: { signal?: AbortSignal }): Promise<AccountInfo>;
  checkSubnet(cidr: string, options?: { signal?: AbortSignal }): Promise<SubnetLookup>;
}
