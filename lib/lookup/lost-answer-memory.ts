/**
 * Which IPs had a paid answer lost, remembered per IP across lookups, pages, the recovery
 * re-ask and worker restarts. A lost answer (a timeout, a reset, a gateway's 5xx after the
 * service billed) may have cost a unit, and asking again may cost another: so an IP whose answer
 * was lost is asked again automatically at most once per `reaskEveryMs` (an hour). Past that it
 * is answered as failed, with the reason, until the hour is over or the analyst asks on purpose
 * (the popup's "Try again", which states the cost first).
 *
 * A lost call that /account proves was not billed is not recorded: asking again costs nothing
 * more than asking the first time.
 *
 * Held per quota identity (base URL + key fingerprint): another key or server never paid for it.
 * Browser-free: the clock and the store are passed in, so the team gateway keeps the same rule.
 */
import { API_ERROR_KINDS, type ApiErrorData } from '../api/errors';
import { z } from '../zod';
import type { Clock } from './clock';
import { loadOrNothing, type StoredValue } from './stored-value';

export const REASK_EVERY_MS = 60 * 60_000;
/** IPs remembered at most; the oldest are forgotten first. */
const MAX_RECORDS = 5_000;
const STORED_VERSION = 1;

interface LostRecord {
  identity: string;
  lostAt: number;
  /** When it was last asked again automatically; null: its re-ask is still due. */
  reaskedAt: number | null;
  reason: ApiErrorData;
}

const reasonSchema = z.object({ kind: z.enum(API_ERROR_KINDS), message: z.string().max(1_000), status: z.number().optional() });
const storedSchema = z.object({
  v: z.literal(STORED_VERSION),
  records: z
    .array(
      z.tuple([
        z.string().min(2).max(100),
        z.object({ identity: z.string().max(200), lostAt: z.number(), reaskedAt: z.number().nullable(), reason: reasonSchema }),
      ]),
    )
    .max(MAX_RECORDS),
});

/** What an automatic ask of an IP may do now. */
export type LostAnswerVerdict =
  /** No lost answer on record (or a different key's): ask as usual. */
  | { kind: 'free' }
  /** Lost before; this is its one automatic re-ask (call `reasked` when it leaves). */
  | { kind: 'reask' }
  /** Lost, and re-asked already within the hour: answer this failure instead of asking. */
  | { kind: 'held'; error: ApiErrorData };

export interface LostAnswerMemoryOptions {
  clock: Pick<Clock, 'now'>;
  store?: StoredValue;
  reaskEveryMs?: number;
}

export class LostAnswerMemory {
  /** ip -> record; insertion order = age. */
  private readonly records = new Map<string, LostRecord>();
  private restored: Promise<void> | null = null;
  private saving: Promise<void> = Promise.resolve();
  private changed = false;

  constructor(private readonly options: LostAnswerMemoryOptions) {}

  /** Reads what an earlier worker remembered. Never rejects (unreadable: nothing remembered). */
  restore(): Promise<void> {
    this.restored ??= (async () => {
      const parsed = storedSchema.safeParse(await loadOrNothing(this.options.store));
      if (!parsed.success || this.changed) return;
      for (const [ip, record] of parsed.data.records) this.records.set(ip, record as LostRecord);
    })();
    return this.restored;
  }

  flush(): Promise<void> {
    return this.saving;
  }

  /**
   * Replaces what this process holds with the store's, for a store other processes write too
   * (the gateway's replicas): called before deciding, while the IPs' purchase claim is held.
   */
  async sync(): Promise<void> {
    await this.saving;
    const parsed = storedSchema.safeParse(await loadOrNothing(this.options.store));
    if (!parsed.success) return;
    this.records.clear();
    for (const [ip, record] of parsed.data.records) this.records.set(ip, record as LostRecord);
  }

  get size(): number {
    return this.records.size;
  }

  /** The answers of these IPs were lost and may have been paid. */
  lost(ips: Iterable<string>, identity: string | null, reason: ApiErrorData): void {
    const now = this.options.clock.now();
    const key = identity ?? '';
    const plain: ApiErrorData = { kind: reason.kind, message: reason.message, ...(reason.status !== undefined ? { status: reason.status } : {}) };
    for (const ip of ips) {
      const before = this.records.get(ip);
      this.records.delete(ip);
      // A second loss keeps the time of the re-ask it was: the hour counts from there.
      const reaskedAt = before?.identity === key ? before.reaskedAt : null;
      this.records.set(ip, { identity: key, lostAt: now, reaskedAt, reason: plain });
    }
    while (this.records.size > MAX_RECORDS) {
      const oldest = this.records.keys().next().value;
      if (oldest === undefined) break;
      this.records.delete(oldest);
    }
    this.save();
  }

  verdict(ip: string, identity: string | null): LostAnswerVerdict {
    const record = this.records.get(ip);
    if (!record || record.identity !== (identity ?? '')) return { kind: 'free' };
    const every = this.options.reaskEveryMs ?? REASK_EVERY_MS;
    const now = this.options.clock.now();
    if (record.reaskedAt === null || now - record.reaskedAt >= every) return { kind: 'reask' };
    const minutes = Math.max(1, Math.ceil((record.reaskedAt + every - now) / 60_000));
    return {
      kind: 'held',
      error: {
        kind: record.reason.kind,
        ...(record.reason.status !== undefined ? { status: record.reason.status } : {}),
        message:
          `The answer for this IP was lost twice (${record.reason.message}), and the server may have billed each ask. ` +
          `It is not asked again automatically for ${minutes} min; "Try again" in the popup asks now (up to 1 unit).`,
        lostAfterSend: true,
      },
    };
  }

  /** Its automatic re-ask left now. */
  reasked(ip: string): void {
    const record = this.records.get(ip);
    if (!record) return;
    record.reaskedAt = this.options.clock.now();
    this.save();
  }

  /** An answer arrived (from any call): nothing is held any more. */
  answered(ip: string): void {
    if (this.records.delete(ip)) this.save();
  }

  /** One write at a time, of the state at the moment it starts; never rejects. */
  private save(): void {
    this.changed = true;
    const store = this.options.store;
    if (!store) return;
    this.saving = this.saving
      .then(() => store.save({ v: STORED_VERSION, records: [...this.records] }))
      .catch(() => undefined);
  }
}
