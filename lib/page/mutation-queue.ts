/**
 * One MutationObserver for the document and every open shadow root we scan. Its callback only
 * stores the records and asks for a flush: consoles that re-render a table on every scroll
 * produce thousands of records, and doing work inside the callback would run it synchronously
 * in the page's own task (uBlock Origin's pattern). The flush runs in the next animation frame,
 * or on a slow timer while the tab is hidden (animation frames do not run then).
 *
 * The scheduled flush is itself bounded (issue 10, the mutation storm): it reads records for a
 * few milliseconds and leaves the rest to the next flush, because it runs inside the page's
 * rendering task, and a page replacing 10,000 nodes a frame made it read 10,000 added nodes
 * (a wrapper and an `isConnected` each) in that task. A record that replaces most of its
 * parent's children (`replaceChildren`, `innerHTML`) hands over the parent instead of each
 * child: one root whose walk the scanner slices, not thousands of roots read here.
 */

export interface MutationBatch {
  /** Added nodes and text nodes whose text changed, still in the page, in record order. */
  touched: Node[];
  /** Whether anything was removed (the store then drops ranges whose nodes left). */
  removed: boolean;
  /**
   * The records' lists of removed nodes (the lists, not copies: a storm's record removes
   * 10,000 nodes). The store looks under these when they are few (sweepDisconnected).
   */
  removedNodes: NodeList[];
}

export type FlushScheduler = (flush: () => void) => void;

/** rAF when visible, a 250 ms timer when hidden. */
export function frameScheduler(doc: Document = document): FlushScheduler {
  return (flush) => {
    if (doc.visibilityState === 'hidden') setTimeout(flush, 250);
    else requestAnimationFrame(() => flush());
  };
}

export interface MutationQueueOptions {
  /** Longest stretch of record reading in one scheduled flush, ms. */
  budgetMs?: number;
  /** Injectable for tests. */
  now?: () => number;
  /**
   * Tests: an observer that delivers records shaped as the DOM standard queues them (one
   * record for a whole `replaceChildren`), which happy-dom does not.
   */
  createObserver?: (callback: MutationCallback) => ObserverLike;
}

export type ObserverLike = Pick<MutationObserver, 'observe' | 'disconnect' | 'takeRecords'>;

/**
 * No budget by default: measured at the merge (bench page, live tail watched at the top, load
 * about 1), a 4 ms budget spread a React list's 20,000-record re-render over many frames, and
 * a new top row waited behind it: never marked before the next render in 13, 10 and 2 of 18
 * (main: 0, 2 and 1); 16 ms: 2, 2 and 11; none: 0, 2 and 0. The storm's own work stays under
 * 50 ms without it (25 ms, against 37 ms with 4 ms), because the parent handover below, not
 * the budget, removed its cost. `budgetMs` still bounds a flush where a caller asks for it.
 */
const FLUSH_BUDGET_MS = Number.POSITIVE_INFINITY;
/** Records or nodes read between two looks at the clock. */
const CLOCK_EVERY = 64;
/**
 * A record adding more nodes than this, which make up at least half of its parent's children,
 * hands over the parent (one walk) rather than each node.
 */
const MANY_ADDED = 32;

const OPTIONS: MutationObserverInit = { childList: true, subtree: true, characterData: true };

export class MutationQueue {
  private readonly observer: ObserverLike;
  private records: MutationRecord[] = [];
  /** The next record to read, and the next of its added nodes (a flush can stop inside one). */
  private head = 0;
  private nodeIndex = 0;
  private scheduled = false;
  private disposed = false;
  private readonly budgetMs: number;
  private readonly now: () => number;

  constructor(
    private readonly onBatch: (batch: MutationBatch) => void,
    private readonly schedule: FlushScheduler,
    options: MutationQueueOptions = {},
  ) {
    this.budgetMs = options.budgetMs ?? FLUSH_BUDGET_MS;
    this.now = options.now ?? (() => performance.now());
    const callback: MutationCallback = (records) => {
      // Only queue: no DOM reads, no allocation beyond the array push.
      for (const r of records) this.records.push(r);
      this.requestFlush();
    };
    this.observer = options.createObserver?.(callback) ?? new MutationObserver(callback);
  }

  observe(root: Node): void {
    this.observer.observe(root, OPTIONS);
  }

  /** Processes every pending record now (before answering the popup, or waiting for idle). */
  flush(): void {
    this.read(Infinity);
  }

  /** Records waiting to be read (tests). */
  get pending(): number {
    return this.records.length - this.head;
  }

  disconnect(): void {
    this.disposed = true;
    this.observer.disconnect();
    this.records = [];
    this.head = this.nodeIndex = 0;
  }

  /** The scheduled flush: reads for the budget, then asks for another flush if records remain. */
  private flushSlice(): void {
    this.scheduled = false;
    this.read(this.now() + this.budgetMs);
    if (this.pending > 0) this.requestFlush();
  }

  private read(deadline: number): void {
    if (this.disposed) return;
    for (const r of this.observer.takeRecords()) this.records.push(r);
    if (this.pending === 0) return;
    const touched: Node[] = [];
    const seen = new Set<Node>();
    let removed = false;
    const removedNodes: NodeList[] = [];
    const add = (node: Node): void => {
      if (seen.has(node) || !node.isConnected) return;
      const type = node.nodeType;
      if (type !== Node.TEXT_NODE && type !== Node.ELEMENT_NODE && !isShadowRoot(node)) return;
      seen.add(node);
      touched.push(node);
    };
    const { records } = this;
    let reads = 0;
    const outOfTime = () => ++reads % CLOCK_EVERY === 0 && this.now() >= deadline;
    reading: while (this.head < records.length) {
      const r = records[this.head]!;
      if (r.type === 'characterData') {
        add(r.target);
      } else {
        if (this.nodeIndex === 0 && r.removedNodes.length > 0) {
          removed = true;
          removedNodes.push(r.removedNodes);
        }
        const added = r.addedNodes;
        if (this.nodeIndex === 0 && replacesChildren(r)) {
          add(r.target);
        } else {
          for (; this.nodeIndex < added.length; this.nodeIndex++) {
            add(added[this.nodeIndex]!);
            if (outOfTime()) {
              this.nodeIndex++;
              break reading;
            }
          }
        }
      }
      this.nodeIndex = 0;
      // Released as read: a page that keeps mutating must not keep every record alive.
      records[this.head++] = undefined as unknown as MutationRecord;
      if (outOfTime()) break;
    }
    if (this.head >= records.length) {
      this.records = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > records.length) {
      this.records = records.slice(this.head);
      this.head = 0;
    }
    if (touched.length > 0 || removed) this.onBatch({ touched, removed, removedNodes });
  }

  private requestFlush(): void {
    if (this.scheduled || this.disposed) return;
    this.scheduled = true;
    this.schedule(() => this.flushSlice());
  }
}

function isShadowRoot(node: Node): boolean {
  return node.nodeType === Node.DOCUMENT_FRAGMENT_NODE && !!(node as ShadowRoot).host;
}

/**
 * Whether a childList record put in most of its parent's children (a re-render): then one walk
 * of the parent reads them, and this reads two lengths instead of every added node.
 */
function replacesChildren(r: MutationRecord): boolean {
  const count = r.addedNodes.length;
  if (count <= MANY_ADDED) return false;
  const target = r.target;
  if (target.nodeType !== Node.ELEMENT_NODE && !isShadowRoot(target)) return false;
  return count * 2 >= target.childNodes.length;
}
