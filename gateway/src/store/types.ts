/**
 * What the gateway keeps, and the operations it needs on it. Two implementations: Redis (the
 * shared store of N replicas, single node or cluster) and an embedded file-backed store (one
 * replica on a laptop). Every operation touches one key, or keys of one IP that share a hash
 * slot, so nothing spans slots on a cluster.
 */
import type { IpInfo, Reputation } from '../../../lib/api/types';
import type { MostSeen, SightingEntry, Sightings } from './sightings';

/** One IP's reputation answer; its ipInfo lives apart (StoredInfo) as it ages slower. */
export interface StoredAnswer {
  status: 'found' | 'not-found';
  /** Without ipInfo; null when not found. */
  data: Reputation | null;
  /** Epoch ms the upstream answered. */
  fetchedAt: number;
}

export interface StoredInfo {
  /** null: asked, the upstream had none (not found). */
  info: IpInfo | null;
  fetchedAt: number;
}

/**
 * A claim is per IP and per kind of purchase: the reputation (bulk) or the details (checkIP
 * detailed); `probe` is the one half-open circuit probe of an upstream endpoint (its path in
 * place of the IP), so one probe goes for all replicas.
 */
export type ClaimKind = 'rep' | 'info' | 'probe';

/**
 * `won-stale`: won, but the previous holder had started buying and neither stored an answer
 * nor released it (it died mid-call, or lost its lease): the upstream may have billed it, so
 * the team ledger is reconciled with the free /account before buying again.
 */
export type ClaimOutcome = 'won' | 'won-stale' | 'held';

export interface TokenRecord {
  name: string;
  /** SHA-256 of the token, hex. The token itself is never stored. */
  hash: string;
  createdAt: number;
  /** null: never expires. */
  expiresAt: number | null;
  /** Units per UTC day; null: no budget of its own. */
  budget: number | null;
}

export interface TokenState extends TokenRecord {
  lastUsedAt: number | null;
  usageToday: number;
}

export interface LedgerState {
  /** The organisation's usage as /account last said, plus what was bought since. */
  usage: number;
  /** The organisation's limit; null: unlimited. */
  limit: number | null;
  /** Units reserved by purchases in flight. */
  reserved: number;
  refreshedAt: number;
  organizationId: string | null;
}

export type SharedName = 'circuit' | 'lost-answers';

export interface RateLimitResult {
  allowed: boolean;
  retryAfterMs: number;
}

export interface Store {
  readonly kind: 'redis' | 'redis-cluster' | 'embedded';
  /** Throws when the store cannot be reached. */
  ping(): Promise<void>;
  close(): Promise<void>;

  getAnswers(ips: readonly string[]): Promise<Map<string, StoredAnswer>>;
  putAnswers(entries: readonly { ip: string; answer: StoredAnswer; ttlMs: number }[]): Promise<void>;
  getInfo(ip: string): Promise<StoredInfo | null>;
  putInfo(ip: string, info: StoredInfo, ttlMs: number): Promise<void>;

  claim(kind: ClaimKind, ip: string, owner: string, leaseMs: number): Promise<ClaimOutcome>;
  /** Notes that the holder is about to call the upstream (kept until release; see won-stale). */
  markBuying(kind: ClaimKind, ips: readonly string[], owner: string): Promise<void>;
  /** false when the claim is no longer ours (expired or taken): the call must stop. */
  extendClaim(kind: ClaimKind, ip: string, owner: string, leaseMs: number): Promise<boolean>;
  /** Compare-and-delete: only the owner's claim goes (and its buying mark with it). */
  releaseClaim(kind: ClaimKind, ip: string, owner: string): Promise<boolean>;
  claimed(kind: ClaimKind, ips: readonly string[]): Promise<Set<string>>;

  /** Cross-replica wake-up: "these IPs now have answers". Delivery is best effort. */
  publishAnswered(ips: readonly string[]): Promise<void>;
  subscribeAnswered(listener: (ips: string[]) => void): Promise<() => Promise<void>>;

  /**
   * A small value every replica reads and writes whole: lib's upstream rules (the circuit per
   * endpoint, the lost-answer memory) keep their state here. undefined when none.
   */
  getShared(name: SharedName): Promise<unknown>;
  putShared(name: SharedName, value: unknown): Promise<void>;

  getLedger(): Promise<LedgerState | null>;
  /** From /account: usage and limit replace ours; reservations in flight stay. */
  setLedgerFromAccount(state: { usage: number; limit: number | null; organizationId: string | null; at: number }): Promise<void>;
  /** Atomic: reserves `units` only if usage + reserved + units <= allowed (null: no ceiling). */
  reserve(units: number, allowed: number | null): Promise<boolean>;
  /** Ends a reservation: `spent` units join the usage. */
  settle(reserved: number, spent: number): Promise<void>;

  putToken(record: TokenRecord): Promise<void>;
  tokenByHash(hash: string): Promise<TokenRecord | null>;
  listTokens(day: string): Promise<TokenState[]>;
  /** false when no token has that name. */
  revokeToken(name: string): Promise<boolean>;
  /** Notes a use; adds `units` to the token's usage of `day` and returns it. */
  recordUse(name: string, day: string, units: number, at: number): Promise<number>;
  usageOf(name: string, day: string): Promise<number>;
  /** One more request of `subject` in a window of `windowMs` holding at most `points`. */
  rateLimit(subject: string, points: number, windowMs: number): Promise<RateLimitResult>;

  /**
   * Short-lived sign-in records, each under the hash of a secret (a sign-in state, a session or
   * refresh token), gone after `ttlMs`. `takeSecret` reads and deletes at once, so a one-time
   * record is used once even when two replicas race for it.
   */
  putSecret(kind: SecretKind, id: string, value: unknown, ttlMs: number): Promise<void>;
  getSecret(kind: SecretKind, id: string): Promise<unknown>;
  takeSecret(kind: SecretKind, id: string): Promise<unknown>;
  deleteSecret(kind: SecretKind, id: string): Promise<void>;

  // Team sightings (sightings.ts): who on the team looked an IP up, and when.
  /** getAnswers, and the same IPs' sighting records, in one read (one MGET on one Redis node). */
  getAnswersAndSightings(ips: readonly string[]): Promise<{ answers: Map<string, StoredAnswer>; sightings: Map<string, Sightings> }>;
  /**
   * Adds sightings atomically per IP (replicas may record the same IP at once): analysts last
   * seen before `cutoff` are dropped, and a record no one adds to is gone `ttlMs` after its last.
   */
  recordSightings(entries: readonly SightingEntry[], cutoff: number, ttlMs: number): Promise<void>;
  /** The IPs seen by the most analysts since `cutoff` (then the most recently seen), at most `limit`. */
  mostSeen(limit: number, cutoff: number): Promise<MostSeen[]>;

  // ----- The team dashboard: per-day counters and the replicas' heartbeats -----
  /**
   * Adds `add` to `day`'s counters and overwrites the `set` ones (last writer wins), one
   * record per UTC day kept `keepMs` after its last write. Counters are named by DayStats.
   */
  addDayStats(day: string, add: Readonly<Record<string, number>>, set: Readonly<Record<string, number>>, keepMs: number): Promise<void>;
  /** Each asked day's counters (a day nobody wrote, or past its retention, is absent). */
  dayStats(days: readonly string[]): Promise<Map<string, Record<string, number>>>;
  /** A replica says it is alive; one that stops saying so is forgotten after `ttlMs`. */
  beat(replica: ReplicaBeat, ttlMs: number): Promise<void>;
  /** The replicas whose last beat is younger than its `ttlMs` at `now`, in no particular order. */
  replicas(now: number): Promise<ReplicaBeat[]>;
}

export interface ReplicaBeat {
  /** Random per process start. */
  id: string;
  host: string;
  startedAt: number;
  seenAt: number;
}

/** `signin`: a code flow in progress; `session` and `refresh`: a signed-in analyst's tokens. */
export type SecretKind = 'signin' | 'session' | 'refresh';

/** The UTC day a usage counts in. */
export function dayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}
