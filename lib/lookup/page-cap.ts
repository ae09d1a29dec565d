/**
 * The cap on automatic lookups, as an analyst reads it: a log view with ten thousand distinct
 * IPs must not spend ten thousand quota units because someone opened it, and neither can a
 * hostile or merely busy site by splitting itself up.
 *
 * - Per tab and site: every frame of a tab counts together under the site of the tab's top
 *   page (iframes cannot multiply the cap), and a reload or navigation within the site keeps
 *   counting in the same window of WINDOW_MS (reloads cannot reset it).
 * - Per site and day: all tabs of a site together stop at a daily ceiling (more tabs cannot
 *   multiply the cap either).
 * - Past the cap, the analyst may look up exactly the IPs it held back (the popup's "Look up the
 *   rest", `allowChosen`); the site's daily ceiling still applies.
 *
 * IPs the cache answers are free and not counted; an IP counted once in a window is free to
 * ask again in it. The counts outlive the service worker (MV3 stops it after 30 s idle): they
 * are saved a moment after they change and restored before the first lookup. The tabs' counts
 * go to `store` (storage.session: tabs end with the browser); the sites' daily counts go to
 * `siteStore` when given (storage.local: a browser restart must not reset a site's day, which
 * ends SITE_DAY_MS after its first lookup). Only numbers are
 * saved, not IPs, so after a restart an IP already counted counts again if the cache cannot
 * answer it, which errs on the side of the quota.
 */
import { z } from '../zod';
import type { Clock, TimerHandle } from './clock';
import { MemoryLru } from './memory-lru';
import { loadOrNothing, type StoredValue } from './stored-value';

/** How long a tab's count for its site lasts (reloads included). */
export const PAGE_CAP_WINDOW_MS = 60 * 60_000;
/** How long a site's daily count lasts, from its first lookup. */
export const SITE_DAY_MS = 24 * 60 * 60_000;
/** Tabs and sites remembered at once; the least recently active ones are forgotten first. */
const MAX_PAGES = 500;
const MAX_SITES = 500;
/** How long a write waits for more changes. */
const SAVE_DELAY_MS = 1_000;
const STORED_VERSION = 2;
const SITES_VERSION = 1;

/** Where the counts are kept between worker runs (storage.session in the browser). */
export type PageCapStore = StoredValue;

export interface PageCapOptions {
  clock: Clock;
  store?: PageCapStore;
  /** Where the sites' daily counts are kept instead of `store` (storage.local in the browser). */
  siteStore?: PageCapStore;
}

export interface PageCapLimits {
  /** IPs one tab may send for one site in a window (the "per-page cap" setting). */
  perWindow: number;
  /** IPs all tabs of a site may send in a day. */
  perSiteDay: number;
}

/** What the popup shows for the current tab. */
export interface PageCapUsage {
  site: string;
  used: number;
  cap: number;
  siteUsed: number;
  siteCap: number;
  /** Epoch ms when this tab's window ends (null: nothing counted yet). */
  windowEndsAt: number | null;
}

/** What admit() decided, and which cap refused what (the page shows it). */
export interface Admitted {
  admitted: string[];
  /** Every IP over a cap. */
  capped: string[];
  /** Those of `capped` the tab's cap would have let through: the site's daily ceiling stopped them. */
  overCeiling: string[];
  /** The tab's cap and the site's ceiling that applied (lifts included). */
  pageCap: number;
  siteCap: number;
}

interface Counter {
  start: number;
  /** IPs counted by an earlier worker run: known by number only. */
  restored: number;
  /** IPs counted since, by name: asking again in the window costs nothing. */
  sent: Set<string>;
  /** Room added by lifting the cap. */
  extra: number;
}

const counterSchema = z.tuple([
  z.string().max(400),
  z.number(), // start
  z.number().int().nonnegative(), // count
  z.number().int().nonnegative(), // extra
]);
const storedSchema = z.object({
  v: z.literal(STORED_VERSION),
  /** Least recently active first. */
  pages: z.array(counterSchema).max(MAX_PAGES),
  sites: z.array(counterSchema).max(MAX_SITES),
});

const sitesSchema = z.object({
  v: z.literal(SITES_VERSION),
  /** Least recently active first. */
  sites: z.array(counterSchema).max(MAX_SITES),
});

const countOf = (c: Counter) => c.restored + c.sent.size;

export class PageCap {
  private readonly pages = new MemoryLru<string, Counter>(MAX_PAGES);
  private readonly sites = new MemoryLru<string, Counter>(MAX_SITES);
  private saveTimer: TimerHandle | null = null;
  private saving: Promise<void> = Promise.resolve();

  constructor(
    private limits: PageCapLimits,
    private readonly options: PageCapOptions,
  ) {}

  setLimits(limits: PageCapLimits): void {
    this.limits = limits;
  }

  /**
   * Loads the counts saved by an earlier worker run; call before the first admit(). Never
   * rejects: missing or unreadable counts start from zero (at most one more cap's worth).
   */
  async restore(): Promise<void> {
    const [raw, rawSites] = await Promise.all([loadOrNothing(this.options.store), loadOrNothing(this.options.siteStore)]);
    const load = (into: MemoryLru<string, Counter>, rows: z.infer<typeof counterSchema>[]) => {
      for (const [key, start, count, extra] of rows) {
        // A key already counted in this run is at least as recent as what was stored.
        if (!into.peek(key)) into.set(key, { start, restored: count, sent: new Set(), extra });
      }
    };
    const parsed = storedSchema.safeParse(raw);
    if (parsed.success) {
      load(this.pages, parsed.data.pages);
      // Sites from `store` only when they live there (or moved from there: an older version).
      load(this.sites, parsed.data.sites);
    }
    const sites = sitesSchema.safeParse(rawSites);
    if (sites.success) load(this.sites, sites.data.sites);
  }

  /**
   * Splits `ips` into those the tab (`source`: tab and site) may still send and those over a
   * cap. `site` defaults to `source` (callers without a site, such as tests).
   */
  admit(source: string, ips: readonly string[], site: string = source): Admitted {
    const page = this.current(this.pages, source, PAGE_CAP_WINDOW_MS);
    const day = this.current(this.sites, site, SITE_DAY_MS);
    const admitted: string[] = [];
    const capped: string[] = [];
    const overCeiling: string[] = [];
    const pageCap = this.limits.perWindow + page.extra;
    const siteCap = this.limits.perSiteDay + day.extra;
    let counted = false;
    for (const ip of ips) {
      if (page.sent.has(ip)) {
        admitted.push(ip); // already counted in this window: asking again costs the page nothing
        continue;
      }
      const pageFull = countOf(page) >= pageCap;
      if (!pageFull && (day.sent.has(ip) || countOf(day) < siteCap)) {
        page.sent.add(ip);
        day.sent.add(ip);
        admitted.push(ip);
        counted = true;
      } else {
        capped.push(ip);
        if (!pageFull) overCeiling.push(ip);
      }
    }
    if (counted) this.scheduleSave();
    return { admitted, capped, overCeiling, pageCap, siteCap };
  }

  /**
   * IPs the analyst chose to look up past the tab's cap: the tab makes room for exactly these
   * (they do not eat its automatic allowance), but the site's daily ceiling holds. Those it
   * lets through are counted, so an automatic ask for them afterwards is free.
   */
  allowChosen(source: string, ips: readonly string[], site: string = source): { allowed: string[]; overCeiling: string[]; siteCap: number } {
    const page = this.current(this.pages, source, PAGE_CAP_WINDOW_MS);
    const day = this.current(this.sites, site, SITE_DAY_MS);
    const siteCap = this.limits.perSiteDay + day.extra;
    const allowed: string[] = [];
    const overCeiling: string[] = [];
    for (const ip of ips) {
      if (page.sent.has(ip)) allowed.push(ip);
      else if (day.sent.has(ip) || countOf(day) < siteCap) {
        page.sent.add(ip);
        page.extra += 1;
        day.sent.add(ip);
        allowed.push(ip);
      } else overCeiling.push(ip);
    }
    if (allowed.length) this.scheduleSave();
    return { allowed, overCeiling, siteCap };
  }

  usage(source: string, site: string = source): PageCapUsage {
    const now = this.options.clock.now();
    const page = this.live(this.pages.peek(source), PAGE_CAP_WINDOW_MS, now);
    const day = this.live(this.sites.peek(site), SITE_DAY_MS, now);
    const used = page ? countOf(page) : 0;
    const cap = this.limits.perWindow + (page?.extra ?? 0);
    const siteUsed = day ? countOf(day) : 0;
    const siteCap = this.limits.perSiteDay + (day?.extra ?? 0);
    return {
      site,
      used,
      cap,
      siteUsed,
      siteCap,
      windowEndsAt: page ? page.start + PAGE_CAP_WINDOW_MS : null,
    };
  }


  /** IPs counted for a tab and site in its window (status, tests). */
  countOf(source: string): number {
    const page = this.live(this.pages.peek(source), PAGE_CAP_WINDOW_MS, this.options.clock.now());
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

  private live(counter: Counter | undefined, lengthMs: number, now: number): Counter | undefined {
    return counter && now - counter.start < lengthMs && now >= counter.start ? counter : undefined;
  }

  /** The counter of `key` in its current window, a new one when the last has ended. */
  private current(into: MemoryLru<string, Counter>, key: string, lengthMs: number): Counter {
    const now = this.options.clock.now();
    let counter = this.live(into.get(key), lengthMs, now);
    if (!counter) {
      counter = { start: now, restored: 0, sent: new Set(), extra: 0 };
      into.set(key, counter);
    }
    return counter;
  }

  private scheduleSave(): void {
    if ((!this.options.store && !this.options.siteStore) || this.saveTimer !== null) return;
    this.saveTimer = this.options.clock.setTimeout(() => {
      this.saveTimer = null;
      this.save();
    }, SAVE_DELAY_MS);
  }

  /** One write at a time, each of the state at the moment it starts. */
  private save(): void {
    const { store, siteStore } = this.options;
    const pages = rows(this.pages);
    const sites = rows(this.sites);
    this.saving = this.saving
      .then(() =>
        Promise.all([
          store?.save({ v: STORED_VERSION, pages, sites: siteStore ? [] : sites }),
          siteStore?.save({ v: SITES_VERSION, sites }),
        ]),
      )
      .then(() => undefined)
      .catch(() => undefined); // a failed write leaves the counts in memory; the next change retries
  }
}

function rows(from: MemoryLru<string, Counter>): [string, number, number, number][] {
  const out: [string, number, number, number][] = [];
  for (const key of from.keys()) {
    const c = from.peek(key)!;
    if (countOf(c) > 0 || c.extra > 0) out.push([key, c.start, countOf(c), c.extra]);
  }
  return out;
}
