/**
 * The compact form of one cached reputation answer, as Redis keeps it (one string per IP).
 *
 * A team's cache holds every IP its analysts saw for a day, so each byte counts: the answer is
 * a JSON array of the fields the API answers, in a fixed order, without field names, without
 * the IP (the key names it), trailing defaults dropped:
 *
 *   not found: fetchedAt                        (a bare number)
 *   found:     [fetchedAt, score, threatLevel, reputation, totalHits, lastAttack,
 *               whitelisted (0|1), whitelist ([entry, description, note, value] | null),
 *               description]
 *
 * `lastAttack` is kept as epoch ms when that gives the same ISO text back (the normal case),
 * else as its text. JSON keeps free text safe to encode. A value in the older object form
 * (`{"status":…}`) still decodes, so an upgrade keeps the team's cache.
 *
 * A replica decodes the same hot values again and again (every analyst asks the popular IPs):
 * AnswerDecoder remembers the last decodings of (IP, value) pairs, and hands out the same
 * frozen object for the same pair, so what is built from an answer (its JSON row) can be
 * remembered too. It never answers anything the store did not just return.
 */
import type { Reputation, ThreatLevel, WhitelistInfo } from '../../../lib/api/types';
import type { StoredAnswer } from './types';

type Packed = number | [number, ...unknown[]];

export function encodeAnswer(answer: StoredAnswer): string {
  if (answer.status === 'not-found' || !answer.data) return String(answer.fetchedAt);
  const rep = answer.data;
  const w = rep.whitelist;
  const fields: unknown[] = [
    answer.fetchedAt,
    rep.score,
    rep.threatLevel,
    rep.reputation,
    rep.totalHits,
    packTime(rep.lastAttack),
    rep.whitelisted ? 1 : 0,
    w ? [w.entry, w.description, w.note, w.value] : null,
    rep.description,
  ];
  // Trailing defaults (null, or 0 for "not whitelisted") are implied.
  while (fields.length > 1 && (fields.at(-1) === null || (fields.length === 7 && fields[6] === 0))) fields.pop();
  return JSON.stringify(fields);
}

/** The stored answer of `ip`, or null when the value is not one (never thrown: a bad value is a miss). */
export function decodeAnswer(ip: string, raw: string): StoredAnswer | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return null;
  }
  if (typeof parsed === 'number') return { status: 'not-found', data: null, fetchedAt: parsed };
  if (Array.isArray(parsed) && typeof parsed[0] === 'number') return { status: 'found', data: unpack(ip, parsed as [number, ...unknown[]]), fetchedAt: parsed[0] };
  if (parsed && typeof parsed === 'object' && 'status' in parsed && 'fetchedAt' in parsed) return parsed as StoredAnswer;
  return null;
}

function unpack(ip: string, packed: Exclude<Packed, number>): Reputation {
  const at = (i: number) => (packed[i] === undefined ? null : packed[i]);
  const w = at(7) as [WhitelistInfo['entry'], string | null, string | null, string | null] | null;
  return {
    ip,
    score: at(1) as number | null,
    threatLevel: at(2) as ThreatLevel | null,
    reputation: at(3) as string | null,
    totalHits: at(4) as number | null,
    lastAttack: unpackTime(at(5)),
    whitelisted: at(6) === 1,
    whitelist: w ? { entry: w[0] ?? null, description: w[1] ?? null, note: w[2] ?? null, value: w[3] ?? null } : null,
    description: at(8) as string | null,
  };
}

function packTime(iso: string | null): number | string | null {
  if (iso === null) return null;
  const ms = Date.parse(iso);
  return Number.isFinite(ms) && new Date(ms).toISOString() === iso ? ms : iso;
}

function unpackTime(value: unknown): string | null {
  if (typeof value === 'number') return new Date(value).toISOString();
  return typeof value === 'string' ? value : null;
}

/** decodeAnswer with a memory of recent (IP, value) pairs: two generations of at most `size` each. */
export class AnswerDecoder {
  private young = new Map<string, StoredAnswer | null>();
  private old = new Map<string, StoredAnswer | null>();

  constructor(private readonly size = 20_000) {}

  decode(ip: string, raw: string): StoredAnswer | null {
    const key = `${ip} ${raw}`;
    let answer = this.young.get(key);
    if (answer !== undefined) return answer;
    answer = this.old.get(key);
    if (answer === undefined) answer = deepFreeze(decodeAnswer(ip, raw));
    if (this.young.size >= this.size) {
      this.old = this.young;
      this.young = new Map();
    }
    this.young.set(key, answer);
    return answer;
  }
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
