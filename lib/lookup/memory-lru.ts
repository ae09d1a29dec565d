/**
 * A bounded least-recently-used map. JavaScript's Map keeps insertion order, so moving a key
 * to the end on every read makes the first key the least recently used one.
 */
export class MemoryLru<K, V> {
  private readonly map = new Map<K, V>();

  constructor(private maxEntries: number) {
    if (maxEntries < 1) throw new RangeError('MemoryLru needs room for at least one entry.');
  }

  get size(): number {
    return this.map.size;
  }

  /** Reads and marks as recently used. */
  get(key: K): V | undefined {
    const value = this.map.get(key);
    if (value === undefined) return undefined;
    this.map.delete(key);
    this.map.set(key, value);
    return value;
  }

  /** Reads without changing the order (status displays, tests). */
  peek(key: K): V | undefined {
    return this.map.get(key);
  }

  set(key: K, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    this.evict();
  }

  delete(key: K): boolean {
    return this.map.delete(key);
  }

  clear(): void {
    this.map.clear();
  }

  resize(maxEntries: number): void {
    if (maxEntries < 1) throw new RangeError('MemoryLru needs room for at least one entry.');
    this.maxEntries = maxEntries;
    this.evict();
  }

  keys(): IterableIterator<K> {
    return this.map.keys();
  }

  private evict(): void {
    while (this.map.size > this.maxEntries) {
      const oldest = this.map.keys().next();
      if (oldest.done) return;
      this.map.delete(oldest.value);
    }
  }
}
