import { describe, expect, it } from 'vitest';
import { PAGE_CAP_WINDOW_MS, PageCap, SITE_DAY_MS, type PageCapStore } from '../../../lib/lookup/page-cap';
import { createManualClock } from './helpers/manual-clock';

/** A store that keeps what was saved (as storage.session would: a structured copy) and counts writes. */
function memoryStore(initial?: unknown) {
  const store = {
    value: initial,
    saves: 0,
    async load() {
      return structuredClone(store.value);
    },
    async save(value: unknown) {
      store.saves++;
      store.value = structuredClone(value);
    },
  };
  return store;
}

const ips = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `23.0.${Math.floor((from + i) / 250)}.${(from + i) % 250}`);
const limits = (perWindow: number, perSiteDay = 1_000_000) => ({ perWindow, perSiteDay });

describe('PageCap', () => {
  it('admits at most the cap of distinct IPs per tab and site; asking again costs nothing', () => {
    const cap = new PageCap(limits(3), { clock: createManualClock() });
    expect(cap.admit('1|a.example', ['a', 'b'], 'a.example')).toMatchObject({ admitted: ['a', 'b'], capped: [] });
    expect(cap.admit('1|a.example', ['b', 'c', 'd', 'a'], 'a.example')).toEqual({ admitted: ['b', 'c', 'a'], capped: ['d'], overCeiling: [], pageCap: 3, siteCap: 1_000_000 });
    expect(cap.countOf('1|a.example')).toBe(3);
  });

  it('counts each tab apart and follows new limits', () => {
    const cap = new PageCap(limits(1), { clock: createManualClock() });
    expect(cap.admit('1|s', ['a', 'b'], 's').capped).toEqual(['b']);
    expect(cap.admit('2|s', ['b'], 's').admitted).toEqual(['b']);
    cap.setLimits(limits(2));
    expect(cap.admit('1|s', ['b'], 's').admitted).toEqual(['b']);
  });

  it('a tab window lasts an hour: the same tab and site then starts afresh', async () => {
    const clock = createManualClock();
    const cap = new PageCap(limits(2), { clock });
    cap.admit('1|s', ips(3), 's');
    await clock.advance(PAGE_CAP_WINDOW_MS - 1);
    expect(cap.admit('1|s', ips(1, 10), 's').capped).toHaveLength(1);
    await clock.advance(1);
    expect(cap.countOf('1|s')).toBe(0);
    expect(cap.admit('1|s', ips(3, 10), 's').admitted).toHaveLength(2);
  });

  it('all tabs of a site stop at the daily ceiling; IPs already counted for the site are free for it', async () => {
    const clock = createManualClock();
    const cap = new PageCap(limits(10, 25), { clock });
    let admitted = 0;
    for (let tab = 1; tab <= 5; tab++) admitted += cap.admit(`${tab}|s`, ips(10, tab * 10), 's').admitted.length;
    expect(admitted).toBe(25);
    // Another tab asking for IPs the site already sent: they cost the site nothing more.
    expect(cap.admit('9|s', ips(5, 10), 's').admitted).toHaveLength(5);
    // Another site is not concerned.
    expect(cap.admit('1|t', ips(10), 't').admitted).toHaveLength(10);
    await clock.advance(SITE_DAY_MS);
    expect(cap.admit('7|s', ips(10, 500), 's').admitted).toHaveLength(10);
  });

  it("says which cap refused an IP: the tab's cap, or the site's daily ceiling, with the limit that applied", () => {
    const cap = new PageCap(limits(3, 4), { clock: createManualClock() });
    expect(cap.admit('1|s', ips(5), 's')).toEqual({ admitted: ips(3), capped: ips(2, 3), overCeiling: [], pageCap: 3, siteCap: 4 });
    // Tab 2 has room under its own cap, but the site has one lookup left today.
    expect(cap.admit('2|s', ips(3, 10), 's')).toEqual({ admitted: ips(1, 10), capped: ips(2, 11), overCeiling: ips(2, 11), pageCap: 3, siteCap: 4 });
  });

  it('shows used / cap per window and the daily ceiling', async () => {
    const clock = createManualClock();
    const cap = new PageCap(limits(3, 4), { clock });
    expect(cap.usage('1|s', 's')).toMatchObject({ used: 0, cap: 3, siteUsed: 0, siteCap: 4, windowEndsAt: null });
    cap.admit('1|s', ips(5), 's');
    expect(cap.usage('1|s', 's')).toMatchObject({ used: 3, cap: 3, siteUsed: 3, siteCap: 4 });
    await clock.advance(PAGE_CAP_WINDOW_MS);
    expect(cap.usage('1|s', 's')).toMatchObject({ used: 0, cap: 3, siteUsed: 3 });
  });

  it('saves the counts a moment after they change, one write for a burst', async () => {
    const clock = createManualClock();
    const store = memoryStore();
    const cap = new PageCap(limits(10), { clock, store });
    cap.admit('1|s', ['a', 'b'], 's');
    cap.admit('2|s', ['c'], 's');
    cap.admit('1|s', ['a'], 's'); // nothing new: no write needed for it
    await clock.advance(999);
    expect(store.saves).toBe(0);
    await clock.advance(1);
    expect(store.saves).toBe(1);
    const start = clock.now() - 1_000;
    expect(store.value).toEqual({ v: 2, pages: [['2|s', start, 1, 0], ['1|s', start, 2, 0]], sites: [['s', start, 3, 0]] });
    cap.admit('1|s', ['a', 'b'], 's'); // only IPs already counted
    await clock.advance(5_000);
    expect(store.saves).toBe(1);
  });

  it('a restarted worker restores the counts, so neither a tab nor its site gets a fresh cap', async () => {
    const clock = createManualClock();
    const store = memoryStore();
    const before = new PageCap(limits(3, 4), { clock, store });
    before.admit('1|s', ['a', 'b'], 's');
    await before.flush();

    const after = new PageCap(limits(3, 4), { clock, store });
    await after.restore();
    expect(after.countOf('1|s')).toBe(2);
    expect(after.admit('1|s', ['c', 'd'], 's')).toMatchObject({ admitted: ['c'], capped: ['d'] });
    expect(after.admit('2|s', ['d', 'e'], 's')).toMatchObject({ admitted: ['d'], capped: ['e'] });
  });

  it('a site\'s daily count outlives a browser restart in its own store; the tabs\' counts do not', async () => {
    const clock = createManualClock();
    const session = memoryStore();
    const local = memoryStore();
    const before = new PageCap(limits(3, 4), { clock, store: session, siteStore: local });
    before.admit('1|s', ['a', 'b', 'c'], 's');
    await before.flush();
    expect(local.value).toEqual({ v: 1, sites: [['s', clock.now(), 3, 0]] });
    expect((session.value as { sites: unknown[] }).sites).toEqual([]);

    // The browser restarts: storage.session is empty, storage.local is not.
    await clock.advance(2 * PAGE_CAP_WINDOW_MS);
    const after = new PageCap(limits(3, 4), { clock, store: memoryStore(), siteStore: local });
    await after.restore();
    expect(after.admit('1|s', ['d', 'e'], 's')).toEqual({ admitted: ['d'], capped: ['e'], overCeiling: ['e'], pageCap: 3, siteCap: 4 });
    expect(after.usage('1|s', 's')).toMatchObject({ used: 1, siteUsed: 4, siteCap: 4 });

    // The site's day ends a day after its first lookup, restart or not.
    await clock.advance(SITE_DAY_MS);
    const nextDay = new PageCap(limits(3, 4), { clock, store: memoryStore(), siteStore: local });
    await nextDay.restore();
    expect(nextDay.admit('1|s', ['e', 'f', 'g'], 's').capped).toEqual([]);
  });

  it('keeps at most 500 tabs, stored and in memory, forgetting the least recently active', async () => {
    const clock = createManualClock();
    const store = memoryStore();
    const cap = new PageCap(limits(5), { clock, store });
    for (let tab = 0; tab <= 500; tab++) cap.admit(`${tab}|s`, ['a'], 's');
    await cap.flush();
    const { pages } = store.value as { pages: [string, number, number, number][] };
    expect(pages).toHaveLength(500);
    expect(pages[0]?.[0]).toBe('1|s');
    expect(cap.countOf('0|s')).toBe(0);
  });

  it.each([
    ['nothing stored', undefined],
    ['an older version', { v: 1, pages: [['1|s', 3]] }],
    ['a corrupted list', { v: 2, pages: [['1|s', 0, -1, 0]], sites: [] }],
    ['not an object', 'garbage'],
    ['too many tabs', { v: 2, pages: Array.from({ length: 501 }, (_, i) => [`${i}|s`, 0, 1, 0]), sites: [] }],
  ])('starts from zero on %s', async (_name, stored) => {
    const cap = new PageCap(limits(2), { clock: createManualClock(), store: memoryStore(stored) });
    await cap.restore();
    expect(cap.countOf('1|s')).toBe(0);
    expect(cap.admit('1|s', ['a', 'b'], 's').capped).toEqual([]);
  });

  it('a store that fails to load or save never fails the cap', async () => {
    const clock = createManualClock();
    const failing: PageCapStore = {
      load: () => Promise.reject(new Error('no storage.session')),
      save: () => Promise.reject(new Error('quota')),
    };
    const cap = new PageCap(limits(2), { clock, store: failing });
    await expect(cap.restore()).resolves.toBeUndefined();
    expect(cap.admit('1|s', ips(3), 's').capped).toHaveLength(1);
    await clock.advance(1_000);
    await expect(cap.flush()).resolves.toBeUndefined();
    expect(cap.countOf('1|s')).toBe(2);
  });

  it('without a store sets no timers', () => {
    const clock = createManualClock();
    const cap = new PageCap(limits(2), { clock });
    cap.admit('1|s', ['a'], 's');
    expect(clock.pending()).toBe(0);
  });
});
