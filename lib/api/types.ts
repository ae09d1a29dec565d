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

export type SingleLookup =
  | { status: 'found'; data: Reputation }
  /** A 404 (free) for an IP that is not in the database. */
  | { status: 'not-found'; ip: string };

export type BulkItem =
  | { ip: string; status: 'found'; data: Reputation }
  | { ip: string; status: 'not-found' }
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

/** From the free `/account` call. */
export interface AccountInfo {
  organizationId: string | null;
  key: ApiKeyInfo;
  organization: OrganizationQuota | null;
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
  checkIp(ip: string, options?: { detailed?: boolean; signal?: AbortSignal }): Promise<SingleLookup>;
  checkIpBulk(ips: readonly string[], options?: { signal?: AbortSignal }): Promise<BulkLookup>;
  testKey(options?: { signal?: AbortSignal }): Promise<TestKeyResult>;
  account(options?: { signal?: AbortSignal }): Promise<AccountInfo>;
  checkSubnet(cidr: string, options?: { signal?: AbortSignal }): Promise<SubnetLookup>;
}
