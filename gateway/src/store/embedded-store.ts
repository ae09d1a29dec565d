/**
 * The embedded store: one replica with no Redis (a laptop, a trial). Everything lives in memory
 * and is written to `state.json` in the data folder (atomically: a temporary file renamed), so
 * a restart keeps the cache and the ledger. Tokens live in their own `tokens.json`, written by
 * the `token` commands and re-read by the server whenever the file changes, so a token added
 * or revoked while the server runs counts at once. One process only: claims and the
 * "answered" channel are in-process.
 */
import { EventEmitter } from 'node:events';
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { consume, rankMostSeen } from './redis-store';
import { mergeSighting, pruneSightings, type Sightings } from './sightings';
import type { ClaimKind, ClaimOutcome, LedgerState, ReplicaBeat, Store, StoredAnswer, StoredInfo, TokenRecord, TokenState } from './types';

interface Expiring<T> {
  value: T;
  expiresAt: number;
}

interface StateFile {
  v: 1;
  answers: Record<string, Expiring<StoredAnswer>>;
  info: Record<string, Expiring<StoredInfo>>;
  ledger: LedgerState | null;
  usage: Record<string, number>;
  lastUsed: Record<string, number>;
  /** Absent in files written before sightings were kept. */
  sightings?: Record<string, Expiring<Sightings>>;
  /** The dashboard's per-day counters (absent in files written before it existed). */
  days?: Record<string, Expiring<Record<string, number>>>;
}

export interface EmbeddedStoreOptions {
  dir: string;
  now?: () => number;
  /** Debounce of state writes; 0 writes at once (tests). */
  flushMs?: number;
}

export function openEmbeddedStore(options: EmbeddedStoreOptions): Store {
  const now = options.now ?? Date.now;
  const flushMs = options.flushMs ?? 1_000;
  mkdirSync(options.dir, { recursive: true, mode: 0o700 });
  const statePath = path.join(options.dir, 'state.json');
  const tokensPath = path.join(options.dir, 'tokens.json');
  const state = readJson<StateFile>(statePath) ?? { v: 1, answers: {}, info: {}, ledger: null, usage: {}, lastUsed: {} };
  const claims = new Map<string, Expiring<string>>();
  const secrets = new Map<string, Expiring<string>>();
  const buying = new Set<string>();
  const beats = new Map<string, Expiring<ReplicaBeat>>();
  const events = new EventEmitter();
  const limiters = new Map<string, RateLimiterMemory>();
  let tokens: { mtime: number; list: TokenRecord[] } = { mtime: -1, list: [] };
  let timer: NodeJS.Timeout | null = null;

  const live = <T>(entry: Expiring<T> | undefined): T | undefined => (entry && entry.expiresAt > now() ? entry.value : undefined);
  const flush = () => {
    timer = null;
    for (const table of [state.answers, state.info, state.sightings ?? {}]) {
      for (const [ip, entry] of Object.entries(table)) if (entry.expiresAt <= now()) delete table[ip];
    }
    writeAtomic(statePath, JSON.stringify(state));
  };
  const changed = () => {
    if (flushMs === 0) return flush();
    timer ??= setTimeout(flush, flushMs);
  };
  const readTokens = (): TokenRecord[] => {
    const mtime = mtimeOf(tokensPath);
    if (mtime !== tokens.mtime) tokens = { mtime, list: readJson<TokenRecord[]>(tokensPath) ?? [] };
    return tokens.list;
  };
  const writeTokens = (list: TokenRecord[]) => {
    writeAtomic(tokensPath, JSON.stringify(list, null, 2));
    tokens = { mtime: mtimeOf(tokensPath), list };
  };
  // One process: the upstream rules' state needs no file (it is rebuilt within minutes).
  const shared = new Map<string, string>();
  const claimKey = (kind: ClaimKind, ip: string) => `${kind}:${ip}`;
  const ownClaim = (kind: ClaimKind, ip: string, owner: string) => live(claims.get(claimKey(kind, ip))) === owner;

  return {
    kind: 'embedded',
    async ping() {},
    async close() {
      if (timer) clearTimeout(timer);
      flush();
    },

    async getAnswers(ips) {
      const out = new Map<string, StoredAnswer>();
      for (const ip of ips) {
        const answer = live(state.answers[ip]);
        if (answer) out.set(ip, answer);
      }
      return out;
    },
    async putAnswers(entries) {
      for (const { ip, answer, ttlMs } of entries) state.answers[ip] = { value: answer, expiresAt: now() + ttlMs };
      changed();
    },
    async getInfo(ip) {
      return live(state.info[ip]) ?? null;
    },
    async putInfo(ip, info, ttlMs) {
      state.info[ip] = { value: info, expiresAt: now() + ttlMs };
      changed();
    },

    async claim(kind, ip, owner, leaseMs): Promise<ClaimOutcome> {
      const key = claimKey(kind, ip);
      if (live(claims.get(key)) !== undefined) return 'held';
      claims.set(key, { value: owner, expiresAt: now() + leaseMs });
      return buying.has(key) ? 'won-stale' : 'won';
    },
    async markBuying(kind, ips) {
      for (const ip of ips) buying.add(claimKey(kind, ip));
    },
    async extendClaim(kind, ip, owner, leaseMs) {
      if (!ownClaim(kind, ip, owner)) return false;
      claims.set(claimKey(kind, ip), { value: owner, expiresAt: now() + leaseMs });
      return true;
    },
    async releaseClaim(kind, ip, owner) {
      if (!ownClaim(kind, ip, owner)) return false;
      claims.delete(claimKey(kind, ip));
      buying.delete(claimKey(kind, ip));
      return true;
    },
    async claimed(kind, ips) {
      return new Set(ips.filter((ip) => live(claims.get(claimKey(kind, ip))) !== undefined));
    },

    async getShared(name) {
      const raw = shared.get(name);
      return raw === undefined ? undefined : (JSON.parse(raw) as unknown);
    },
    async putShared(name, value) {
      shared.set(name, JSON.stringify(value));
    },
    async publishAnswered(ips) {
      if (ips.length) events.emit('answered', [...ips]);
    },
    async subscribeAnswered(listener) {
      events.on('answered', listener);
      return async () => void events.off('answered', listener);
    },

    async getLedger() {
      return state.ledger ? { ...state.ledger } : null;
    },
    async setLedgerFromAccount({ usage, limit, organizationId, at }) {
      state.ledger = { usage, limit, organizationId, refreshedAt: at, reserved: state.ledger?.reserved ?? 0 };
      changed();
    },
    async reserve(units, allowed) {
      const ledger = (state.ledger ??= { usage: 0, limit: null, reserved: 0, refreshedAt: 0, organizationId: null });
      if (allowed !== null && ledger.usage + ledger.reserved + units > Math.floor(allowed)) return false;
      ledger.reserved += units;
      return true;
    },
    async settle(reserved, spent) {
      const ledger = (state.ledger ??= { usage: 0, limit: null, reserved: 0, refreshedAt: 0, organizationId: null });
      ledger.reserved = Math.max(0, ledger.reserved - reserved);
      ledger.usage += spent;
      changed();
    },

    async putToken(record) {
      writeTokens([...readTokens().filter((t) => t.name !== record.name), record]);
    },
    async tokenByHash(hash) {
      return readTokens().find((t) => t.hash === hash) ?? null;
    },
    async listTokens(day) {
      return readTokens()
        .map((t): TokenState => ({ ...t, lastUsedAt: state.lastUsed[t.name] ?? null, usageToday: state.usage[`${day}:${t.name}`] ?? 0 }))
        .sort((a, b) => a.name.localeCompare(b.name));
    },
    async revokeToken(name) {
      const list = readTokens();
      if (!list.some((t) => t.name === name)) return false;
      writeTokens(list.filter((t) => t.name !== name));
      return true;
    },
    async recordUse(name, day, units, at) {
      const key = `${day}:${name}`;
      state.usage[key] = (state.usage[key] ?? 0) + units;
      state.lastUsed[name] = at;
      changed();
      return state.usage[key];
    },
    async usageOf(name, day) {
      return state.usage[`${day}:${name}`] ?? 0;
    },
    async rateLimit(subject, points, windowMs) {
      const id = `${points}/${windowMs}`;
      let limiter = limiters.get(id);
      if (!limiter) limiters.set(id, (limiter = new RateLimiterMemory({ points, duration: Math.ceil(windowMs / 1000) })));
      return consume(limiter, subject);
    },
    // Sign-in records stay in memory: a restart asks analysts to sign in again, nothing worse.
    async putSecret(kind, id, value, ttlMs) {
      for (const [key, entry] of secrets) if (entry.expiresAt <= now()) secrets.delete(key);
      secrets.set(`${kind}:${id}`, { value: JSON.stringify(value), expiresAt: now() + ttlMs });
    },
    async getSecret(kind, id) {
      const raw = live(secrets.get(`${kind}:${id}`));
      return raw === undefined ? null : (JSON.parse(raw) as unknown);
    },
    async takeSecret(kind, id) {
      const raw = live(secrets.get(`${kind}:${id}`));
      secrets.delete(`${kind}:${id}`);
      return raw === undefined ? null : (JSON.parse(raw) as unknown);
    },
    async deleteSecret(kind, id) {
      secrets.delete(`${kind}:${id}`);
    },

    // Team sightings: kept in state.json with the answers, each record until `ttlMs` after its last.
    async getAnswersAndSightings(ips) {
      const answers = new Map<string, StoredAnswer>();
      const sightings = new Map<string, Sightings>();
      for (const ip of ips) {
        const answer = live(state.answers[ip]);
        if (answer) answers.set(ip, answer);
        const record = live(state.sightings?.[ip]);
        if (record) sightings.set(ip, record);
      }
      return { answers, sightings };
    },
    async recordSightings(entries, cutoff, ttlMs) {
      if (!entries.length) return;
      const table = (state.sightings ??= {});
      for (const { ip, analyst, at } of entries) {
        table[ip] = { value: mergeSighting(live(table[ip]) ?? null, analyst, at, cutoff), expiresAt: now() + ttlMs };
      }
      changed();
    },
    async mostSeen(limit, cutoff) {
      const records = Object.entries(state.sightings ?? {}).map(([ip, entry]) => [ip, pruneSightings(live(entry) ?? null, cutoff)] as const);
      return rankMostSeen(records, limit);
    },

    // ----- The team dashboard: per-day counters in the state file, heartbeats in memory -----
    async addDayStats(day, add, set, keepMs) {
      const days = (state.days ??= {});
      for (const [key, entry] of Object.entries(days)) if (entry.expiresAt <= now()) delete days[key];
      const stats = days[day]?.value ?? {};
      for (const [field, n] of Object.entries(add)) stats[field] = (stats[field] ?? 0) + n;
      Object.assign(stats, set);
      days[day] = { value: stats, expiresAt: now() + keepMs };
      changed();
    },
    async dayStats(days) {
      const out = new Map<string, Record<string, number>>();
      for (const day of days) {
        const stats = live(state.days?.[day]);
        if (stats) out.set(day, { ...stats });
      }
      return out;
    },
    async beat(replica, ttlMs) {
      beats.set(replica.id, { value: { ...replica }, expiresAt: replica.seenAt + ttlMs });
    },
    async replicas(at) {
      return [...beats.values()].flatMap((entry) => (entry.expiresAt > at ? [{ ...entry.value }] : []));
    },
  };
}

function readJson<T>(file: string): T | null {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new Error(`${file} cannot be read (${(error as Error).message}); move it away to start afresh.`);
  }
}

function mtimeOf(file: string): number {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

function writeAtomic(file: string, text: string) {
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, text, { mode: 0o600 });
  renameSync(temporary, file);
}
