/**
 * A first-in first-out set of subtrees waiting to be scanned. It holds page nodes, so it must
 * not keep alive those that left the page (a console that re-renders forever removes more rows
 * than we scan): once it has grown to twice its size after the last sweep, it drops
 * the disconnected ones, so its memory follows what is still in the page.
 */
const MIN_SWEEP = 1024;

export class ScanQueue {
  private items: Node[] = [];
  private head = 0;
  private readonly members = new Set<Node>();
  private sweepAt = MIN_SWEEP;

  get size(): number {
    return this.items.length - this.head;
  }

  has(node: Node): boolean {
    return this.members.has(node);
  }

  push(node: Node): void {
    if (this.members.has(node)) return;
    this.members.add(node);
    this.items.push(node);
    if (this.size >= this.sweepAt) this.sweep();
  }

  /** The oldest node, or undefined when empty. */
  shift(): Node | undefined {
    if (this.head >= this.items.length) return undefined;
    const node = this.items[this.head]!;
    this.items[this.head++] = undefined as unknown as Node;
    // Compact now and then: shift() on a big array is O(n) each time, the head index is not.
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    this.members.delete(node);
    return node;
  }

  clear(): void {
    this.items = [];
    this.head = 0;
    this.members.clear();
    this.sweepAt = MIN_SWEEP;
  }

  /** Drops nodes that left the page. */
  sweep(): void {
    const kept: Node[] = [];
    for (let i = this.head; i < this.items.length; i++) {
      const node = this.items[i]!;
      if (node.isConnected) kept.push(node);
      else this.members.delete(node);
    }
    this.items = kept;
    this.head = 0;
    this.sweepAt = Math.max(MIN_SWEEP, kept.length * 2);
  }
}
