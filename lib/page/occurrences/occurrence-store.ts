/**
 * Every IP found on the page, as ranges over the page's own text nodes. Indexed by text node
 * (to replace a node's matches when its text changes, and to hit-test), counted by IP (for the
 * popup and the lookups), and, for the occurrences given a range (those that came near the
 * viewport: only they can be marked), listed by IP to recolour them when a result arrives.
 */
import { TEXT_NODE } from '../scanning/dom-constants';
import type { IpMatch } from '../../ip/types';
import { compactMap, SetMap } from './set-map';

export interface Occurrence {
  node: Text;
  ip: string;
  version: 4 | 6;
  start: number;
  end: number;
  /**
   * The node's parent when its matches were read: the element it is tracked under, still known
   * once the node has left it (`textContent` replaced it).
   */
  parent: ParentNode | null;
  /**
   * Made on first use (`OccurrenceStore.rangeOf`): only marks near the viewport need one, and
   * making 40,000 of them took ~170 ms of a 10,000-row scan. StaticRange, not Range: live
   * Ranges are updated by the browser on every DOM mutation of their tree.
   */
  range?: AbstractRange;
}

/**
 * A text read far from the viewport: its IPs and the row it was read under, no
 * occurrences. Nearly all of a big page's text is far and never marked; making an occurrence
 * per IP and tracking each element was ~75 ms of the 10,000-row scan. The row is
 * tracked instead (NearTracker.trackRow) and read again, fully, when it comes near. Only the
 * IPs are kept (a lone one without an array): offsets are read again then, and the matches
 * array and its objects cost ~60 bytes more per text on the 60k storm page.
 *
 * No IPs: a whole row the page scan passed without reading its text (an unread row,
 * OccurrenceStore.holdUnreadRow), held under the row itself. It holds no address (a page of
 * 60,000 rows without IPs must not reach the limit on addresses; the scanner counts it as one
 * text node against the page limits instead) until the row comes near or the popup asks for the
 * page's list.
 */
export class FarText {
  readonly ips: string | readonly string[];
  constructor(
    matches: readonly IpMatch[],
    readonly row: Element,
  ) {
    this.ips = matches.length === 1 ? matches[0]!.ip : matches.map((m) => m.ip);
  }

  get size(): number {
    return typeof this.ips === 'string' ? 1 : this.ips.length;
  }

  /** The i-th IP. Read by index, not through an array made for the lone one: every far text is counted on the way in and out. */
  ip(i: number): string {
    return typeof this.ips === 'string' ? this.ips : this.ips[i]!;
  }

  /** Whether these matches hold the same IPs (counts would not change); never none (setMatches holds no empty text). */
  sameIps(matches: readonly IpMatch[]): boolean {
    return this.size === matches.length && matches.every((m, i) => m.ip === this.ip(i));
  }
}

export interface StoreChange {
  added: Occurrence[];
  removed: Occurrence[];
  farAdded: FarText[];
  farRemoved: FarText[];
}

export type RangeFactory = (node: Text, start: number, end: number) => AbstractRange;

export const staticRangeFactory: RangeFactory = (node, start, end) =>
  new StaticRange({ startContainer: node, startOffset: start, endContainer: node, endOffset: end });

/**
 * A text node's occurrences. Almost every node holds one, and an array for it cost ~28 bytes
 * per node (its header and its backing store), ~325 KB on the 60k storm page: a lone
 * occurrence is kept without one.
 */
type NodeSlot = Occurrence | Occurrence[] | FarText;

const NO_OCCURRENCES: readonly Occurrence[] = [];
const NO_MATCHES: readonly IpMatch[] = [];

function listOf(slot: NodeSlot | undefined): readonly Occurrence[] {
  if (slot === undefined || slot instanceof FarText) return NO_OCCURRENCES;
  return Array.isArray(slot) ? slot : [slot];
}

export class OccurrenceStore {
  /** Text nodes, and the rows held unread (holdUnreadRow). */
  private byNode = new Map<Node, NodeSlot>();
  /** Occurrences per IP. */
  private counts = new Map<string, number>();
  /**
   * The occurrences given a range, by IP. Not every occurrence: on the 10,000-row table
   * nearly all 40,000 are far and never get one, and each went into a per-IP set (2,913 Sets
   * of ~14) in the initial scan (docs/page-performance.md).
   * Most IPs appear once: a SetMap keeps a lone occurrence without a Set.
   */
  private readonly ranged = new SetMap<string, Occurrence>();
  private occurrences = 0;
  /** Nodes looked at by targeted sweeps since the last full one (see sweepDisconnected). */
  private visitedSinceFullSweep = 0;
  /** Rows held unread (FarText): the page's IP list lacks their addresses until they are read. Read-only outside. */
  unreadRows = 0;

  constructor(private readonly makeRange: RangeFactory = staticRangeFactory) {}

  /**
   * Replaces the occurrences of one text node with these matches (none: forgets the node).
   * With `farRow`, a node not held with occurrences is held as a FarText under that row.
   */
  setMatches(node: Text, matches: readonly IpMatch[], change: StoreChange, farRow?: Element | null): void {
    const old = this.byNode.get(node);
    if (old instanceof FarText) {
      if (farRow && old.row === farRow && old.sameIps(matches)) return;
      this.forgetNode(node, change);
    } else if (old) {
      // Same text as last time (React re-set the same value): keep the ranges, no churn.
      if (sameMatches(listOf(old), matches)) return;
      this.forgetNode(node, change);
      // Held with occurrences: its element is tracked already, it stays so.
      farRow = null;
    }
    if (matches.length === 0) return;
    if (farRow) return this.holdFar(node, new FarText(matches, farRow), change);
    // map(), not push(): an array grown by push from empty holds 17 slots, kept as long as the
    // node is on the page.
    const list = matches.map((m): Occurrence => ({ node, ip: m.ip, version: m.version, start: m.start, end: m.end, parent: node.parentNode }));
    for (const occ of list) {
      this.count(occ.ip);
      change.added.push(occ);
    }
    this.byNode.set(node, list.length === 1 ? list[0]! : list);
    this.occurrences += list.length;
  }

  private holdFar(node: Node, far: FarText, change: StoreChange): void {
    const size = far.size;
    for (let i = 0; i < size; i++) this.count(far.ip(i));
    this.byNode.set(node, far);
    this.occurrences += size;
    if (!size) this.unreadRows++;
    change.farAdded.push(far);
  }

  /**
   * Holds a row the page scan passed unread (see FarText), under the row itself: the page may
   * replace any of its texts meanwhile (each read on its own by the mutation path), the row
   * stays unread until it is read whole (forgetNode(row): the scanner's walk reads it).
   */
  holdUnreadRow(row: Element, change: StoreChange): void {
    if (!this.byNode.has(row)) this.holdFar(row, new FarText(NO_MATCHES, row), change);
  }

  /**
   * A row held unread is read now (whole): it is let go. Anything else held stays. Asked for
   * every root a scan starts from (a live tail queues thousands of texts a second): no lookup
   * while no row is held.
   */
  readRow(node: Node, change: StoreChange): void {
    if (!this.unreadRows) return;
    const slot = this.byNode.get(node);
    if (slot instanceof FarText && !slot.size) this.forgetNode(node, change);
  }

  rangeOf(occ: Occurrence): AbstractRange {
    if (occ.range) return occ.range;
    occ.range = this.makeRange(occ.node, occ.start, occ.end);
    // Listed for recolouring only while held: one the store forgot must not stay listed.
    if (this.holds(occ)) this.ranged.add(occ.ip, occ);
    return occ.range;
  }

  /** Whether the occurrence is still held (read without wrapping a lone one in an array: rangeOf runs for every mark near the viewport). */
  private holds(occ: Occurrence): boolean {
    const slot = this.byNode.get(occ.node);
    return slot === occ || (Array.isArray(slot) && slot.includes(occ));
  }

  forgetNode(node: Node, change: StoreChange): void {
    const slot = this.byNode.get(node);
    if (!slot) return;
    this.byNode.delete(node);
    if (slot instanceof FarText) {
      const size = slot.size;
      this.occurrences -= size;
      if (!size) this.unreadRows--;
      for (let i = 0; i < size; i++) this.uncount(slot.ip(i));
      change.farRemoved.push(slot);
      return;
    }
    const list = listOf(slot);
    this.occurrences -= list.length;
    for (const occ of list) {
      this.uncount(occ.ip);
      if (occ.range && this.ranged.remove(occ.ip, occ) === 0) this.ranged.deleteKey(occ.ip);
      change.removed.push(occ);
    }
  }

  private count(ip: string): void {
    this.counts.set(ip, (this.counts.get(ip) ?? 0) + 1);
  }

  private uncount(ip: string): void {
    const left = this.counts.get(ip)! - 1;
    if (left > 0) this.counts.set(ip, left);
    else this.counts.delete(ip);
  }

  /** Whether the store holds the node, with occurrences or as a far text. */
  hasNode(node: Text): boolean {
    return this.byNode.has(node);
  }

  /**
   * Drops every node that is no longer in the document (or in a connected shadow tree).
   *
   * `removed` (the nodes a batch of mutation records took out): when they are few compared
   * with what is held, only the text under them is looked at, and a removed text the store
   * does not hold costs one map lookup. A page that removes one status line next to 50,000
   * held cells then costs a few lookups, not 50,000 `isConnected` reads every frame. Many
   * removed nodes, or a walk under them that grows past what is held, sweep the held nodes
   * instead: either way the work is bounded by what is held.
   *
   * A held text moved out of a removed subtree in a later task (into a detached node: no
   * record says so) is not under any removed node. The nodes the targeted sweeps visit add
   * up, and once they reach what is held the next sweep is a full one: such leftovers are
   * dropped within a bounded amount of work.
   */
  sweepDisconnected(change: StoreChange, removed?: readonly ArrayLike<Node>[]): void {
    const held = this.byNode.size;
    if (removed && this.visitedSinceFullSweep < held) {
      let count = 0;
      for (const list of removed) count += list.length;
      if (count * 4 <= held && this.sweepUnder(removed, held, change)) return;
    }
    this.visitedSinceFullSweep = 0;
    this.forgetWhere((node) => !node.isConnected, change);
  }

  /**
   * Forgets the held texts under these nodes that left the page; false (stopped) once it has
   * visited `budget` nodes. Iterative: a removed subtree may be page-sized and deep.
   */
  private sweepUnder(removed: readonly ArrayLike<Node>[], budget: number, change: StoreChange): boolean {
    const stack: Node[] = [];
    for (const list of removed) for (let i = 0; i < list.length; i++) stack.push(list[i]!);
    let visited = 0;
    while (stack.length > 0) {
      const node = stack.pop()!;
      if (++visited > budget) {
        this.visitedSinceFullSweep += visited;
        return false;
      }
      // A text, or a row held unread.
      if (this.byNode.has(node) && !node.isConnected) this.forgetNode(node, change);
      if (node.nodeType === TEXT_NODE) continue;
      for (let child = node.firstChild; child; child = child.nextSibling) stack.push(child);
      const shadow = (node as Element).shadowRoot;
      if (shadow) stack.push(shadow);
    }
    this.visitedSinceFullSweep += visited;
    return true;
  }

  /** Drops every node `drop` picks. */
  forgetWhere(drop: (node: Node) => boolean, change: StoreChange): void {
    // Deleting the entry being visited is safe in a Map iteration; no copy of the keys.
    for (const node of this.byNode.keys()) if (drop(node)) this.forgetNode(node, change);
  }

  /** The text nodes (and unread rows) held, in the order they were first held (live: safe across changes). */
  nodes(): IterableIterator<Node> {
    return this.byNode.keys();
  }

  /** Resizes the indexes to what they hold (after many removals: see `compactMap`). */
  compact(): void {
    this.byNode = compactMap(this.byNode);
    this.counts = compactMap(this.counts);
    this.ranged.compact();
  }

  occurrencesOfNode(node: Text): readonly Occurrence[] {
    return listOf(this.byNode.get(node));
  }

  /**
   * The occurrences of an IP that have a range (see rangeOf): every one that can be in a
   * highlight, not those never near the viewport.
   */
  rangedOccurrencesOfIp(ip: string): IterableIterator<Occurrence> {
    return this.ranged.values(ip);
  }

  ips(): IterableIterator<string> {
    return this.counts.keys();
  }

  countOf(ip: string): number {
    return this.counts.get(ip) ?? 0;
  }

  /** Addresses held, all nodes together. */
  get occurrenceCount(): number {
    return this.occurrences;
  }

  get ipCount(): number {
    return this.counts.size;
  }
}

function sameMatches(old: readonly Occurrence[], matches: readonly IpMatch[]): boolean {
  if (old.length !== matches.length) return false;
  return old.every((o, i) => {
    const m = matches[i]!;
    return o.ip === m.ip && o.start === m.start && o.end === m.end;
  });
}

export function emptyChange(): StoreChange {
  return { added: [], removed: [], farAdded: [], farRemoved: [] };
}

/** Entries a change holds, far texts included. */
export function changeSize(change: StoreChange): number {
  return change.added.length + change.removed.length + change.farAdded.length + change.farRemoved.length;
}
