/** LookupResults and statuses shaped like the background's, for the UI tests. */
import type { AccountInfo, Reputation } from '@/lib/api/types';
import type { LookupResult, LookupStatus, QuotaSnapshot } from '@/lib/lookup/types';

export const FETCHED_AT = Date.UTC(2025, 0, 15, 11, 0, 0);

export function reputation(ip: string, overrides: Partial<Reputation> = {}): Reputation {
  return {
    ip,
    score: 50,
    threatLevel: null,
    reputation: 'suspicious',
    totalHits: 10,
    lastAttack: '2025-01-14T09:37:40.000Z',
    whitelisted: false,
    whitelist: null,
    description: null,
    ...overrides,
  };
}

export function found(ip: string, overrides: Partial<Reputation> = {}): LookupResult {
  return { ip, status: 'found', data: reputation(ip, overrides), fetchedAt: FETCHED_AT };
}

export const IP_INFO = {
  ip: '185.220.101.4',
  asn: 'AS205100',
  as_name: 'F3 Netze e.V.',
  as_domain: 'f3netze.de',
  country_code: 'DE',
  country: 'Germany',
  continent_code: 'EU',
  continent: 'Europe',
  isp: 'F3 Netze',
};

export function quota(overrides: Partial<QuotaSnapshot> = {}): QuotaSnapshot {
  return {
    state: 'ok',
    used: 120,
    limit: 1000,
    unlimited: false,
    scope: 'key',
    reserve: 100,
    pendingLocalCost: 0,
    refreshedAt: Date.UTC(2025, 0, 15, 11, 58, 0),
    detail: null,
    ...overrides,
  };
}

export function status(overrides: Partial<LookupStatus> = {}): LookupStatus {
  return { quota: quota(), queueLength: 0, inFlight: 0, cacheSize: 42, lastError: null, pausedUntil: null, ...overrides };
}

export const ACCOUNT: AccountInfo = {
  organizationId: 'org-soc-001',
  key: {
    uid: 'key-1',
    name: 'SOC demo key',
    currentUsage: 12,
    maxApiRequests: 1000,
    createdAt: '2024-06-01T00:00:00.000Z',
  },
  organization: null,
};
