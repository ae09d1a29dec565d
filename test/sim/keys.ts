/**
 * API keys, their organisations and usage counters. A key's own `maxApiRequests` applies
 * first; a key without one (null) draws on its organisation's quota, which may be unlimited.
 */
export interface SimKeyConfig {
  key: string;
  name: string;
  uid: string;
  /** null: no limit of its own (the organisation's applies). */
  maxApiRequests: number | null;
  organizationId: string;
  createdAt?: string;
  /** Usage at start (and after reset). */
  currentUsage?: number;
  /** Answers 403 `API key expired`. */
  expired?: boolean;
}

export interface SimOrganization {
  id: string;
  /** null: unlimited. */
  maxApiRequests: number | null;
  /** `/account`'s organization_quota.source. */
  source: string;
}

export const DEMO_KEY = 'demo-key-0001';
export const UNLIMITED_KEY = 'unlimited-key';
export const EXPIRED_KEY = 'expired-key';
export const LOW_QUOTA_KEY = 'low-quota-key';
export const SHARED_QUOTA_KEY = 'shared-quota-key';

export const DEFAULT_ORGANIZATIONS: SimOrganization[] = [
  { id: 'org-soc-demo', maxApiRequests: 100_000, source: 'partner_status' },
  { id: 'org-unlimited', maxApiRequests: null, source: 'unlimited' },
  { id: 'org-small', maxApiRequests: 20, source: 'active_subscription' },
];

export const DEFAULT_KEYS: SimKeyConfig[] = [
  { key: DEMO_KEY, name: 'SOC demo key', uid: 'key-demo-0001', maxApiRequests: 1000, organizationId: 'org-soc-demo', createdAt: '2025-03-01T09:00:00.000Z' },
  { key: UNLIMITED_KEY, name: 'Unlimited key', uid: 'key-unlimited', maxApiRequests: null, organizationId: 'org-unlimited', createdAt: '2025-01-15T12:00:00.000Z' },
  { key: EXPIRED_KEY, name: 'Expired key', uid: 'key-expired', maxApiRequests: 1000, organizationId: 'org-soc-demo', createdAt: '2024-01-01T00:00:00.000Z', expired: true },
  { key: LOW_QUOTA_KEY, name: 'Low quota key', uid: 'key-low-quota', maxApiRequests: 5, organizationId: 'org-soc-demo', createdAt: '2025-06-01T08:30:00.000Z' },
  // No limit of its own: exhausts its organisation's 20 requests instead.
  { key: SHARED_QUOTA_KEY, name: 'Shared quota key', uid: 'key-shared', maxApiRequests: null, organizationId: 'org-small', createdAt: '2025-07-01T10:00:00.000Z' },
];

export interface SimKeyState extends Required<SimKeyConfig> {
  currentUsage: number;
}

export type KeyCheck = 'ok' | 'invalid' | 'expired' | 'quota';

export type KeyPatch = Partial<Omit<SimKeyConfig, 'key'>>;

export class KeyStore {
  private keys = new Map<string, SimKeyState>();
  private readonly organizations: Map<string, SimOrganization>;

  constructor(
    private readonly initialKeys: readonly SimKeyConfig[],
    organizations: readonly SimOrganization[],
  ) {
    this.organizations = new Map(organizations.map((o) => [o.id, { ...o }]));
    this.reset();
  }

  reset(): void {
    this.keys = new Map(this.initialKeys.map((k) => [k.key, toState(k)]));
  }

  get(key: string): SimKeyState | undefined {
    return this.keys.get(key);
  }

  all(): SimKeyState[] {
    return [...this.keys.values()].map((k) => ({ ...k }));
  }

  organization(id: string): SimOrganization {
    return this.organizations.get(id) ?? { id, maxApiRequests: null, source: 'unlimited' };
  }

  organizationList(): SimOrganization[] {
    return [...this.organizations.values()];
  }

  organizationUsage(id: string): number {
    let total = 0;
    for (const k of this.keys.values()) if (k.organizationId === id) total += k.currentUsage;
    return total;
  }

  /** Sum of the per-key limits in an organisation (`allocated_api_key_quota`). */
  allocated(id: string): number {
    let total = 0;
    for (const k of this.keys.values()) if (k.organizationId === id && k.maxApiRequests !== null) total += k.maxApiRequests;
    return total;
  }

  check(key: string): KeyCheck {
    const state = this.keys.get(key);
    if (!state) return 'invalid';
    if (state.expired) return 'expired';
    if (state.maxApiRequests !== null && state.currentUsage >= state.maxApiRequests) return 'quota';
    const org = this.organization(state.organizationId);
    if (org.maxApiRequests !== null && this.organizationUsage(org.id) >= org.maxApiRequests) return 'quota';
    return 'ok';
  }

  charge(key: string, cost: number): void {
    const state = this.keys.get(key);
    if (state && cost > 0) state.currentUsage += cost;
  }

  /** Creates the key when it does not exist (admin endpoint, tests). */
  set(key: string, patch: KeyPatch): SimKeyState {
    const existing = this.keys.get(key);
    const next = existing
      ? { ...existing, ...definedOnly(patch) }
      : toState({ key, name: key, uid: `key-${key}`, maxApiRequests: 1000, organizationId: 'org-soc-demo', ...definedOnly(patch) });
    this.keys.set(key, next);
    return { ...next };
  }
}

function toState(config: SimKeyConfig): SimKeyState {
  return {
    createdAt: '2025-01-01T00:00:00.000Z',
    expired: false,
    ...config,
    currentUsage: config.currentUsage ?? 0,
  };
}

function definedOnly<T extends object>(patch: T): Partial<T> {
  return Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) as Partial<T>;
}
