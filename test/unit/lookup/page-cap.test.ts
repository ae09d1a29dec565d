import { describe, expect, it } from 'vitest';
import { PageCap, type PageCapStore } from '../../../lib/lookup/page-cap';
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

describe('PageCap', () => {
  it('admits at most max distinct IPs per page; asking again costs nothing', () => {
    const cap = new PageCap(3, { clock: createManualClock() });
    expect(cap.admit('1:0:a', ['a', 'b'])).toEqual({ admitted: ['a', 'b'], capped: [] });
    expect(cap.admit('1:0:a', ['b', 'c', 'd', 'a'])).toEqual({ admitted: ['b', 'c', 'a'], capped: ['d'] });
    expect(cap.countOf('1:0:a')).toBe(3);
  });

  it('counts each page apart and follows a new max', () => {
    const cap = new PageCap(1, { clock: createManualClock() });
    expect(cap.admit('1:0:a', ['a', 'b']).capped).toEqual(['b']);
    expect(cap.admit('2:0:b', ['b']).admitted).toEqual(['b']);
    cap.setMax(2);
    expect(cap.admit('1:0:a', ['b']).admitted).toEqual(['b']);
  });

  it('saves the counts a moment after they change, one write for a burst', async () => {
    const clock = createManualClock();
    const store = memoryStore();
    const cap = new PageCap(10, { clock, store });
    cap.admit('1:0:a', ['a', 'b']);
    cap.admit('2:0:b', ['c']);
    cap.admit('1:0:a', ['a']); // nothing new: no write needed for it
    await clock.advance(999);
    expect(store.saves).toBe(0);
    await clock.advance(1);
    expect(store.saves).toBe(1);
    expect(store.value).toEqual({ v: 1, pages: [['2:0:b', 1], ['1:0:a', 2]] });
    cap.admit('1:0:a', ['a', 'b']); // only IPs already counted
    await clock.advance(5_000);
    expect(store.saves).toBe(1);
  });

  it('a restarted worker restores the counts, so an open page does not get a fresh cap', async () => {
    const clock = createManualClock();
    const store = memoryStore();
    const before = new PageCap(3, { clock, store });
    before.admit('1:0:a', ['a', 'b']);
    await before.flush();

    const after = new PageCap(3, { clock, store });
    await after.restore();
    expect(after.countOf('1:0:a')).toBe(2);
    expect(after.admit('1:0:a', ['c', 'd'])).toEqual({ admitted: ['c'], capped: ['d'] });
    expect(after.admit('2:0:b', ['d']).admitted).toEqual(['d']);
    await after.flush();
    expect(store.value).toEqual({ v: 1, pages: [['1:0:a', 3], ['2:0:b', 1]] });
  });

  it('keeps at most 500 pages, stored and in memory, forgetting the least recently active', async () => {
    const clock = createManualClock();
    const store = memoryStore();
    const cap = new PageCap(5, { clock, store });
    for (let page = 0; page <= 500; page++) cap.admit(`${page}:0:doc`, ['a']);
    await cap.flush();
    const { pages } = store.value as { pages: [string, number][] };
    expect(pages).toHaveLength(500);
    expect(pages[0]).toEqual(['1:0:doc', 1]);
    expect(cap.countOf('0:0:doc')).toBe(0);
  });

  it.each([
    ['nothing stored', undefined],
    ['another version', { v: 2, pages: [['1:0:a', 3]] }],
    ['a corrupted list', { v: 1, pages: [['1:0:a', -1]] }],
    ['not an object', 'garbage'],
    ['too many pages', { v: 1, pages: Array.from({ length: 501 }, (_, i) => [`${i}:0:a`, 1]) }],
  ])('starts from zero on %s', async (_name, stored) => {
    const cap = new PageCap(2, { clock: createManualClock(), store: memoryStore(stored) });
    await cap.restore();
    expect(cap.countOf('1:0:a')).toBe(0);
    expect(cap.admit('1:0:a', ['a', 'b']).capped).toEqual([]);
  });

  it('a store that fails to load or save never fails the cap', async () => {
    const clock = createManualClock();
    const failing: PageCapStore = {
      load: () => Promise.reject(new Error('no storage.session')),
      save: () => Promise.reject(new Error('quota')),
    };
    const cap = new PageCap(2, { clock, store: failing });
    await expect(cap.restore()).resolves.toBeUndefined();
    expect(cap.admit('1:0:a', ips(3)).capped).toHaveLength(1);
    await clock.advance(1_000);
    await expect(cap.flush()).resolves.toBeUndefined();
    expect(cap.countOf('1:0:a')).toBe(2);
  });

  it('without a store sets no timers', () => {
    const clock = createManualClock();
    const cap = new PageCap(2, { clock });
    cap.admit('1:0:a', ['a']);
    expect(clock.pending()).toBe(0);
  });
});
