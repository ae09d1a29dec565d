/**
 * The call journal: what a bulk call asked, written down before the call leaves, and crossed
 * out once its answers are safely in the persistent cache. MV3 may stop the service worker at
 * any moment (idle, memory pressure, an update); what the journal holds when a new worker
 * starts are calls that were asked and whose answers never reached the cache.
 *
 * Such an IP is "interrupted": the server may have answered it, and charged for it, before the
 * worker died. Asking again automatically could pay for it twice, so automatic lookups leave it
 * alone (skipped 'interrupted'); a manual lookup, which the analyst asks for on purpose, sends
 * it, and an answer from any source ends the hold (an unreadable row too: the server answered,
 * and the row is cached like any answer). The answers that did come back are never
 * lost: they reach the cache before the journal lets go of their call (see sendBulk).
 *
 * Held per quota identity (base URL + key fingerprint): another key or server never paid for it.
 */
import { z } from '../zod';
import { loadOrNothing, type StoredValue } from './stored-value';

/** Where the journal outlives the worker (storage.session in the browser). */
export type CallJournalStore = StoredValue;

const STORED_VERSION = 1;
/** Interrupted IPs remembered at most; the oldest are forgotten first (then asked again). */
const MAX_INTERRUPTED = 5_000;

const ipSchema = z.string().min(2).max(100);
const storedSchema = z.object({
  v: z.literal(STORED_VERSION),
  /** Calls of the worker that wrote this, not yet crossed out. */
  calls: z
    .array(
      z.object({
        id: z.number(),
        identity: z.string().max(200),
        ips: z.array(ipSchema).max(1000),
        // Absent in journals written before it was kept: unknown, so never proven unbilled.
        usedBefore: z.number().nullable().default(null),
      }),
    )
    .max(100),
  /** [ip, identity, usage when its call left (optional)], oldest first. */
  interrupted: z.array(z.tuple([ipSchema, z.string().max(200)], z.number().nullable())).max(MAX_INTERRUPTED),
});
type Stored = z.infer<typeof storedSchema>;

export interface JournalEntry {
  /** Resolves once the entry is written (never rejects): the call may leave then. */
  readonly written: Promise<void>;
  /** Crosses the call out; `answered` IPs have their answer in the cache. */
  end(answered: Iterable<string>): Promise<void>;
}

export class CallJournal {
  private readonly calls = new Map<number, { identity: string; ips: string[]; usedBefore: number | null }>();
  /** ip -> identity it may have been paid with, and the usage when its call left; insertion order = age. */
  private readonly interrupted = new Map<string, { identity: string; usedBefore: number | null }>();
  private nextId = 1;
  private writing: Promise<void> = Promise.resolve();
  private restored: Promise<void> | null = null;

  constructor(private readonly store?: CallJournalStore) {}

  /**
   * Reads what an earlier worker left: its open calls become interrupted IPs. Call before the
   * first begin(); never rejects (an unreadable journal is an empty one).
   */
  restore(): Promise<void> {
    this.restored ??= (async () => {
      const result = storedSchema.safeParse(await loadOrNothing(this.store));
      if (!result.success) return;
      const parsed = result.data;
      for (const [ip, identity, usedBefore] of parsed.interrupted) this.hold(ip, identity, usedBefore ?? null);
      for (const call of parsed.calls) for (const ip of call.ips) this.hold(ip, call.identity, call.usedBefore);
      if (parsed.calls.length) await this.save();
    })();
    return this.restored;
  }

  /**
   * Writes the call down; send only once `written` resolved. `usedBefore`: the quota usage the
   * ledger knew when it left (null: unknown), against which /account may later prove that an
   * interrupted call was not billed.
   */
  begin(identity: string | null, ips: readonly string[], usedBefore: number | null = null): JournalEntry {
    const id = this.nextId++;
    const key = identity ?? '';
    this.calls.set(id, { identity: key, ips: [...ips], usedBefore });
    const written = this.save();
    return {
      written,
      end: (answered) => {
        this.calls.delete(id);
        for (const ip of answered) if (this.interrupted.get(ip)?.identity === key) this.interrupted.delete(ip);
        return this.save();
      },
    };
  }

  /** Whether an automatic lookup must leave this IP alone (it may be paid for already). */
  isInterrupted(ip: string, identity: string | null): boolean {
    return this.interrupted.get(ip)?.identity === (identity ?? '');
  }

  /** The usage the ledger knew when the interrupted call of this IP left; null when unknown. */
  usageBefore(ip: string): number | null {
    return this.interrupted.get(ip)?.usedBefore ?? null;
  }

  /** The cache answered it after all (another call, a manual lookup): no hold any more. */
  answered(ip: string): void {
    if (this.interrupted.delete(ip)) void this.save();
  }

  get interruptedCount(): number {
    return this.interrupted.size;
  }

  /** Resolves when every write so far has landed (tests). */
  flush(): Promise<void> {
    return this.writing;
  }

  private hold(ip: string, identity: string, usedBefore: number | null): void {
    this.interrupted.delete(ip);
    this.interrupted.set(ip, { identity, usedBefore });
    if (this.interrupted.size > MAX_INTERRUPTED) {
      const oldest = this.interrupted.keys().next().value;
      if (oldest !== undefined) this.interrupted.delete(oldest);
    }
  }

  /** One write at a time, each of the state at the moment it starts; never rejects. */
  private save(): Promise<void> {
    const store = this.store;
    if (!store) return Promise.resolve();
    this.writing = this.writing
      .then(() =>
        store.save({
          v: STORED_VERSION,
          calls: [...this.calls].map(([id, call]) => ({ id, ...call })),
          interrupted: [...this.interrupted].map(([ip, held]): Stored['interrupted'][number] => [ip, held.identity, held.usedBefore]),
        } satisfies Stored),
      )
      .catch(() => undefined);
    return this.writing;
  }
}
