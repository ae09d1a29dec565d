/**
 * The shared store on Redis (one node) or a Redis Cluster (several node URLs).
 *
 * Key layout: every key of one IP carries the IP as its hash tag (`ipl:{1.2.3.4}:a`), so a
 * script over an IP's claim and buying mark stays in one slot; the team ledger is one hash;
 * tokens are one hash each plus one name index. No command spans two slots: on one node a
 * batch of answers is read with one MGET; on a cluster (one slot per IP) with single-key GETs
 * sent together (node-redis pipelines commands issued in the same tick, per node). Answers are
 * kept in the compact form of answer-codec.ts (about 180 B of Redis memory per IP).
 */
import { createClient, createCluster } from 'redis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { AnswerDecoder, encodeAnswer } from './answer-codec';
import { decodeSightings, pruneSightings, type MostSeen, type Sightings } from './sightings';
import type { ClaimKind, ClaimOutcome, LedgerState, RateLimitResult, ReplicaBeat, SecretKind, Store, StoredAnswer, StoredInfo, TokenRecord, TokenState } from './types';

type Client = ReturnType<typeof createClient> | ReturnType<typeof createCluster>;

const PREFIX = 'ipl:';
const CHANNEL = `${PREFIX}answered`;
const LEDGER = `${PREFIX}ledger`;
const TOKEN_NAMES = `${PREFIX}tokens`;
/** A buying mark outlives any lease: it is only there to tell a waiter the last holder may have paid. */
const BUYING_MARK_MS = 60 * 60 * 1000;

export const keys = {
  answer: (ip: string) => `${PREFIX}{${ip}}:a`,
  info: (ip: string) => `${PREFIX}{${ip}}:i`,
  claim: (kind: ClaimKind, ip: string) => `${PREFIX}{${ip}}:c:${kind}`,
  buying: (kind: ClaimKind, ip: string) => `${PREFIX}{${ip}}:b:${kind}`,
  token: (hash: string) => `${PREFIX}token:${hash}`,
  usage: (day: string, name: string) => `${PREFIX}usage:${day}:${name}`,
  shared: (name: string) => `${PREFIX}shared:${name}`,
  secret: (kind: SecretKind, id: string) => `${PREFIX}secret:${kind}:${id}`,
  sightings: (ip: string) => `${PREFIX}{${ip}}:s`,
  /** The most-seen index: IP → its analysts' count, and IP → its last sighting (one slot). */
  seenCount: `${PREFIX}{seen}:n`,
  seenLast: `${PREFIX}{seen}:t`,
  day: (day: string) => `${PREFIX}day:${day}`,
};
/** One hash of every replica's last heartbeat (JSON with its own expiry; stale ones pruned on read). */
const REPLICAS = `${PREFIX}replicas`;

/** SET NX PX, and says whether a buying mark of a vanished holder is there (both keys: one slot). */
const CLAIM = `
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  if redis.call('EXISTS', KEYS[2]) == 1 then return 2 end
  return 1
end
return 0`;
const EXTEND = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`;
/** Compare-and-delete: a holder whose lease ran out must not delete the next holder's claim. */
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1], KEYS[2])
  return 1
end
return 0`;
const RESERVE = `
local usage = tonumber(redis.call('HGET', KEYS[1], 'usage') or '0')
local reserved = tonumber(redis.call('HGET', KEYS[1], 'reserved') or '0')
local units = tonumber(ARGV[1])
if ARGV[2] ~= '' and usage + reserved + units > tonumber(ARGV[2]) then return 0 end
redis.call('HINCRBY', KEYS[1], 'reserved', units)
return 1`;
const SETTLE = `
redis.call('HINCRBY', KEYS[1], 'reserved', -tonumber(ARGV[1]))
redis.call('HINCRBY', KEYS[1], 'usage', tonumber(ARGV[2]))
if tonumber(redis.call('HGET', KEYS[1], 'reserved')) < 0 then redis.call('HSET', KEYS[1], 'reserved', 0) end
return 1`;

/**
 * Merges sightings into IP records (sightings.ts's mergeSighting, in Lua so that two replicas
 * recording one IP at once both count). KEYS: the IPs' sighting keys, then, when ARGV[3] is
 * '1', the two most-seen index keys (one Redis node: all in one script). ARGV: cutoff, TTL ms,
 * index flag, then per key its IP, analyst and time. Returns each IP's analysts' count.
 */
const SIGHT = `
local cutoff, ttl, indexed = tonumber(ARGV[1]), ARGV[2], ARGV[3] == '1'
local n = #KEYS
if indexed then n = n - 2 end
local counts = {}
for k = 1, n do
  local ip, analyst, at = ARGV[1 + 3 * k], ARGV[2 + 3 * k], tonumber(ARGV[3 + 3 * k])
  local raw = redis.call('GET', KEYS[k])
  local ok, rec = false, nil
  if raw then ok, rec = pcall(cjson.decode, raw) end
  local out, count, oldest, mine = {}, 0, math.huge, false
  local first = at
  if ok and type(rec) == 'table' and type(rec[1]) == 'number' then
    for i = 2, #rec - 1, 2 do
      local name, last = rec[i], rec[i + 1]
      if type(name) == 'string' and type(last) == 'number' and last >= cutoff then
        if name == analyst then
          mine = true
          if at > last then last = at end
        end
        out[#out + 1] = name
        out[#out + 1] = last
        count = count + 1
        if last < oldest then oldest = last end
      end
    end
    if count > 0 then
      first = oldest
      if rec[1] >= cutoff and rec[1] < oldest then first = rec[1] end
      if at < first then first = at end
    end
  end
  if not mine then
    out[#out + 1] = analyst
    out[#out + 1] = at
    count = count + 1
  end
  table.insert(out, 1, first)
  redis.call('SET', KEYS[k], cjson.encode(out), 'PX', ttl)
  counts[k] = count
  if indexed then
    redis.call('ZADD', KEYS[n + 1], count, ip)
    redis.call('ZADD', KEYS[n + 2], 'GT', at, ip)
  end
end
if indexed then
  local stale = redis.call('ZRANGEBYSCORE', KEYS[n + 2], '-inf', '(' .. ARGV[1], 'LIMIT', 0, 500)
  for _, ip in ipairs(stale) do
    redis.call('ZREM', KEYS[n + 1], ip)
    redis.call('ZREM', KEYS[n + 2], ip)
  end
end
return counts`;
/** The most-seen index update on a cluster (its keys share one slot). ARGV: cutoff, then IP, count, time. */
const SEEN_INDEX = `
for i = 2, #ARGV, 3 do
  redis.call('ZADD', KEYS[1], ARGV[i + 1], ARGV[i])
  redis.call('ZADD', KEYS[2], 'GT', ARGV[i + 2], ARGV[i])
end
local stale = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', '(' .. ARGV[1], 'LIMIT', 0, 500)
for _, ip in ipairs(stale) do
  redis.call('ZREM', KEYS[1], ip)
  redis.call('ZREM', KEYS[2], ip)
end
return 1`;

export interface RedisStoreOptions {
  urls: string[];
  /** Called on connection errors (the client reconnects by itself). */
  onError?: (error: unknown) => void;
}

export async function openRedisStore(options: RedisStoreOptions): Promise<Store> {
  const onError = options.onError ?? (() => {});
  // Reconnect forever with a capped backoff: Redis coming back resumes sharing without a restart.
  const socket = { reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 2_000), connectTimeout: 2_000 };
  const cluster = options.urls.length > 1;
  const client: Client = cluster
    ? createCluster({ rootNodes: options.urls.map((url) => ({ url, socket })), defaults: { socket } })
    : createClient({ url: options.urls[0]!, socket, disableOfflineQueue: true });
  client.on('error', onError);
  await client.connect();
  const subscriber = cluster ? null : (client as ReturnType<typeof createClient>).duplicate();
  subscriber?.on('error', onError);
  await subscriber?.connect();
  const limiters = new Map<string, RateLimiterRedis>();
  const decoder = new AnswerDecoder();

  const evalScript = (script: string, keyList: string[], args: (string | number)[]) =>
    client.eval(script, { keys: keyList, arguments: args.map(String) }) as Promise<number>;

  return {
    kind: cluster ? 'redis-cluster' : 'redis',
    async ping() {
      if (cluster) await (client as ReturnType<typeof createCluster>).get(`${PREFIX}ping`);
      else await (client as ReturnType<typeof createClient>).ping();
    },
    async close() {
      await subscriber?.close().catch(() => {});
      await client.close().catch(() => {});
    },

    async getAnswers(ips) {
      const out = new Map<string, StoredAnswer>();
      if (!ips.length) return out;
      const answerKeys = ips.map((ip) => keys.answer(ip));
      const values = cluster ? await Promise.all(answerKeys.map((key) => client.get(key))) : await (client as ReturnType<typeof createClient>).mGet(answerKeys);
      values.forEach((value, i) => {
        const answer = typeof value === 'string' ? decoder.decode(ips[i]!, value) : null;
        if (answer) out.set(ips[i]!, answer);
      });
      return out;
    },
    async putAnswers(entries) {
      await Promise.all(entries.map(({ ip, answer, ttlMs }) => client.set(keys.answer(ip), encodeAnswer(answer), { expiration: { type: 'PX', value: ttlMs } })));
    },
    async getInfo(ip) {
      const value = await client.get(keys.info(ip));
      return typeof value === 'string' ? (JSON.parse(value) as StoredInfo) : null;
    },
    async putInfo(ip, info, ttlMs) {
      await client.set(keys.info(ip), JSON.stringify(info), { expiration: { type: 'PX', value: ttlMs } });
    },

    async claim(kind, ip, owner, leaseMs): Promise<ClaimOutcome> {
      const won = await evalScript(CLAIM, [keys.claim(kind, ip), keys.buying(kind, ip)], [owner, leaseMs]);
      return won === 2 ? 'won-stale' : won === 1 ? 'won' : 'held';
    },
    async markBuying(kind, ips, owner) {
      await Promise.all(ips.map((ip) => client.set(keys.buying(kind, ip), owner, { expiration: { type: 'PX', value: BUYING_MARK_MS } })));
    },
    async extendClaim(kind, ip, owner, leaseMs) {
      return (await evalScript(EXTEND, [keys.claim(kind, ip)], [owner, leaseMs])) === 1;
    },
    async releaseClaim(kind, ip, owner) {
      return (await evalScript(RELEASE, [keys.claim(kind, ip), keys.buying(kind, ip)], [owner])) === 1;
    },
    async claimed(kind, ips) {
      const found = await Promise.all(ips.map((ip) => client.exists(keys.claim(kind, ip))));
      return new Set(ips.filter((_, i) => found[i] === 1));
    },

    async getShared(name) {
      const raw = await client.get(keys.shared(name));
      return raw === null ? undefined : (JSON.parse(raw) as unknown);
    },
    async putShared(name, value) {
      await client.set(keys.shared(name), JSON.stringify(value));
    },
    async publishAnswered(ips) {
      if (ips.length) await client.publish(CHANNEL, JSON.stringify(ips));
    },
    async subscribeAnswered(listener) {
      const onMessage = (message: string | Buffer) => {
        try {
          const ips = JSON.parse(String(message)) as unknown;
          if (Array.isArray(ips)) listener(ips.filter((ip): ip is string => typeof ip === 'string'));
        } catch {
          // Not ours: ignored (waiters poll anyway).
        }
      };
      if (subscriber) {
        await subscriber.subscribe(CHANNEL, onMessage);
        return async () => subscriber.unsubscribe(CHANNEL, onMessage).then(() => {});
      }
      const clusterClient = client as ReturnType<typeof createCluster>;
      await clusterClient.subscribe(CHANNEL, onMessage);
      return async () => clusterClient.unsubscribe(CHANNEL, onMessage).then(() => {});
    },

    async getLedger() {
      const raw = await client.hGetAll(LEDGER);
      if (!raw || raw.refreshedAt === undefined) return null;
      return {
        usage: Number(raw.usage ?? 0),
        limit: raw.limit === undefined || raw.limit === '' ? null : Number(raw.limit),
        reserved: Number(raw.reserved ?? 0),
        refreshedAt: Number(raw.refreshedAt),
        organizationId: raw.organizationId || null,
      } satisfies LedgerState;
    },
    async setLedgerFromAccount({ usage, limit, organizationId, at }) {
      await client.hSet(LEDGER, { usage: String(usage), limit: limit === null ? '' : String(limit), refreshedAt: String(at), organizationId: organizationId ?? '' });
    },
    async reserve(units, allowed) {
      return (await evalScript(RESERVE, [LEDGER], [units, allowed === null ? '' : Math.floor(allowed)])) === 1;
    },
    async settle(reserved, spent) {
      await evalScript(SETTLE, [LEDGER], [reserved, spent]);
    },

    async putToken(record) {
      await client.hSet(keys.token(record.hash), serializeToken(record));
      await client.hSet(TOKEN_NAMES, record.name, record.hash);
    },
    async tokenByHash(hash) {
      const raw = await client.hGetAll(keys.token(hash));
      return raw && raw.name ? parseToken(raw) : null;
    },
    async listTokens(day) {
      const names = await client.hGetAll(TOKEN_NAMES);
      const out: TokenState[] = [];
      for (const [name, hash] of Object.entries(names ?? {})) {
        const raw = await client.hGetAll(keys.token(hash));
        if (!raw?.name) continue;
        const usage = await client.get(keys.usage(day, name));
        out.push({ ...parseToken(raw), lastUsedAt: raw.lastUsedAt ? Number(raw.lastUsedAt) : null, usageToday: Number(usage ?? 0) });
      }
      return out.sort((a, b) => a.name.localeCompare(b.name));
    },
    async revokeToken(name) {
      const hash = await client.hGet(TOKEN_NAMES, name);
      if (!hash) return false;
      await client.del(keys.token(hash));
      await client.hDel(TOKEN_NAMES, name);
      return true;
    },
    async recordUse(name, day, units, at) {
      // Sent together (one round trip, then the last-used mark): a lookup waits for none of it
      // in sequence. A lookup that bought nothing only reads its day's usage.
      const key = keys.usage(day, name);
      const touched = client.hGet(TOKEN_NAMES, name).then((hash) => (hash ? client.hSet(keys.token(hash), 'lastUsedAt', String(at)) : 0));
      const usage = units === 0 ? client.get(key).then((value) => Number(value ?? 0)) : client.incrBy(key, units);
      const expiry = units === 0 ? null : client.pExpire(key, 2 * 24 * 3600 * 1000);
      const [, used] = await Promise.all([touched, usage, expiry]);
      return Number(used);
    },
    async usageOf(name, day) {
      return Number((await client.get(keys.usage(day, name))) ?? 0);
    },
    async rateLimit(subject, points, windowMs) {
      const id = `${points}/${windowMs}`;
      let limiter = limiters.get(id);
      if (!limiter) {
        limiter = new RateLimiterRedis({ storeClient: client, useRedisPackage: true, points, duration: Math.ceil(windowMs / 1000), keyPrefix: `${PREFIX}rl` });
        limiters.set(id, limiter);
      }
      return consume(limiter, subject);
    },
    async putSecret(kind, id, value, ttlMs) {
      await client.set(keys.secret(kind, id), JSON.stringify(value), { PX: Math.max(1, Math.ceil(ttlMs)) });
    },
    async getSecret(kind, id) {
      const raw = await client.get(keys.secret(kind, id));
      return raw === null ? null : (JSON.parse(raw) as unknown);
    },
    async takeSecret(kind, id) {
      const raw = await client.getDel(keys.secret(kind, id));
      return raw === null ? null : (JSON.parse(raw) as unknown);
    },
    async deleteSecret(kind, id) {
      await client.del(keys.secret(kind, id));
    },

    // Team sightings: one string per IP beside its answer (same hash tag), read in the answers' MGET.
    async getAnswersAndSightings(ips) {
      const answers = new Map<string, StoredAnswer>();
      const sightings = new Map<string, Sightings>();
      if (!ips.length) return { answers, sightings };
      const keyList = [...ips.map((ip) => keys.answer(ip)), ...ips.map((ip) => keys.sightings(ip))];
      const values = cluster ? await Promise.all(keyList.map((key) => client.get(key))) : await (client as ReturnType<typeof createClient>).mGet(keyList);
      ips.forEach((ip, i) => {
        const value = values[i];
        const answer = typeof value === 'string' ? decoder.decode(ip, value) : null;
        if (answer) answers.set(ip, answer);
        const record = decodeSightings(values[ips.length + i]);
        if (record) sightings.set(ip, record);
      });
      return { answers, sightings };
    },
    async recordSightings(entries, cutoff, ttlMs) {
      if (!entries.length) return;
      const ttl = String(Math.max(1, Math.ceil(ttlMs)));
      const argsOf = (list: typeof entries) => list.flatMap(({ ip, analyst, at }) => [ip, analyst, String(at)]);
      if (!cluster) {
        await evalScript(SIGHT, [...entries.map(({ ip }) => keys.sightings(ip)), keys.seenCount, keys.seenLast], [cutoff, ttl, '1', ...argsOf(entries)]);
        return;
      }
      const counts = await Promise.all(entries.map((entry) => client.eval(SIGHT, { keys: [keys.sightings(entry.ip)], arguments: [String(cutoff), ttl, '0', ...argsOf([entry])] }) as Promise<number[]>));
      const indexArgs = entries.flatMap(({ ip, at }, i) => [ip, String(counts[i]![0]), String(at)]);
      await client.eval(SEEN_INDEX, { keys: [keys.seenCount, keys.seenLast], arguments: [String(cutoff), ...indexArgs] });
    },
    async mostSeen(limit, cutoff) {
      if (limit <= 0) return [];
      // The index's counts date from each IP's last sighting: read the records to prune them now.
      const candidates = await client.zRange(keys.seenCount, 0, limit * 3 - 1, { REV: true });
      if (!candidates.length) return [];
      const values = await Promise.all(candidates.map((ip) => client.get(keys.sightings(ip))));
      return rankMostSeen(candidates.map((ip, i) => [ip, pruneSightings(decodeSightings(values[i]), cutoff)] as const), limit);
    },

    // ----- The team dashboard: one hash per UTC day, one hash of heartbeats -----
    async addDayStats(day, add, set, keepMs) {
      const key = keys.day(day);
      // Sent in one tick (pipelined on the day's node); each increment is atomic on its own.
      const writes: Promise<unknown>[] = Object.entries(add)
        .filter(([, n]) => n !== 0)
        .map(([field, n]) => client.hIncrBy(key, field, n));
      const fields = Object.entries(set).map(([field, n]) => [field, String(n)] as [string, string]);
      if (fields.length) writes.push(client.hSet(key, Object.fromEntries(fields)));
      if (!writes.length) return;
      writes.push(client.pExpire(key, keepMs));
      await Promise.all(writes);
    },
    async dayStats(days) {
      const raws = await Promise.all(days.map((day) => client.hGetAll(keys.day(day))));
      const out = new Map<string, Record<string, number>>();
      raws.forEach((raw, i) => {
        const entries = Object.entries(raw ?? {});
        if (entries.length) out.set(days[i]!, Object.fromEntries(entries.map(([field, value]) => [field, Number(value)])));
      });
      return out;
    },
    async beat(replica, ttlMs) {
      await client.hSet(REPLICAS, replica.id, JSON.stringify({ ...replica, expiresAt: replica.seenAt + ttlMs }));
    },
    async replicas(now) {
      const raw = await client.hGetAll(REPLICAS);
      const live: ReplicaBeat[] = [];
      const stale: string[] = [];
      for (const [id, text] of Object.entries(raw ?? {})) {
        const beat = parseBeat(text);
        if (beat && beat.expiresAt > now) live.push({ id: beat.id, host: beat.host, startedAt: beat.startedAt, seenAt: beat.seenAt });
        else stale.push(id);
      }
      if (stale.length) await client.hDel(REPLICAS, stale);
      return live;
    },
  };
}

/** The most-seen list from pruned records: most analysts first, then the most recent. */
export function rankMostSeen(records: readonly (readonly [string, Sightings | null])[], limit: number): MostSeen[] {
  return records
    .flatMap(([ip, record]) => (record ? [{ ip, analysts: Object.keys(record.analysts).length, last: Math.max(...Object.values(record.analysts)) }] : []))
    .sort((a, b) => b.analysts - a.analysts || b.last - a.last)
    .slice(0, limit);
}

function parseBeat(text: string): (ReplicaBeat & { expiresAt: number }) | null {
  try {
    const beat = JSON.parse(text) as Partial<ReplicaBeat & { expiresAt: number }>;
    return typeof beat.id === 'string' && typeof beat.host === 'string' && typeof beat.startedAt === 'number' && typeof beat.seenAt === 'number' && typeof beat.expiresAt === 'number'
      ? (beat as ReplicaBeat & { expiresAt: number })
      : null;
  } catch {
    return null;
  }
}

export async function consume(limiter: { consume(key: string): Promise<unknown> }, subject: string): Promise<RateLimitResult> {
  try {
    await limiter.consume(subject);
    return { allowed: true, retryAfterMs: 0 };
  } catch (error) {
    if (error instanceof RateLimiterRes) return { allowed: false, retryAfterMs: error.msBeforeNext };
    throw error;
  }
}

function serializeToken(record: TokenRecord): Record<string, string> {
  return {
    name: record.name,
    hash: record.hash,
    createdAt: String(record.createdAt),
    expiresAt: record.expiresAt === null ? '' : String(record.expiresAt),
    budget: record.budget === null ? '' : String(record.budget),
  };
}

function parseToken(raw: Record<string, string>): TokenRecord {
  return {
    name: raw.name!,
    hash: raw.hash!,
    createdAt: Number(raw.createdAt),
    expiresAt: raw.expiresAt ? Number(raw.expiresAt) : null,
    budget: raw.budget ? Number(raw.budget) : null,
  };
}

export { serializeToken, parseToken };
