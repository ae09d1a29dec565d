/**
 * What the cache keeps per IP, and when it is still good. The reputation and the ipInfo
 * details are kept apart with their own timestamps because they age differently: a score
 * changes within hours, the ASN and country of an address within months (the detailed TTL).
 * A plain refresh of the reputation therefore keeps details that are still fresh.
 */
import { z } from '../zod';
import { API_ERROR_KINDS, type ApiErrorData } from '../api/errors';
import type { GatewayProvenance, IpInfo, Reputation } from '../api/types';
import type { LookupResult } from './types';

/** Bump when the shape changes: records of another version are dropped on read. */
export const CACHE_RECORD_VERSION = 1;

export interface CacheRecord {
  v: typeof CACHE_RECORD_VERSION;
  ip: string;
  /**
   * `unreadable`: the server sent a row for this IP that could not be read. It may have been
   * billed, so it is remembered (see isReputationFresh) and shown as the failed lookup it is.
   */
  status: 'found' | 'not-found' | 'unreadable';
  /** The reputation without ipInfo (that lives in `info`); null when not found or unreadable. */
  data: Reputation | null;
  /** Why an unreadable row failed (absent for the other statuses and in older records). */
  error?: ApiErrorData;
  fetchedAt: number;
  /** Details from a detailed lookup; null with `infoFetchedAt` set means "asked, none given". */
  info: IpInfo | null;
  infoFetchedAt: number | null;
  /** When written; the persistent store evicts the oldest first. */
  storedAt: number;
  /** A team gateway's provenance of the reputation (absent for the API's answers and older records). */
  gateway?: GatewayProvenance;
}

export interface CacheTtls {
  foundMs: number;
  notFoundMs: number;
  detailedMs: number;
}

/** Clocks move; a timestamp this far in the future is treated as stale rather than eternal. */
const FUTURE_TOLERANCE_MS = 60_000;

const str = z.string().nullable();
const num = z.number().nullable();

const ipInfoSchema = z.object({
  ip: z.string().optional(),
  asn: z.string().optional(),
  as_name: z.string().optional(),
  as_domain: z.string().optional(),
  country_code: z.string().optional(),
  country: z.string().optional(),
  continent_code: z.string().optional(),
  continent: z.string().optional(),
  isp: z.string().optional(),
});

const reputationSchema = z.object({
  ip: z.string(),
  score: num,
  threatLevel: z.enum(['LOW', 'MEDIUM', 'HIGH', 'CRITICAL', 'UNKNOWN']).nullable(),
  reputation: str,
  totalHits: num,
  lastAttack: str,
  whitelisted: z.boolean(),
  whitelist: z
    .object({
      entry: z.record(z.string(), z.unknown()).nullable(),
      description: str,
      note: str,
      value: str,
    })
    .nullable(),
  description: str,
});

const gatewaySchema = z.object({
  cache: z.enum(['hit', 'miss', 'coalesced']),
  ageMs: z.number().finite().nonnegative(),
  sightings: z
    .object({
      count: z.number().int().nonnegative(),
      firstSeen: str,
      lastSeen: str,
      newToTeam: z.boolean(),
      byYou: z.boolean(),
      names: z.array(z.string()).nullable(),
    })
    .nullable(),
});

const cacheRecordSchema = z
  .object({
    v: z.literal(CACHE_RECORD_VERSION),
    ip: z.string().min(2),
    status: z.enum(['found', 'not-found', 'unreadable']),
    data: reputationSchema.nullable(),
    error: z.object({ kind: z.enum(API_ERROR_KINDS), message: z.string() }).optional(),
    fetchedAt: z.number().finite(),
    info: ipInfoSchema.nullable(),
    infoFetchedAt: z.number().finite().nullable(),
    storedAt: z.number().finite(),
    gateway: gatewaySchema.optional(),
  })
  .refine((r) => (r.status === 'found') === (r.data !== null), 'found records carry data')
  .refine((r) => (r.status === 'unreadable') === (r.error !== undefined), 'unreadable records carry their error');

/** A stored value as a record, or null when it is corrupted or from another version. */
export function parseCacheRecord(raw: unknown): CacheRecord | null {
  const parsed = cacheRecordSchema.safeParse(raw);
  return parsed.success ? (parsed.data as CacheRecord) : null;
}

function youngerThan(at: number | null, ttlMs: number, now: number): boolean {
  if (at === null) return false;
  const age = now - at;
  return age < ttlMs && age > -FUTURE_TOLERANCE_MS;
}

/**
 * An unreadable row lives as long as a not-found one. Both are answers with nothing to show
 * that the server may or may not have billed (whether it did is not documented); the user's
 * not-found TTL (default 6 h) is their own choice of how long such an IP is not worth paying
 * for again, and it is short enough that a server that garbled one answer gets a fresh chance
 * the same working day. A manual lookup is not held by it (see satisfies).
 */
export function isReputationFresh(record: CacheRecord, ttls: CacheTtls, now: number): boolean {
  const ttl = record.status === 'found' ? ttls.foundMs : ttls.notFoundMs;
  return youngerThan(record.fetchedAt, ttl, now);
}

export function isInfoFresh(record: CacheRecord, ttls: CacheTtls, now: number): boolean {
  return youngerThan(record.infoFetchedAt, ttls.detailedMs, now);
}

/**
 * Whether the record answers a lookup without a call (a detailed one also needs fresh details).
 * An unreadable row answers automatic lookups only: the analyst who asks on purpose is asked
 * again, as they saw the failure and chose to pay for another try.
 */
export function satisfies(record: CacheRecord, detailed: boolean, ttls: CacheTtls, now: number, manual = false): boolean {
  if (manual && record.status === 'unreadable') return false;
  return isReputationFresh(record, ttls, now) && (!detailed || isInfoFresh(record, ttls, now));
}

/** Nothing in it is fresh any more: drop it. */
export function isUseless(record: CacheRecord, ttls: CacheTtls, now: number): boolean {
  return !isReputationFresh(record, ttls, now) && !isInfoFresh(record, ttls, now);
}

export function resultFromRecord(record: CacheRecord): LookupResult {
  if (record.status === 'unreadable') {
    const error = record.error ?? { kind: 'bad-response', message: 'Unreadable answer for this IP.' };
    return { ip: record.ip, status: 'error', error: { kind: error.kind, message: error.message } };
  }
  const from = record.gateway ? { gateway: record.gateway } : {};
  if (record.status === 'not-found' || !record.data) {
    return { ip: record.ip, status: 'not-found', fetchedAt: record.fetchedAt, ...from };
  }
  const data: Reputation = record.info ? { ...record.data, ipInfo: record.info } : { ...record.data };
  return { ip: record.ip, status: 'found', data, fetchedAt: record.fetchedAt, ...from };
}

/** One answer from the API, as the cache records it (`gateway`: a team gateway's provenance). */
export type CacheAnswer =
  | { ip: string; status: 'found'; data: Reputation; detailed: boolean; gateway?: GatewayProvenance }
  | { ip: string; status: 'not-found'; detailed: boolean; gateway?: GatewayProvenance }
  | { ip: string; status: 'unreadable'; error: ApiErrorData; detailed: boolean };

/**
 * Builds the record for a new answer. Details come from the answer when it carries them (a
 * detailed call, or a server that sends ipInfo anyway), else they are kept from the previous
 * record so a plain refresh does not throw away fresh details.
 */
export function recordFromAnswer(answer: CacheAnswer, previous: CacheRecord | undefined, now: number): CacheRecord {
  let info: IpInfo | null = previous?.info ?? null;
  let infoFetchedAt: number | null = previous?.infoFetchedAt ?? null;
  let data: Reputation | null = null;
  if (answer.status === 'found') {
    const { ipInfo, ...rest } = answer.data;
    data = rest;
    if (ipInfo) {
      info = ipInfo;
      infoFetchedAt = now;
    }
  }
  if (answer.detailed && (answer.status !== 'found' || !answer.data.ipInfo)) {
    // We asked for details and the server had none: remember that, so we do not pay again.
    info = null;
    infoFetchedAt = now;
  }
  return {
    v: CACHE_RECORD_VERSION,
    ip: answer.ip,
    status: answer.status,
    data,
    ...(answer.status === 'unreadable' ? { error: { kind: answer.error.kind, message: answer.error.message } } : {}),
    fetchedAt: now,
    info,
    infoFetchedAt,
    storedAt: now,
    ...(answer.status !== 'unreadable' && answer.gateway ? { gateway: answer.gateway } : {}),
  };
}
