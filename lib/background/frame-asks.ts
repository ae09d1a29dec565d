/**
 * What each frame asked and was told. The background trusts no content script (a compromised
 * renderer or a page that broke into its frame can send anything), so:
 *   - a frame's page summary counts in the toolbar badge only the IPs this frame was really
 *     given a reputation for (`told`: found answers);
 *   - a detailed lookup (one paid unit, past the page cap) is taken only for an IP this frame
 *     asked about before with `cs:lookup` (`asked`: any answer, skipped ones included), i.e.
 *     an IP its scanner found and marked; see detail-trust.ts.
 *
 * Kept in storage.session (through `store`), so a worker stopped after 30 s idle does not forget
 * what an honest frame asked: its card's Details keep working and its badge stays true. Bounded
 * in memory and in the store (storage.session holds 10 MB in Chrome): at most MAX_FRAMES frames
 * and MAX_TOTAL_IPS IPs over all of them; the least recently active frames are forgotten first.
 * A forgotten frame's Details are refused with a sentence pointing to the popup, never wrongly
 * allowed.
 */
import { z } from '../zod';
import { normalizeIp } from '../ip';
import type { Clock, TimerHandle } from '../lookup/clock';
import { systemClock } from '../lookup/clock';
import { loadOrNothing, type StoredValue } from '../lookup/stored-value';
import type { LookupResult } from '../lookup/types';

/** Frames remembered at once. */
const MAX_FRAMES = 300;
/** IPs remembered per frame and list (more than any page summary reports). */
const MAX_IPS_PER_FRAME = 20_000;
/** IPs remembered over all frames and both lists: about 3 MB when stored. */
const MAX_TOTAL_IPS = 200_000;
/** How long a write waits for more changes. */
const SAVE_DELAY_MS = 1_000;
const STORED_VERSION = 1;

export interface FrameRef {
  tabId: number;
  frameId: number;
  documentId: string;
}

/** Where the records outlive the worker (storage.session in the browser). */
export type FrameAsksStore = StoredValue;

export interface FrameAsksOptions {
  store?: FrameAsksStore;
  clock?: Clock;
}

interface FrameRecord {
  asked: Set<string>;
  told: Set<string>;
}

const keyOf = (f: FrameRef) => `${f.tabId}:${f.frameId}:${f.documentId}`;
/** The canonical form both sides agree on (the card sends what the scanner found). */
const canonical = (ip: string) => normalizeIp(ip) ?? ip;

/** [frame key, asked IPs joined by spaces, told IPs joined by spaces]; least recently active first. */
const storedSchema = z.object({
  v: z.literal(STORED_VERSION),
  frames: z.array(z.tuple([z.string().max(400), z.string(), z.string()])).max(MAX_FRAMES),
});

export class FrameAsks {
  /** Insertion order = least recently active first. */
  private readonly frames = new Map<string, FrameRecord>();
  private total = 0;
  private restored: Promise<void> | null = null;
  private saveTimer: TimerHandle | null = null;
  private saving: Promise<void> = Promise.resolve();
  private readonly clock: Clock;

  constructor(private readonly options: FrameAsksOptions = {}) {
    this.clock = options.clock ?? systemClock;
  }

  /**
   * Loads what an earlier worker run kept; await before the first check. Never rejects: an
   * unreadable store is an empty one (Details refused until the page asks again).
   */
  ready(): Promise<void> {
    this.restored ??= (async () => {
      const parsed = storedSchema.safeParse(await loadOrNothing(this.options.store));
      if (!parsed.success) return;
      const split = (joined: string) => (joined ? joined.split(' ') : []);
      for (const [key, asked, told] of parsed.data.frames) {
        // A frame already active in this run is at least as recent as what was stored.
        if (this.frames.has(key)) continue;
        const record: FrameRecord = { asked: new Set(split(asked).slice(0, MAX_IPS_PER_FRAME)), told: new Set(split(told).slice(0, MAX_IPS_PER_FRAME)) };
        this.frames.set(key, record);
        this.total += record.asked.size + record.told.size;
      }
      this.bound(null);
    })();
    return this.restored;
  }

  /** A frame's `cs:lookup` arrived with these IPs (noted before its answers: Details may follow at once). */
  noteAsked(frame: FrameRef, ips: readonly string[]): void {
    const record = this.touch(frame);
    this.add(record.asked, ips.map(canonical));
    this.bound(keyOf(frame));
  }

  /** Notes the answers a frame was given. */
  note(frame: FrameRef, results: readonly LookupResult[]): void {
    const found = results.filter((r) => r.status === 'found').map((r) => r.ip);
    if (!found.length) return;
    const record = this.touch(frame);
    this.add(record.told, found);
    this.bound(keyOf(frame));
  }

  /** Whether the frame was given a reputation for this IP. */
  wasTold(frame: FrameRef, ip: string): boolean {
    return this.frames.get(keyOf(frame))?.told.has(ip) ?? false;
  }

  /** Whether the frame asked about this IP with `cs:lookup` (its scanner found it on the page). */
  wasAsked(frame: FrameRef, ip: string): boolean {
    return this.frames.get(keyOf(frame))?.asked.has(canonical(ip)) ?? false;
  }

  /** Whether the frame asked about any IP that `matches` (e.g. one inside a block). */
  askedAny(frame: FrameRef, matches: (ip: string) => boolean): boolean {
    const asked = this.frames.get(keyOf(frame))?.asked;
    if (!asked) return false;
    for (const ip of asked) if (matches(ip)) return true;
    return false;
  }

  /** Writes a pending change now and resolves when it has landed (tests). */
  async flush(): Promise<void> {
    if (this.saveTimer !== null) {
      this.clock.clearTimeout(this.saveTimer);
      this.saveTimer = null;
      this.save();
    }
    await this.saving;
  }

  private touch(frame: FrameRef): FrameRecord {
    const key = keyOf(frame);
    let record = this.frames.get(key);
    if (record) this.frames.delete(key);
    else record = { asked: new Set(), told: new Set() };
    this.frames.set(key, record);
    return record;
  }

  private add(into: Set<string>, ips: readonly string[]): void {
    let added = 0;
    for (const ip of ips) {
      if (into.size >= MAX_IPS_PER_FRAME) break;
      if (into.has(ip)) continue;
      into.add(ip);
      added++;
    }
    this.total += added;
    if (added) this.scheduleSave();
  }

  /** Forgets the least recently active frames (never `keep`) until within both bounds. */
  private bound(keep: string | null): void {
    for (const key of this.frames.keys()) {
      if (this.frames.size <= MAX_FRAMES && this.total <= MAX_TOTAL_IPS) break;
      if (key === keep) continue;
      const record = this.frames.get(key)!;
      this.total -= record.asked.size + record.told.size;
      this.frames.delete(key);
    }
  }

  private scheduleSave(): void {
    if (!this.options.store || this.saveTimer !== null) return;
    this.saveTimer = this.clock.setTimeout(() => {
      this.saveTimer = null;
      this.save();
    }, SAVE_DELAY_MS);
  }

  /** One write at a time, each of the state at the moment it starts; a failed write stays in memory. */
  private save(): void {
    const store = this.options.store;
    if (!store) return;
    this.saving = this.saving
      .then(() =>
        store.save({
          v: STORED_VERSION,
          frames: [...this.frames].map(([key, r]) => [key, [...r.asked].join(' '), [...r.told].join(' ')]),
        } satisfies z.infer<typeof storedSchema>),
      )
      .catch(() => undefined);
  }
}
