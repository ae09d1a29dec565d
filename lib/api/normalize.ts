/**
 * Converts parsed wire shapes into the client's types (types.ts), so nothing past lib/api deals
 * with the service's variations. Text stays text: it is rendered with textContent, never HTML.
 */
import { provenanceOf } from './gateway-provenance';
import { describeIssue } from './parse';
import { bulkResultSchema, gatewayAccountSchema, WHITELISTED_MESSAGE } from './schemas';
import type {
  WireAccount,
  WireApiKeyInfo,
  WireBulkData,
  WireBulkResult,
  WireDetails,
  WireSingleLookup,
  WireSubnetLookup,
  WireTestKey,
} from './schemas';
import { toIsoTimestamp } from './timestamps';
import type {
  AccountInfo,
  ApiKeyInfo,
  BulkItem,
  IpInfo,
  Reputation,
  SubnetLookup,
  TeamQuota,
  TestKeyResult,
  ThreatLevel,
  WhitelistInfo,
} from './types';

const THREAT_LEVELS: readonly ThreatLevel[] = ['LOW', 'MEDIUM', 'HIGH', 'CRITICAL', 'UNKNOWN'];

/**
 * Per-IP error texts are not documented, so "not found" is not inferred from one guessed
 * phrase: a row without data is taken as "not in the database" (free, cached for the not-found
 * TTL) unless its text says the lookup itself failed, which is worth asking again.
 */
const FAILED_TEXT = /internal|timed?\s*out|temporar|unavailable|rate.?limit|too many|try again|failed|invalid/i;

export function normalizeThreatLevel(value: string | null | undefined): ThreatLevel | null {
  const word = value?.trim().toUpperCase();
  if (!word) return null;
  return (THREAT_LEVELS as readonly string[]).includes(word) ? (word as ThreatLevel) : 'UNKNOWN';
}

function orNull<T>(value: T | null | undefined): T | null {
  return value ?? null;
}

function textOrNull(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return null;
}

/**
 * Whitelisted when `whitelist` is an object (or `true`), a flat `whitelist_*` field has a value
 * (they are null otherwise), `ip_rep` says so (bulk rows), or the message does.
 */
function whitelistOf(
  details: Partial<WireDetails>,
  message: string | null,
): Pick<Reputation, 'whitelisted' | 'whitelist'> {
  const raw = details.whitelist;
  const entry =
    raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : null;
  const info: WhitelistInfo = {
    entry,
    description: textOrNull(details.whitelist_description),
    note: textOrNull(details.whitelist_note),
    value: textOrNull(details.whitelist_value),
  };
  const anyDetail = [info.description, info.note, info.value].some((v) => v !== null && v.trim() !== '');
  const whitelisted =
    entry !== null ||
    raw === true ||
    anyDetail ||
    WHITELISTED_MESSAGE.test(details.ip_rep ?? '') ||
    WHITELISTED_MESSAGE.test(message ?? '');
  if (whitelisted && entry !== null) {
    // The types page's nested object carries what the endpoint pages send flat.
    info.description ??= textOrNull(entry.description);
    info.note ??= textOrNull(entry.note);
    info.value ??= textOrNull(entry.value);
  }
  return { whitelisted, whitelist: whitelisted ? info : null };
}

function ipInfoOf(raw: WireSingleLookup['ipInfo']): IpInfo | undefined {
  if (!raw) return undefined;
  const entries = Object.entries(raw).filter(([, v]) => typeof v === 'string');
  return Object.fromEntries(entries) as IpInfo;
}

function reputationOf(
  ip: string,
  fields: Partial<WireBulkData>,
  extra: { message: string | null; description: string | null; ipInfo?: IpInfo },
): Reputation {
  const reputation: Reputation = {
    ip,
    score: fields.score ?? fields.threat_score ?? null,
    threatLevel: normalizeThreatLevel(fields.threat_level),
    reputation: orNull(fields.ip_rep),
    totalHits: orNull(fields.total_hits),
    lastAttack: toIsoTimestamp(fields.last_attack),
    ...whitelistOf(fields, extra.message),
    description: extra.description,
  };
  if (extra.ipInfo) reputation.ipInfo = extra.ipInfo;
  return reputation;
}

/** `ip` is the caller's spelling, so answers match requests even if the server rewrites it. */
export function normalizeSingle(body: WireSingleLookup, ip: string): Reputation {
  const ipInfo = ipInfoOf(body.ipInfo);
  return reputationOf(ip, body.details ?? {}, {
    message: orNull(body.message),
    description: orNull(body.description),
    ...(ipInfo ? { ipInfo } : {}),
  });
}

export function normalizeBulkData(data: WireBulkData, ip: string): Reputation {
  return reputationOf(ip, data, { message: null, description: null });
}

export function normalizeBulkResult(row: WireBulkResult, ip: string): BulkItem {
  const gateway = provenanceOf(row.gateway);
  const from = gateway ? { gateway } : {};
  if (row.data) return { ip, status: 'found', data: normalizeBulkData(row.data, ip), ...from };
  const text = row.error?.trim();
  if (text && FAILED_TEXT.test(text)) return { ip, status: 'error', kind: 'server', message: text };
  if (text) return { ip, status: 'not-found', ...from };
  // Neither data nor error: not proof of absence, so not cached as not-found (but as unreadable).
  return { ip, status: 'error', kind: 'bad-response', message: 'The API sent neither data nor an error for this IP.', unreadable: true };
}

/** One raw row, validated on its own: a bad row is an error for its IP only. */
export function normalizeBulkRow(raw: unknown, ip: string): BulkItem {
  const parsed = bulkResultSchema.safeParse(raw);
  if (parsed.success) return normalizeBulkResult(parsed.data, ip);
  return {
    ip,
    status: 'error',
    kind: 'bad-response',
    message: `Unreadable answer for this IP (${describeIssue(parsed.error.issues[0], 'row')}).`,
    unreadable: true,
  };
}

export function normalizeKeyInfo(info: WireApiKeyInfo | null | undefined): ApiKeyInfo {
  return {
    uid: orNull(info?.uid),
    name: orNull(info?.name),
    currentUsage: orNull(info?.current_usage),
    maxApiRequests: orNull(info?.max_api_requests),
    createdAt: toIsoTimestamp(info?.created_at) ?? orNull(info?.created_at),
  };
}

export function normalizeTestKey(body: WireTestKey): TestKeyResult {
  return {
    success: body.success,
    message: body.message,
    timestamp: toIsoTimestamp(body.timestamp) ?? orNull(body.timestamp),
    organizationId: orNull(body.organization_id),
    key: normalizeKeyInfo(body.api_key_info),
  };
}

/** The gateway's team fields when well formed; a malformed one is dropped, the account kept. */
function teamQuotaOf(raw: unknown): TeamQuota | null {
  const parsed = gatewayAccountSchema.safeParse(raw);
  if (!parsed.success) return null;
  const { analyst, team } = parsed.data;
  return {
    analyst: { usedToday: analyst.used_today, dailyBudget: analyst.daily_budget, day: analyst.day },
    team: { used: team.used, limit: team.limit, reservePercent: team.reserve_percent, allowed: team.allowed, reserveReached: team.reserve_reached },
  };
}

export function normalizeAccount(body: WireAccount): AccountInfo {
  const quota = body.organization_quota;
  const team = body.gateway === undefined ? null : teamQuotaOf(body.gateway);
  return {
    ...(team ? { team } : {}),
    organizationId: orNull(body.organization_id),
    key: normalizeKeyInfo(body.api_key),
    organization: quota
      ? {
          totalUsage: orNull(quota.total_usage),
          totalQuota: orNull(quota.total_quota),
          currentUsage: orNull(quota.current_usage),
          maxApiRequests: orNull(quota.max_api_requests),
          allocatedApiKeyQuota: orNull(quota.allocated_api_key_quota),
          availableApiKeyQuota: orNull(quota.available_api_key_quota),
          source: orNull(quota.source),
          unlimited: quota.unlimited ?? false,
        }
      : null,
  };
}

export function normalizeSubnet(body: WireSubnetLookup, cidr: string): SubnetLookup {
  const summary = body.summary;
  return {
    cidr: body.cidr ?? cidr,
    items: body.results.map((row) => normalizeBulkData(row, row.ip)),
    summary: summary
      ? {
          total: orNull(summary.total),
          malicious: orNull(summary.malicious),
          clean: orNull(summary.clean),
          averageScore: orNull(summary.average_score),
          foundCount: orNull(summary.found_count),
        }
      : null,
  };
}
