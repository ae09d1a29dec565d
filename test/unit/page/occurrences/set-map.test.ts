import { describe, expect, it } from 'vitest';
import { SetMap } from '@/lib/page/occurrences/set-map';

describe('SetMap', () => {
  it('holds values per key like a Map of Sets', () => {
    const m = new SetMap<string, object>();
    const [a, b, c] = [{}, {}, {}];
    m.add('k', a);
    m.add('k', a); // a Set: adding twice holds it once
    expect(m.count('k')).toBe(1);
    expect([...m.values('k')]).toEqual([a]);
    m.add('k', b);
    m.add('k', c);
    expect(m.count('k')).toBe(3);
    expect([...m.values('k')]).toEqual([a, b, c]);
    expect(m.remove('k', b)).toBe(2);
    expect(m.remove('k', a)).toBe(1);
    expect([...m.values('k')]).toEqual([c]);
    expect(m.remove('k', c)).toBe(0);
    expect([...m.values('other')]).toEqual([]);
    expect(m.count('other')).toBe(0);
  });

  it('keeps a key whose values all left until deleteKey (a parked element)', () => {
    const m = new SetMap<string, number>();
    m.add('k', 1);
    expect(m.remove('k', 1)).toBe(0);
    expect(m.has('k')).toBe(true);
    expect([...m.values('k')]).toEqual([]);
    expect(m.remove('k', 1)).toBe(0);
    expect(m.deleteKey('k')).toBe(true);
    expect(m.has('k')).toBe(false);
    expect(m.size).toBe(0);
  });

  it('removing a value a key does not hold changes nothing', () => {
    const m = new SetMap<string, number>();
    m.add('k', 1);
    expect(m.remove('k', 2)).toBe(1);
    m.add('k', 3);
    expect(m.remove('k', 2)).toBe(2);
    expect([...m.values('k')].sort()).toEqual([1, 3]);
    expect(m.remove('absent', 1)).toBe(0);
    expect(m.has('absent')).toBe(false);
  });

  it('a value that is itself a Set is a value, not the internal set', () => {
    const m = new SetMap<string, Set<number>>();
    const s = new Set([1, 2]);
    m.add('k', s);
    expect(m.count('k')).toBe(1);
    expect([...m.values('k')]).toEqual([s]);
  });

  it('matches a Map of Sets over a random sequence of operations', () => {
    agreesWithModel({ seed: 7, keys: 20, values: 5, pick: (rand) => (['add', 'remove', 'delete'] as const)[rand(3)]! });
  });

  it('keeps no Set for a key with one value (the point: memory per row)', () => {
    const m = new SetMap<number, object>();
    for (let i = 0; i < 100; i++) m.add(i, {});
    const slots = (m as unknown as { slots: Map<number, unknown> }).slots;
    expect([...slots.values()].some((v) => v instanceof Set)).toBe(false);
  });

  it('keeps a few values per key without a Set, and makes one past eight (cost per row)', () => {
    const m = new SetMap<number, object>();
    const slots = (m as unknown as { slots: Map<number, unknown> }).slots;
    const values = Array.from({ length: 9 }, () => ({}));
    for (const v of values.slice(0, 8)) m.add(0, v);
    m.add(0, values[0]!);
    expect(slots.get(0)).not.toBeInstanceOf(Set);
    expect(m.count(0)).toBe(8);
    expect([...m.values(0)]).toEqual(values.slice(0, 8));
    m.add(0, values[8]!);
    expect(slots.get(0)).toBeInstanceOf(Set);
    expect([...m.values(0)]).toEqual(values);
    for (const v of values.slice(1)) m.remove(0, v);
    expect(slots.get(0)).toBe(values[0]);
    m.add(1, values[0]!);
    m.add(1, values[1]!);
    expect(m.remove(1, values[0]!)).toBe(1);
    expect(slots.get(1)).toBe(values[1]);
    expect(m.remove(1, values[1]!)).toBe(0);
    expect(m.has(1)).toBe(true);
    expect([...m.values(1)]).toEqual([]);
  });

  it('matches a Map of Sets when keys grow past a few values and shrink again', () => {
    // Few keys, many values, deletions rare: keys cross the array / Set boundary both ways.
    agreesWithModel({ seed: 11, keys: 4, values: 14, pick: (rand) => {
      const op = rand(5);
      return op <= 1 ? 'add' : op <= 3 ? 'remove' : rand(10) === 0 ? 'delete' : null;
    } });
  });
});

type Op = 'add' | 'remove' | 'delete' | null;

/** Random operations on a SetMap and on a Map of Sets (the model); after each, both agree. */
function agreesWithModel(o: { seed: number; keys: number; values: number; pick: (rand: (n: number) => number) => Op }): void {
  const m = new SetMap<number, number>();
  const model = new Map<number, Set<number>>();
  let seed = o.seed;
  const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
  const sorted = (values: Iterable<number>) => [...values].sort((a, b) => a - b);
  for (let i = 0; i < 5_000; i++) {
    const [k, v, op] = [rand(o.keys), rand(o.values), o.pick(rand)];
    if (op === 'add') {
      m.add(k, v);
      if (!model.has(k)) model.set(k, new Set());
      model.get(k)!.add(v);
    } else if (op === 'remove') {
      const left = m.remove(k, v);
      model.get(k)?.delete(v);
      expect(left).toBe(model.get(k)?.size ?? 0);
    } else if (op === 'delete') {
      m.deleteKey(k);
      model.delete(k);
    }
    expect(m.has(k)).toBe(model.has(k));
    expect(m.count(k)).toBe(model.get(k)?.size ?? 0);
    expect(sorted(m.values(k))).toEqual(sorted(model.get(k) ?? []));
  }
  expect(m.size).toBe(model.size);
}
