/**
 * A Map from each key to a set of values, for bookkeeping kept per row of a page: which
 * occurrences an element carries, which elements a row holds, where an IP appears. Almost
 * every key has one value, and a `Set` per key cost ~120 bytes (the Set and its hash table);
 * on the 5,000-row storm page three of them per row were ~600 KB of the heap we added
 * (measured with test/bench/heap-summary.ts). So a lone value is kept inline, a few
 * in an array, and a Set is made only past FEW values.
 *
 * A key stays present with no value once its values all left (`remove`), until `deleteKey`:
 * the near tracker parks an element whose occurrences all left, and keeps what it knows about
 * it until the element is released.
 */

/**
 * A key with a few values keeps them in a plain array (values are never arrays themselves).
 * Making a Set for every key with a second value was the SetMaps' largest cost in the initial
 * scan of the 10,000-row table: ~23,000 of them (an IP seen again, a row's second
 * IP cell, a cell holding two IPs), each ~1 µs to make and ~120 bytes, where an array of two
 * is a few dozen. Past FEW values a Set takes over, so removing values stays O(1) for a key
 * with thousands of them (an IP on every row, an element holding 150,000).
 */
const FEW = 8;

/** The Set made for a key with more than FEW values; its own class, so a value is never taken for it. */
class Many<V> extends Set<V> {}

/** A key held with no value. */
const NONE: unique symbol = Symbol('none');

type Slot<V> = V | V[] | Many<V> | typeof NONE;

export class SetMap<K, V> {
  private slots = new Map<K, Slot<V>>();

  /** Whether the key is held, with values or without. */
  has(key: K): boolean {
    return this.slots.has(key);
  }

  add(key: K, value: V): void {
    const slot = this.slots.get(key);
    if (slot instanceof Many) slot.add(value);
    else if (Array.isArray(slot)) {
      if (slot.includes(value)) return;
      if (slot.length < FEW) slot.push(value);
      else this.slots.set(key, new Many<V>([...slot, value]));
    } else if (slot === NONE || (slot === undefined && !this.slots.has(key))) this.slots.set(key, value);
    else if (slot !== value) this.slots.set(key, [slot as V, value]);
  }

  /**
   * Takes one value from a key, which stays held (possibly with none, see `deleteKey`).
   * Returns how many values the key has left.
   */
  remove(key: K, value: V): number {
    let slot = this.slots.get(key);
    if (slot instanceof Many) {
      slot.delete(value);
      if (slot.size > FEW) return slot.size;
      // Back to an array, which the lines below shrink to a lone value or none.
      this.slots.set(key, (slot = [...slot]));
    }
    if (Array.isArray(slot)) {
      const at = slot.indexOf(value);
      if (at >= 0) slot.splice(at, 1);
      if (slot.length < 2) this.slots.set(key, slot.length ? slot[0]! : NONE);
      return slot.length;
    }
    if (slot === value && this.slots.has(key)) this.slots.set(key, NONE);
    return this.count(key);
  }

  /** Forgets the key and its values. */
  deleteKey(key: K): boolean {
    return this.slots.delete(key);
  }

  count(key: K): number {
    const slot = this.slots.get(key);
    if (Array.isArray(slot)) return slot.length;
    if (slot instanceof Many) return slot.size;
    if (slot === NONE) return 0;
    return slot === undefined && !this.slots.has(key) ? 0 : 1;
  }

  /** The key's values (none for a key not held). */
  *values(key: K): IterableIterator<V> {
    const slot = this.slots.get(key);
    if (Array.isArray(slot)) yield* slot as V[];
    else if (slot instanceof Many) yield* slot;
    else if (slot !== NONE && (slot !== undefined || this.slots.has(key))) yield slot as V;
  }

  keys(): IterableIterator<K> {
    return this.slots.keys();
  }

  /** How many keys are held. */
  get size(): number {
    return this.slots.size;
  }

  clear(): void {
    this.slots.clear();
  }

  /** Copies the map into one sized for what it holds now (see `compactMap`). */
  compact(): void {
    this.slots = compactMap(this.slots);
  }
}

/**
 * A copy of a map, its hash table sized for the entries it holds now. V8 grows a Map's table
 * when live plus deleted entries fill it, and shrinks it only below a quarter full: on the
 * 60k storm page each per-row map kept a 32,768-entry table (458 KB) for ~11,600 rows once the
 * storm's rows were gone; a copy takes 16,384 (229 KB). The page's code keeps the old one alive
 * only until it is collected.
 */
export function compactMap<K, V>(map: Map<K, V>): Map<K, V> {
  return new Map(map);
}
