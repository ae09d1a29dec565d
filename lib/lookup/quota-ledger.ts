/**
 * The quota ledger: the server's count from the last (free) /account call plus what we spent
 * since, by our own cost model. It is persisted so a restarted service worker does not forget
 * what it spent, and tied to a fingerprint of the key so a new key starts a new ledger.
 */
import { z } from '../zod';
import type { QuotaScope } from '../api/account-limits';
import type { TeamQuota } from '../api/types';

export { limitsFromAccount, type AccountLimits } from '../api/account-limits';

export const LEDGER_VERSION = 1;

export interface QuotaLedger {
  v: typeof LEDGER_VERSION;
  /** Fingerprint of base URL + key (never the key itself). */
  identity: string;
  /** The server's usage count at the last refresh; null if never refreshed. */
  serverUsed: number | null;
  limit: number | null;
  unlimited: boolean;
  /** Whose limit `limit` is: the key's own or the organisation's pool; null before a refresh. */
  scope: QuotaScope | null;
  /** Units spent since the last refresh, by our cost model. */
  localCost: number;
  refreshedAt: number | null;
  /** A 403 usage-limit was seen; lifted only by a refresh that shows room. */
  blocked: boolean;
  detail: string | null;
  /** Through a team gateway: the analyst's budget and the team's pool at the last refresh. */
  team: TeamQuota | null;
}

const ledgerSchema = z.object({
  v: z.literal(LEDGER_VERSION),
  identity: z.string(),
  serverUsed: z.number().nonnegative().nullable(),
  limit: z.number().nonnegative().nullable(),
  unlimited: z.boolean(),
  // Absent in ledgers saved before it existed: unknown until the next refresh.
  scope: z.enum(['key', 'organization']).nullable().default(null),
  localCost: z.number().nonnegative(),
  refreshedAt: z.number().nullable(),
  blocked: z.boolean(),
  detail: z.string().nullable(),
  // Absent in ledgers saved before it existed, or malformed: shown again after the next refresh.
  team: z
    .object({
      analyst: z.object({ usedToday: z.number(), dailyBudget: z.number().nullable(), day: z.string() }),
      team: z.object({ used: z.number(), limit: z.number().nullable(), reservePercent: z.number(), allowed: z.number().nullable(), reserveReached: z.boolean() }),
    })
    .nullable()
    .default(null)
    .catch(null),
});

export function parseLedger(raw: unknown): QuotaLedger | null {
  const parsed = ledgerSchema.safeParse(raw);
  return parsed.success ? (parsed.data as QuotaLedger) : null;
}

export function emptyLedger(identity: string): QuotaLedger {
  return {
    v: LEDGER_VERSION,
    identity,
    serverUsed: null,
    limit: null,
    unlimited: false,
    scope: null,
    localCost: 0,
    refreshedAt: null,
    blocked: false,
    detail: null,
    team: null,
  };
}

/** FNV-1a: enough to tell keys apart in a ledger without storing the key a second time. */
export function fingerprint(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(16).padStart(8, '0');
}

/** Where the ledger is kept between service worker runs. */
export interface LedgerStore {
  load(): Promise<unknown>;
  save(ledger: QuotaLedger): Promise<void>;
}

export function createMemoryLedgerStore(): LedgerStore & { value: unknown } {
  const store = {
    value: undefined as unknown,
    async load() {
      return structuredClone(store.value);
    },
    async save(ledger: QuotaLedger) {
      store.value = structuredClone(ledger);
    },
  };
  return store;
}
