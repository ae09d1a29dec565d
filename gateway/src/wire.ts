/**
 * The API's own shapes, written back from lib/api's normalised types, so the unchanged
 * extension (and any other client of the API) reads the gateway's answers as the API's:
 * lib/api's normalize(toWire(x)) gives x back (test/unit/gateway/wire.test.ts proves it).
 * Each answer also carries an additive `gateway` field saying where it came from.
 */
import type { IpInfo, Reputation } from '../../lib/api/types';
import type { SightingSummary } from './store/sightings';

export type CacheSource = 'hit' | 'miss' | 'coalesced';

export interface Provenance {
  cache: CacheSource;
  /** Seconds since the upstream answered. */
  age: number;
  fetched_at: string;
  /** Who on the team looked the IP up before this request (absent when sightings are off). */
  sightings?: SightingSummary;
}

export function provenanceOf(cache: CacheSource, fetchedAt: number, now: number): Provenance {
  return { cache, age: Math.max(0, Math.floor((now - fetchedAt) / 1000)), fetched_at: new Date(fetchedAt).toISOString() };
}

function whitelistFields(rep: Reputation) {
  const w = rep.whitelist;
  return {
    // `true` keeps "whitelisted" when the upstream gave no object (normalize reads it so).
    whitelist: rep.whitelisted ? (w?.entry ?? true) : null,
    whitelist_description: w?.description ?? null,
    whitelist_note: w?.note ?? null,
    whitelist_value: w?.value ?? null,
  };
}

export function bulkDataOf(rep: Reputation) {
  return {
    ip: rep.ip,
    score: rep.score,
    threat_score: rep.score,
    threat_level: rep.threatLevel,
    ip_rep: rep.reputation,
    total_hits: rep.totalHits,
    last_attack: rep.lastAttack,
    ...whitelistFields(rep),
  };
}

/** Not-found rows say so in `error` with `data: null`, as the API's bulk answer does. */
export const NOT_FOUND_ROW_TEXT = 'IP not found in database';

export function bulkRowOf(ip: string, answer: { status: 'found'; data: Reputation } | { status: 'not-found' }, provenance: Provenance) {
  return answer.status === 'found'
    ? { ip, data: bulkDataOf({ ...answer.data, ip }), error: null, gateway: provenance }
    : { ip, data: null, error: NOT_FOUND_ROW_TEXT, gateway: provenance };
}

/**
 * bulkRowOf's row as JSON text, built from pieces: a cached bulk answer is mostly rows of
 * answers many analysts asked for, so the data part of a row (all but the IP) is serialized
 * once per answer object and remembered with it (stores hand out one object per answer).
 * `provenance` is provenanceJson's text. JSON.parse of the result equals bulkRowOf's row.
 */
export function bulkRowJson(ip: string, answer: { status: 'found'; data: Reputation } | { status: 'not-found' }, provenance: string): string {
  const quoted = JSON.stringify(ip);
  if (answer.status === 'not-found') return `{"ip":${quoted},"data":null,"error":${NOT_FOUND_ROW_JSON},"gateway":${provenance}}`;
  return `{"ip":${quoted},"data":{"ip":${quoted},${dataTailOf(answer.data)},"error":null,"gateway":${provenance}}`;
}

const NOT_FOUND_ROW_JSON = JSON.stringify(NOT_FOUND_ROW_TEXT);
const dataTails = new WeakMap<Reputation, string>();

/** bulkDataOf(rep) as JSON without its leading `{"ip":…,` (the row puts the asked spelling there). */
function dataTailOf(rep: Reputation): string {
  let tail = dataTails.get(rep);
  if (tail === undefined) {
    tail = JSON.stringify(bulkDataOf(rep)).slice(`{"ip":${JSON.stringify(rep.ip)},`.length);
    dataTails.set(rep, tail);
  }
  return tail;
}

/** provenanceOf as JSON text. */
export function provenanceJson(cache: CacheSource, fetchedAt: number, now: number): string {
  return JSON.stringify(provenanceOf(cache, fetchedAt, now));
}

/**
 * provenanceJson's text with the IP's sightings added (JSON.parse gives
 * { ...provenance, sightings }); `sightings` null: the text unchanged (sightings off).
 */
export function withSightingsJson(provenance: string, sightings: SightingSummary | null): string {
  return sightings ? `${provenance.slice(0, -1)},"sightings":${JSON.stringify(sightings)}}` : provenance;
}

export function singleBodyOf(rep: Reputation, info: IpInfo | null | undefined, provenance: Provenance) {
  const body: Record<string, unknown> = {
    message: rep.whitelisted ? 'IP is whitelisted' : 'IP details retrieved successfully',
    description: rep.description,
    details: {
      ip: rep.ip,
      score: rep.score,
      ip_rep: rep.reputation,
      total_hits: rep.totalHits,
      last_attack: rep.lastAttack,
      ...whitelistFields(rep),
    },
  };
  if (info) body.ipInfo = info;
  body.gateway = provenance;
  return body;
}

/**
 * Stable machine-readable reasons in the error body's additive `code` field. `sign_in_again`:
 * the gateway session expired, was signed out or is unknown; refreshing cannot help; the
 * analyst must sign in with the organisation again.
 */
export const ERROR_CODES = { signInAgain: 'sign_in_again' } as const;

/**
 * The API's general error body (spec section 7). `code` is the gateway's additive, stable
 * machine-readable reason, set only where a client must act on it (ERROR_CODES).
 */
export function errorBody(statusCode: number, message: string, code?: string) {
  return code ? { error: true, statusCode, message, code } : { error: true, statusCode, message };
}

export const MESSAGES = {
  missingToken: 'API key required. Provide your gateway token via Authorization: Bearer <token> or X-API-Key header.',
  testKeyMissing: 'Valid API key required',
  invalidToken: 'Invalid API key',
  expiredToken: 'API key expired',
  ipRequired: 'IP address is required',
  invalidIp: 'Invalid IP address',
  privateIp: 'Private or reserved IP address: not sent to the service by this gateway',
  invalidBody: 'Invalid request body',
  invalidAsked: 'Invalid request body: "asked" must be a list of at most 100 IP strings',
  tooManyIps: 'Maximum 100 IPs per request',
  bodyTooLarge: 'Request body too large',
  rateLimited: 'Rate limit exceeded',
  budget: 'API usage limit exceeded: your daily gateway budget is spent',
  teamReserve: 'API usage limit exceeded: the team quota is down to its reserve',
  storeDown: 'The gateway store is unavailable: lookups that would buy are refused until it is back',
  upstream: 'Failed to fetch IP details',
  internal: 'Internal server error',
  cidrRequired: 'CIDR is required',
  invalidCidr: 'Invalid CIDR notation',
  notFound: 'Not found',
  notFoundIp: 'IP not found in database',
  notInGroup: 'Invalid API key: your sign-in is not in the group this gateway requires',
  // "Expired … key" keeps lib/api's reading of it as a refused key (invalid-key), not a quota.
  signInAgain: 'Expired or revoked session key: sign in again with your organisation',
  signInStale: 'This sign-in link expired or was already used: start the sign-in again',
  badRedirect: 'redirect_uri is not an extension redirect URL this gateway allows',
  refreshRequired: 'refresh_token is required',
  identityProviderDown: "The organisation's identity provider cannot be reached: sign-in tokens cannot be checked now",
} as const;
