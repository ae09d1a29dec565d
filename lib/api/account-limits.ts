/**
 * Which limit applies to a key, read from the free /account the documented way:
 *
 * - the key's own `api_key.max_api_requests`, against `api_key.current_usage`, when it has one;
 * - else (null: "no own limit") the organisation's pool: `organization_quota.total_usage`
 *   against `total_quota`, or `unlimited`. `available_api_key_quota` is NOT what remains: it
 *   is the part of the pool not allocated to keys with their own limit (the documented example
 *   has 5,000,000 available with 1 used), and other keys' usage draws on the pool too.
 */
import type { AccountInfo } from './types';

/** Whose limit it is: the key's own, or its organisation's pool. */
export type QuotaScope = 'key' | 'organization';

export interface AccountLimits {
  used: number | null;
  limit: number | null;
  unlimited: boolean;
  scope: QuotaScope | null;
}

export function limitsFromAccount(account: AccountInfo): AccountLimits {
  const { key, organization: org } = account;
  if (key.maxApiRequests !== null) {
    return { used: key.currentUsage ?? 0, limit: key.maxApiRequests, unlimited: false, scope: 'key' };
  }
  if (!org) return { used: key.currentUsage, limit: null, unlimited: false, scope: null };
  const used = org.totalUsage ?? org.currentUsage ?? null;
  if (org.unlimited) return { used, limit: null, unlimited: true, scope: 'organization' };
  return { used, limit: org.totalQuota ?? org.maxApiRequests ?? null, unlimited: false, scope: 'organization' };
}

/** The limit is reached (the server would refuse paid calls). */
export function isExhausted(limits: AccountLimits): boolean {
  return !limits.unlimited && limits.limit !== null && limits.used !== null && limits.used >= limits.limit;
}
