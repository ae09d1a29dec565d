/**
 * The per-page cap on automatic lookups: a log view with ten thousand distinct IPs must not
 * spend ten thousand quota units because someone opened it. Each page (tab + frame +
 * document) may send at most `max` distinct IPs to the API automatically; IPs the cache
 * answers are free and not counted.
 *
 * The counts outlive the service worker, which MV3 stops after 30 s idle: otherwise every open
 * page would get a fresh cap each time it wakes. They are saved a moment after they change (one
 * write for a burst of lookups) and restored before the first lookup. Only the numbers are
 * saved, not the IPs, so the stored state stays one small entry per page: after a restart, an
 * IP a page had already sent counts again if the cache cannot answer it (it failed, or
 * expired), which errs on the side of the quota.
 */
import { z } from '../zod';
import type { Clock, TimerHandle } from './clock';
import { MemoryLru } from './memory-lru';

/** Pages remembered at once; the least recently active ones are forgotten first. */
const MAX_PAGES = 500;
/** How long a write waits for more changes. */
const SAVE_DELAY_MS = 1_000;
const STORED_VERSION = 1;

/** Where the counts are kept between worker runs (storage.session in the browser). */
export interface PageCapStore {
  load(): Promise<unknown>;
  save(value: unknown): Promise<void>;
}

export interface PageCapOptions {
  clock: Clock;
  store?: PageCapStore;
}

interface PageCount {
  /** IPs counted by an earlier worker run: known by number only. */
  restored: number;
  /** IPs counted since, by name: asking again costs the page nothing. */
  sent: Set<string>;
}

const storedSchema = z.object({
  v: z.literal(STORED_VERSION),
  /** [page, count], least recently active first. */
  pages: z.array(z.tuple([z.string().max(300), z.number().int().nonnegative()])).max(MAX_PAGES),
});

const countOf = (page: PageCount) => page.restored + page.sent.size;

export class PageCap {
  private readonly pages = new MemoryLru<string, PageCount>(MAX_PAGES);
  private saveTimer: TimerHandle | null = null;
  private saving: Promise<void> = Promise.resolve();

  constructor(
    private max: number,
    private readonly options: PageCapOptions,
  ) {}

  setMax(max: number): void {
    this.max = max;
  }

  /**
   * Loads the counts saved by an earlier worker run; call before the first admit(). Never
   * rejects: missing or unreadable counts start from zero (at most one more cap's worth).
   */
  async restore(): Promise<void> {
    let raw: unknown;
    try {
      raw = await this.options.store?.load();
    } catch {
      return;
    }
    const parsed = storedSchema.safeParse(raw);
    if (!parsed.success) return;
    for (const [source, count] of parsed.data.pages) {
      // A page already counted in this run is at least as recent as what was stored.
      if (!this.pages.peek(source)) this.pages.set(source, { restored: count, sent: new Set() });
    }
  }

  /** Splits `ips` into those this page may still send and those over its cap. */
  admit(source: string, ips: readonly string[]): { admitted: string[]; capped: string[] } {
    let page = this.pages.get(source);
    if (!page) {
      page = { restored: 0, sent: new Set() };
      this.pages.set(source, page);
    }
    const admitted: string[] = [];
    const capped: string[] = [];
    let counted = false;
    for (const ip of ips) {
      if (page.sent.has(ip)) admitted.push(ip); // already counted: asking again costs the page nothing
      else if (countOf(page) < this.max) {
        page.sent.add(ip);
        admitted.push(ip);
        counted = true;
      } else capped.push(ip);
    }
    if (counted) this.scheduleSave();
    return { admitted, capped };
  }

  /** IPs counted for a page (status, tests). */
  countOf(source: string): number {
    const page = this.pages.peek(source);
    return page ? countOf(page) : 0;
  }

  /** Writes a pending change now and resolves when it has landed (tests, shutdown). */
  async flush(): Promise<void> {
    if (this.saveTimer !== null) {
      this.options.clock.clearTimeout(this.saveTimer);
      this.saveTimer = null;
      this.save();
    }
    await this.saving;
  }

  private scheduleSave(): void {
    if (!this.options.store || this.saveTimer !== null) return;
    this.saveTimer = this.options.clock.setTimeout(() => {
      this.saveTimer = null;
      this.save();
    }, SAVE_DELAY_MS);
  }

  /** One write at a time, each of the state at the moment it starts. */
  private save(): void {
    const store = this.options.store;
    if (!store) return;
    this.saving = this.saving
      .then(() => store.save({ v: STORED_VERSION, pages: this.snapshot() }))
      .catch(() => undefined); // a failed write leaves the counts in memory; the next change retries
  }

  private snapshot(): [string, number][] {
    const out: [string, number][] = [];
    for (const source of this.pages.keys()) {
      const count = countOf(this.pages.peek(source)!);
      if (count > 0) out.push([source, count]);
    }
    return out;
  }
}
