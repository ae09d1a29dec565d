/**
 * Response bodies exactly as the spec (ip-threat-api.md) and the public documentation notes
 * show them. Field order follows the documentation so captured answers read the same.
 */
import type { SimIpInfo, ThreatRecord } from './dataset';
import type { KeyStore, SimKeyState } from './keys';
import { PROFILES, type SimProfile } from './profiles';

export const MESSAGES = {
  missingKey: 'API key required. Provide it via Authorization: Bearer <key> or X-API-Key header.',
  testKeyMissing: 'Valid API key required',
  invalidKey: 'Invalid API key',
  expiredKey: 'API key expired',
  quota: 'API usage limit exceeded',
  ipRequired: 'IP address is required',
  invalidIp: 'Invalid IP address',
  invalidBody: 'Invalid request body',
  tooManyIps: 'Maximum 100 IPs per request',
  rateLimited: 'Rate limit exceeded',
  checkIpInternal: 'Failed to fetch IP details',
  internal: 'Internal server error',
  notFoundIp: 'IP not found in database',
  cidrRequired: 'CIDR is required',
  invalidCidr: 'Invalid CIDR notation',
  cidrTooLarge: 'Maximum subnet size is /24',
  notFound: 'Not found',
  methodNotAllowed: 'Method not allowed',
  exportRequired: 'Provide cidr or ips to export',
} as const;

export function errorBody(statusCode: number, message: string) {
  return { error: true, statusCode, message };
}

/** test-key's odd 401: no `error`, no `message`. */
export function testKeyMissingBody() {
  return { statusCode: 401, statusMessage: MESSAGES.testKeyMissing };
}

function flatWhitelist(record: ThreatRecord) {
  return {
    whitelist_description: record.whitelistDescription,
    whitelist_note: record.whitelistNote,
    whitelist_value: record.whitelistValue,
  };
}

/** The types page's nested object (`value`, `description`, `note`, `reason`, `range`, `ip`). */
function nestedWhitelist(record: ThreatRecord, ip: string) {
  if (!record.whitelist) return null;
  return {
    value: record.whitelistValue,
    description: record.whitelistDescription,
    note: record.whitelistNote,
    reason: record.whitelist.reason ?? null,
    range: `${record.ip}/32`,
    ip,
  };
}

function whitelistFields(record: ThreatRecord, ip: string, profile: SimProfile) {
  switch (profile.whitelist) {
    case 'nested-object':
      return { whitelist: nestedWhitelist(record, ip) };
    case 'flat-only':
      return { whitelist: null, ...flatWhitelist(record) };
    default:
      return { whitelist: record.whitelist, ...flatWhitelist(record) };
  }
}

/** Older documentation: ipInfo always, and without `isp`. */
function ipInfoFor(info: SimIpInfo, ip: string, profile: SimProfile) {
  if (!profile.ipInfoAlways) return ipInfoBody(info, ip);
  const { isp: _isp, ...rest } = info;
  return { ip, ...rest };
}

/** GET /checkIP 200. `ip` is echoed as the caller sent it. */
export function singleLookupBody(record: ThreatRecord, ip: string, detailed: boolean, profile: SimProfile = PROFILES.spec) {
  return {
    message: record.message,
    description: record.description,
    details: {
      score: record.score,
      ip,
      // The single lookup sends a string: `""` when no attack was recorded.
      last_attack: record.lastAttack ?? '',
      ...(record.ipRep !== undefined ? { ip_rep: record.ipRep } : {}),
      total_hits: record.totalHits,
      ...whitelistFields(record, ip, profile),
    },
    ...(detailed || profile.ipInfoAlways ? { ipInfo: ipInfoFor(record.ipInfo, ip, profile) } : {}),
  };
}

/** notFoundMode 'clean-row': an unknown IP answered as a clean 200 with no hits. */
export function cleanRowBody(ip: string, detailed: boolean, network: SimIpInfo, profile: SimProfile = PROFILES.spec) {
  return {
    message: 'IP not found in database',
    description: 'No threat data recorded for this IP',
    details: {
      score: 0,
      ip,
      last_attack: '',
      ip_rep: 'clean',
      total_hits: 0,
      whitelist: null,
      whitelist_description: null,
      whitelist_note: null,
      whitelist_value: null,
    },
    ...(detailed || profile.ipInfoAlways ? { ipInfo: ipInfoFor(network, ip, profile) } : {}),
  };
}

/** The bulk documentation's own row for an IP with no hits (`failed: 0`). */
export function zeroHitDataBody(ip: string) {
  return { threat_score: 10, threat_level: 'LOW', last_attack: null, ip_rep: 'clean', total_hits: 0, score: 10, ip };
}

export function ipInfoBody(info: SimIpInfo, ip: string) {
  return { ip, ...info };
}

/** A bulk `data` object. Whitelisted rows also carry the whitelist fields (same shape as details). */
export function bulkDataBody(record: ThreatRecord, ip: string, profile: SimProfile = PROFILES.spec) {
  const rep = record.whitelist && profile.whitelistedRep ? 'whitelisted' : record.ipRep;
  const score = profile.naScoreRows.includes(record.ip) ? 'n/a' : record.score;
  return {
    threat_score: score,
    threat_level: record.threatLevel,
    ip,
    // Bulk rows send null, never `""`.
    last_attack: record.lastAttack || null,
    ...(rep !== undefined ? { ip_rep: rep } : {}),
    total_hits: record.totalHits,
    score,
    ...(record.whitelist ? whitelistFields(record, ip, profile) : {}),
  };
}

export function subnetRowBody(record: ThreatRecord) {
  return {
    ip: record.ip,
    threat_score: record.score,
    threat_level: record.threatLevel,
    last_attack: record.lastAttack || null,
    ip_rep: record.ipRep ?? 'whitelisted',
    total_hits: record.totalHits,
  };
}

export function keyInfoBody(key: SimKeyState) {
  return {
    uid: key.uid,
    name: key.name,
    current_usage: key.currentUsage,
    max_api_requests: key.maxApiRequests,
    created_at: key.createdAt,
  };
}

export function testKeyBody(key: SimKeyState, now: Date) {
  return {
    success: true,
    message: 'API key validation successful! -1 Request',
    timestamp: now.toISOString(),
    organization_id: key.organizationId,
    api_key_info: keyInfoBody(key),
  };
}

export function accountBody(key: SimKeyState, store: KeyStore) {
  const org = store.organization(key.organizationId);
  const usage = store.organizationUsage(org.id);
  const allocated = store.allocated(org.id);
  return {
    counts_toward_quota: false,
    request_cost: 0,
    organization_id: key.organizationId,
    api_key: keyInfoBody(key),
    organization_quota: {
      total_usage: usage,
      total_quota: org.maxApiRequests,
      current_usage: usage,
      max_api_requests: org.maxApiRequests,
      allocated_api_key_quota: allocated,
      available_api_key_quota: org.maxApiRequests === null ? null : Math.max(0, org.maxApiRequests - allocated),
      source: org.source,
      unlimited: org.maxApiRequests === null,
    },
  };
}
