/**
 * The team's history for the dashboard: per UTC day, what the gateway paid and what the shared
 * cache saved, the hits and misses behind the hit rate, each analyst's units and IPs, and the
 * organisation's quota as last seen. Written off the answer's path (a lost counter never fails
 * a lookup), read back as one Summary.
 */
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { DEFAULT_THRESHOLDS, severityOf } from '../../../lib/severity';
import type { LookupOutcome } from '../buy-once';
import { SSO_NAME_PREFIX } from '../oidc';
import { dayOf, type LedgerState, type Store, type StoredAnswer, type TokenState } from '../store/types';
import type { TeamLedger } from '../team-ledger';
import { summarySchema, type AnalystRow, type DayRow, type Summary } from './summary-schema';

const DAY_MS = 24 * 60 * 60 * 1000;
/**
 * How often each replica says it is alive and writes the counters it gathered (a lookup adds to
 * memory only: no store command on the answer's path, one write per day per interval however
 * busy the team), and how long the store believes a replica that stopped.
 */
export const BEAT_EVERY_MS = 10_000;
export const BEAT_TTL_MS = 3 * BEAT_EVERY_MS;

/** Field names of a day's record (analysts' fields carry their name after the colon). */
const F = { paid: 'paid', saved: 'saved', hits: 'hits', misses: 'misses', quotaUsed: 'quotaUsed', quotaLimit: 'quotaLimit', unlimited: 'quotaUnlimited' } as const;
const unitsOf = (name: string) => `u:${name}`;
const ipsOf = (name: string) => `n:${name}`;

export interface LookupCounts {
  paid: number;
  saved: number;
  hits: number;
  misses: number;
}

/**
 * What one lookup adds. A found answer from the cache, or from a purchase another request had
 * in flight, is a unit the team did not pay again; a not-found answer costs nothing either way.
 */
export function countsOf(outcome: LookupOutcome): LookupCounts {
  let saved = 0;
  let hits = 0;
  let misses = 0;
  for (const answer of outcome.answers.values()) {
    if (answer.status === 'error') continue;
    if (answer.source === 'miss') misses++;
    else {
      hits++;
      if (answer.status === 'found') saved++;
    }
  }
  return { paid: outcome.units, saved, hits, misses };
}

export interface SightingsSource {
  /** The most-seen IPs, most analysts first. */
  mostSeen(limit: number): Promise<{ ip: string; analysts: number; lastSeenAt: number | null }[]>;
}

/** The store's team sightings within `retentionMs` (the sightings' own retention). */
export function storeSightings(store: Store, now: () => number, retentionMs: number): SightingsSource {
  return {
    async mostSeen(limit) {
      const seen = await store.mostSeen(limit, now() - retentionMs);
      return seen.map((s) => ({ ip: s.ip, analysts: s.analysts, lastSeenAt: s.last }));
    },
  };
}

export interface TeamStatsOptions {
  store: Store;
  ledger: TeamLedger;
  reservePercent: number;
  historyDays: number;
  /** Signed-in analysts' budget (their records are not in the token list). */
  ssoBudget: number | null;
  now: () => number;
  sightings?: SightingsSource | null;
  /** Beat and write interval (tests stretch it so no timer lands inside a measurement). */
  everyMs?: number;
}

export class TeamStats {
  readonly replicaId = randomUUID();
  private readonly startedAt: number;
  private timer: NodeJS.Timeout | null = null;
  /** Counters gathered since the last write, per UTC day. */
  private pending = new Map<string, Record<string, number>>();

  constructor(private readonly o: TeamStatsOptions) {
    this.startedAt = o.now();
  }

  private get keepMs() {
    return this.o.historyDays * DAY_MS;
  }

  /** Adds one answered request to its day (analyst `name` asked `ips` IPs), in memory until flush. */
  record(name: string, ips: number, counts: LookupCounts): void {
    const day = dayOf(this.o.now());
    let add = this.pending.get(day);
    if (!add) this.pending.set(day, (add = {}));
    const fields: [string, number][] = [[F.paid, counts.paid], [F.saved, counts.saved], [F.hits, counts.hits], [F.misses, counts.misses], [unitsOf(name), counts.paid], [ipsOf(name), ips]];
    for (const [field, n] of fields) add[field] = (add[field] ?? 0) + n;
  }

  /** Writes the gathered counters; a failed write keeps them for the next try. Never throws. */
  async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = new Map();
    await Promise.all(
      [...batch].map(([day, add]) =>
        this.o.store.addDayStats(day, add, {}, this.keepMs).catch(() => {
          const kept = this.pending.get(day) ?? {};
          for (const [field, n] of Object.entries(add)) kept[field] = (kept[field] ?? 0) + n;
          this.pending.set(day, kept);
        }),
      ),
    );
  }

  /** Today's quota snapshot from the ledger every replica shares. */
  async snapshotQuota(state?: LedgerState | null): Promise<void> {
    const ledger = state === undefined ? await this.o.store.getLedger().catch(() => null) : state;
    if (!ledger) return;
    const set: Record<string, number> = { [F.quotaUsed]: ledger.usage + ledger.reserved, [F.unlimited]: ledger.limit === null ? 1 : 0 };
    if (ledger.limit !== null) set[F.quotaLimit] = ledger.limit;
    await this.o.store.addDayStats(dayOf(this.o.now()), {}, set, this.keepMs).catch(() => {});
  }

  /** Beats now and every BEAT_EVERY_MS (with a quota snapshot) until stop(). */
  start(): void {
    const beat = async () => {
      await this.flush();
      await this.o.store.beat({ id: this.replicaId, host: hostname(), startedAt: this.startedAt, seenAt: this.o.now() }, BEAT_TTL_MS).catch(() => {});
      await this.snapshotQuota();
    };
    void beat();
    this.timer = setInterval(() => void beat(), this.o.everyMs ?? BEAT_EVERY_MS);
    this.timer.unref();
  }

  /** Stops the timer and writes what is left. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flush();
  }

  /** The last `days` UTC days, oldest first (today included), at most the retention. */
  async summary(days: number): Promise<Summary> {
    const { store, ledger, now } = this.o;
    const at = now();
    const span = Math.max(1, Math.min(days, this.o.historyDays));
    const dayList = Array.from({ length: span }, (_, i) => dayOf(at - (span - 1 - i) * DAY_MS));
    const today = dayList[dayList.length - 1]!;

    const pingStart = performance.now();
    const storeOk = await store.ping().then(
      () => true,
      () => false,
    );
    const latencyMs = storeOk ? Math.round((performance.now() - pingStart) * 10) / 10 : null;
    await this.flush();
    const ledgerState = await ledger.current().catch(() => store.getLedger().catch(() => null));
    await this.snapshotQuota(ledgerState);
    const [stats, tokens, replicas, mostSeen] = await Promise.all([
      store.dayStats(dayList),
      store.listTokens(today).catch((): TokenState[] => []),
      store.replicas(at).catch(() => []),
      this.o.sightings ? this.o.sightings.mostSeen(10).catch(() => null) : Promise.resolve(null),
    ]);

    const rows: DayRow[] = dayList.map((day) => {
      const s = stats.get(day) ?? {};
      const seen = s[F.quotaUsed] !== undefined;
      return {
        day,
        paid: s[F.paid] ?? 0,
        saved: s[F.saved] ?? 0,
        hits: s[F.hits] ?? 0,
        misses: s[F.misses] ?? 0,
        quotaUsed: seen ? s[F.quotaUsed]! : null,
        quotaLimit: seen && !s[F.unlimited] && s[F.quotaLimit] !== undefined ? s[F.quotaLimit]! : null,
      };
    });
    const sum = (key: 'paid' | 'saved' | 'hits' | 'misses') => rows.reduce((total, row) => total + row[key], 0);
    const totals = { paid: sum('paid'), saved: sum('saved'), hits: sum('hits'), misses: sum('misses') };

    const todayStats = stats.get(today) ?? {};
    const analysts = new Map<string, AnalystRow>();
    for (const t of tokens) {
      analysts.set(t.name, { name: t.name, kind: 'token', unitsToday: t.usageToday, ipsToday: todayStats[ipsOf(t.name)] ?? 0, budget: t.budget, lastUsedAt: iso(t.lastUsedAt) });
    }
    // Signed-in analysts have no token record: today's counters are where they show.
    for (const field of Object.keys(todayStats)) {
      if (!field.startsWith('n:')) continue;
      const name = field.slice(2);
      if (analysts.has(name) || !name.startsWith(SSO_NAME_PREFIX)) continue;
      analysts.set(name, { name, kind: 'sso', unitsToday: todayStats[unitsOf(name)] ?? 0, ipsToday: todayStats[field] ?? 0, budget: this.o.ssoBudget, lastUsedAt: null });
    }

    const limit = ledgerState?.limit ?? null;
    const used = ledgerState ? ledgerState.usage + ledgerState.reserved : 0;
    const allowed = ledger.allowed(ledgerState);
    const summary: Summary = {
      generatedAt: new Date(at).toISOString(),
      historyDays: this.o.historyDays,
      days: rows,
      totals: { ...totals, hitRate: totals.hits + totals.misses ? totals.hits / (totals.hits + totals.misses) : null },
      quota: {
        used,
        limit,
        reserved: ledgerState?.reserved ?? 0,
        reservePercent: this.o.reservePercent,
        allowed: allowed === null ? null : Math.floor(allowed),
        leftBeforeReserve: allowed === null ? null : Math.max(0, Math.floor(allowed) - used),
        refreshedAt: iso(ledgerState?.refreshedAt ?? null),
        organizationId: ledgerState?.organizationId ?? null,
      },
      analysts: [...analysts.values()].sort((a, b) => b.unitsToday - a.unitsToday || a.name.localeCompare(b.name)),
      mostSeen: mostSeen ? await this.withSeverity(mostSeen) : null,
      replicas: replicas
        .sort((a, b) => a.startedAt - b.startedAt)
        .map((r) => ({ id: r.id, host: r.host, startedAt: new Date(r.startedAt).toISOString(), seenAt: new Date(r.seenAt).toISOString(), self: r.id === this.replicaId })),
      store: { kind: store.kind, ok: storeOk, latencyMs },
    };
    // What leaves is what the page will accept: a mistake here is a 500 in tests, not a blank panel.
    return summarySchema.parse(summary);
  }

  private async withSeverity(seen: Awaited<ReturnType<SightingsSource['mostSeen']>>): Promise<NonNullable<Summary['mostSeen']>> {
    const answers = await this.o.store.getAnswers(seen.map((s) => s.ip)).catch(() => new Map<string, StoredAnswer>());
    return seen.map((s) => {
      const answer = answers.get(s.ip);
      // The same severity an analyst's extension shows with the default thresholds.
      const severity = !answer ? null : answer.status === 'found' && answer.data ? severityOf({ ip: s.ip, status: 'found', data: answer.data, fetchedAt: answer.fetchedAt }, DEFAULT_THRESHOLDS) : severityOf({ ip: s.ip, status: 'not-found', fetchedAt: answer.fetchedAt }, DEFAULT_THRESHOLDS);
      return { ip: s.ip, analysts: s.analysts, lastSeenAt: iso(s.lastSeenAt), severity, score: answer?.data?.score ?? null };
    });
  }
}

function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}
