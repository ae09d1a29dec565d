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
 *
 * A frame that brings thousands of records (a live tail re-rendering 5,000 rows: 20,000) is
 * not read in that frame at all when the caller gives `onBigFrame` (issue 16, live16e): the
 * caller rescans only what is on screen, so a new top row is marked before that frame's
 * layout, and the records are read in a task after the paint. A frame that comes before that
 * task reads them itself; each record is read once either way.
 *
 * A container rebuilt with thousands of nodes is handed over, with what the rebuild removed,
 * 250 ms later if not rebuilt again meanwhile; rebuilt frame after frame (the storm), only once
 * it has gone quiet (storm-watch.ts). While it storms, the observer watches around it, not
 * under it (`observationPlan`), and again as before once it is quiet; records pending at each
 * switch are taken first, not dropped.
 */
import { observationPlan, stormWatch, SUBTREE, type StormWatch } from './storm-watch';

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
  /**
   * Nodes were removed where nothing observed them: a storming container is not observed
   * (storm-watch.ts), so the rows it held when its storm began left unseen. The store then
   * sweeps all it holds: a scan queued before the storm had read and tracked rows there, kept
   * (and observed) after the page dropped them (bench page-memory, 10k page: 1,395 rows).
   */
  removalsUnseen?: true;
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
  /**
   * Called instead of reading when one scheduled flush finds at least `BIG_FRAME_RECORDS`
   * records (and no earlier big frame's read is still owed): the caller rescans what is on
   * screen now, and the records are read after the paint (`afterPaint`). Without it every
   * flush reads what it finds.
   */
  onBigFrame?: () => void;
  /** Runs a task after the current frame is painted; a 0 ms timer by default (tests inject). */
  afterPaint?: (task: () => void) => void;
  /**
   * setTimeout by default (tests inject): when a rebuilt container is looked at again, and the
   * flush while one storms.
   */
  setTimer?: (run: () => void, ms: number) => void;
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
/**
 * A rebuild bringing at least this many nodes can make its container a storm (storm-watch.ts):
 * the storm brings 5,000 rows, a virtualised grid's re-render on scroll (kibana-discover.html)
 * tens, and those must be read in the frame they come.
 */
const STORM_MIN_ADDED = 1_000;

/**
 * Records in one frame from which their reading waits for the paint (with `onBigFrame`). A
 * live tail's re-render is 4 records a row (20,000 for 5,000 events); an app adding a few rows
 * or editing cells brings tens. Traced on live-tail.html (tail16c): reading and sorting a
 * render's 20,000 records took 60-500 ms inside the frame that first paints the new top row.
 */
export const BIG_FRAME_RECORDS = 1_000;

export class MutationQueue {
  private readonly observer: ObserverLike;
  private records: MutationRecord[] = [];
  /** The next record to read, and the next of its added nodes (a flush can stop inside one). */
  private head = 0;
  private nodeIndex = 0;
  private scheduled = false;
  private disposed = false;
  private readonly budgetMs: number;
  private readonly onBigFrame: (() => void) | undefined;
  private readonly afterPaint: (task: () => void) => void;
  private readonly now: () => number;
  /**
   * Records (from `head`) a big frame left for the after-paint task; 0 when none is owed. The
   * task reads only these: records of a later render stay for their own frame.
   */
  private deferred = 0;
  /** Whether a rebuilt container storms (storm-watch.ts). */
  private readonly rebuilds: StormWatch;
  /**
   * What the big rebuilds of a container (not yet handed over) removed: handed over with the
   * container, or swept when it starts storming, in a task of ours. Not in the page's frame:
   * removed rows show no mark anyway, and their sweep was 5-7 ms of a storm's first frames.
   */
  private readonly rebuildRemovals = new Map<Node, NodeList[]>();
  private readonly setTimer: (run: () => void, ms: number) => void;
  /**
   * What `observe` was given (the document, shadow roots): observed again at each switch.
   * Weakly, as the observer holds them: a page may make and drop thousands of shadow roots.
   */
  private roots: WeakRef<Node>[] = [];
  private readonly observed = new WeakSet<Node>();
  /** When `roots` is next cleared of the dropped ones (amortised: at twice its live size). */
  private pruneAt = 64;
  /** The storming containers' ancestors, observed `childList` only (observationPlan). */
  private path = new Set<Node>();
  /** Whether a read found the plan out of date (a storm began, an ancestor's children changed). */
  private replan = false;

  constructor(
    private readonly onBatch: (batch: MutationBatch) => void,
    private readonly schedule: FlushScheduler,
    options: MutationQueueOptions = {},
  ) {
    this.budgetMs = options.budgetMs ?? FLUSH_BUDGET_MS;
    this.now = options.now ?? (() => performance.now());
    this.onBigFrame = options.onBigFrame;
    this.afterPaint = options.afterPaint ?? ((task) => setTimeout(task, 0));
    const setTimer = (this.setTimer = options.setTimer ?? ((run, ms) => setTimeout(run, ms)));
    this.rebuilds = stormWatch({
      now: this.now,
      setTimer,
      onStorm: (root) => {
        this.replan = true;
        // What the rebuilds removed, swept in a task of ours (the store sweeps all it holds).
        setTimer(() => {
          if (this.disposed || !this.rebuildRemovals.delete(root)) return;
          this.onBatch({ touched: [], removed: true, removedNodes: [], removalsUnseen: true });
        }, 0);
      },
      onQuiet: (root) => {
        if (this.disposed) return;
        this.reobserve();
        this.rebuildRemovals.delete(root);
        this.onBatch({ touched: root.isConnected ? [root] : [], removed: true, removedNodes: [], removalsUnseen: true });
      },
      // In a task of its own, not the page's frame, with what its rebuild removed.
      onSettled: (root) => {
        const removedNodes = this.rebuildRemovals.get(root) ?? [];
        this.rebuildRemovals.delete(root);
        if (this.disposed) return;
        this.onBatch({ touched: root.isConnected ? [root] : [], removed: removedNodes.length > 0, removedNodes });
      },
    });
    const callback: MutationCallback = (records) => {
      // Only queue: no DOM reads, no allocation beyond the array push.
      for (const r of records) this.records.push(r);
      this.requestFlush();
    };
    this.observer = options.createObserver?.(callback) ?? new MutationObserver(callback);
  }

  observe(root: Node): void {
    // Once: observing a storm's root again would replace the options observed around it.
    if (this.observed.has(root)) return;
    this.observed.add(root);
    this.roots.push(new WeakRef(root));
    if (this.roots.length >= this.pruneAt) this.pruneAt = 2 * this.liveRoots().length + 64;
    this.observer.observe(root, SUBTREE);
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
    this.deferred = 0;
    this.roots = [];
    this.path.clear();
    this.rebuildRemovals.clear();
  }

  /**
   * Observes again: around the storming containers, or as before when there are none. The
   * records the observer holds are taken first (disconnect drops them) and read by a flush.
   */
  private reobserve(): void {
    this.replan = false;
    this.takeRecords();
    this.observer.disconnect();
    const plan = observationPlan(this.liveRoots(), this.rebuilds.containers());
    this.path = plan.path;
    for (const [node, options] of plan.calls) this.observer.observe(node, options);
    if (this.pending > 0) this.requestFlush();
  }

  /** The roots still alive; the dropped ones' references are let go. */
  private liveRoots(): Node[] {
    const live: Node[] = [];
    this.roots = this.roots.filter((ref) => {
      const root = ref.deref();
      if (root) live.push(root);
      return !!root;
    });
    return live;
  }

  /**
   * The scheduled flush: reads for the budget, then asks for another flush if records remain.
   * A big frame is left to a task after the paint (see `onBigFrame`), unless one is owed
   * already: then this frame reads everything, the owed records first.
   */
  private flushSlice(): void {
    this.scheduled = false;
    if (this.disposed) return;
    this.takeRecords();
    if (this.onBigFrame && this.deferred === 0 && this.pending >= BIG_FRAME_RECORDS) {
      this.deferred = this.pending;
      this.onBigFrame();
      this.afterPaint(() => this.readDeferred());
      return;
    }
    this.read(this.now() + this.budgetMs);
    if (this.pending > 0) this.requestFlush();
  }

  /** The after-paint task: the big frame's records, if no frame has read them meanwhile. */
  private readDeferred(): void {
    if (this.deferred === 0 || this.disposed) return;
    this.read(Infinity, this.head + this.deferred);
  }

  private takeRecords(): void {
    for (const r of this.observer.takeRecords()) this.records.push(r);
  }

  /** Reads records up to `deadline` (ms) or up to index `end` (exclusive), whichever first. */
  private read(deadline: number, end = Infinity): void {
    if (this.disposed) return;
    if (end === Infinity) this.takeRecords();
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
    const startHead = this.head;
    let reads = 0;
    const outOfTime = () => ++reads % CLOCK_EVERY === 0 && this.now() >= deadline;
    const stop = Math.min(end, records.length);
    reading: while (this.head < stop) {
      const r = records[this.head]!;
      if (r.type === 'characterData') {
        add(r.target);
      } else {
        // A storming container's ancestor gained or lost children: observe the new ones.
        if (this.path.has(r.target)) this.replan = true;
        const added = r.addedNodes;
        const rebuild = this.nodeIndex === 0 && replacesChildren(r);
        if (rebuild && added.length >= STORM_MIN_ADDED) {
          // A big rebuild is read once it is known not to storm, a storm's once it is quiet
          // (storm-watch.ts): its rows may live a frame.
          if (r.removedNodes.length > 0) {
            const lists = this.rebuildRemovals.get(r.target);
            if (lists) lists.push(r.removedNodes);
            else this.rebuildRemovals.set(r.target, [r.removedNodes]);
          }
          this.rebuilds(r.target);
        } else if (this.nodeIndex === 0 && r.removedNodes.length > 0) {
          removed = true;
          removedNodes.push(r.removedNodes);
        }
        if (rebuild) {
          if (added.length < STORM_MIN_ADDED) add(r.target);
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
    // What was owed to the after-paint task and is read now (by it, or by a frame before it).
    this.deferred = Math.max(0, this.deferred - (this.head - startHead));
    if (this.head >= records.length) {
      this.records = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > records.length) {
      this.records = records.slice(this.head);
      this.head = 0;
    }
    // Before the batch: what it hands over is read after its new observers are in place.
    if (this.replan) this.reobserve();
    if (touched.length > 0 || removed) this.onBatch({ touched, removed, removedNodes });
  }

  /**
   * In the next animation frame, so marks are painted with the text that brought them; while a
   * container storms, in a task of ours instead: the page's frames are then each ~45 ms of its
   * own rebuild, and our flush (0.5-0.7 ms for the storm fixture's counter) pushed some of them
   * past 50 ms. A change elsewhere during a storm is marked a frame later.
   */
  private requestFlush(): void {
    if (this.scheduled || this.disposed) return;
    this.scheduled = true;
    if (this.rebuilds.storming()) this.setTimer(() => this.flushSlice(), 0);
    else this.schedule(() => this.flushSlice());
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
