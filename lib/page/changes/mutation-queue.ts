/**
 * One MutationObserver for the document and every open shadow root we scan. Its callback only
 * stores the records and asks for a flush: consoles that re-render a table on every scroll
 * produce thousands of records, and doing work inside the callback would run it synchronously
 * in the page's own task (uBlock Origin's pattern). The flush runs in the next animation frame,
 * or on a slow timer while the tab is hidden (animation frames do not run then).
 *
 * The scheduled flush is itself bounded: it reads records for a
 * few milliseconds and leaves the rest to the next flush, because it runs inside the page's
 * rendering task, and a page replacing 10,000 nodes a frame made it read 10,000 added nodes
 * (a wrapper and an `isConnected` each) in that task. A record that replaces most of its
 * parent's children (`replaceChildren`, `innerHTML`) hands over the parent instead of each
 * child: one root whose walk the scanner slices, not thousands of roots read here.
 *
 * A frame that brings thousands of records (a live tail re-rendering 5,000 rows: 20,000) is
 * not read in that frame at all when the caller gives `onBigFrame`: the
 * caller rescans only what is on screen, so a new top row is marked before that frame's
 * layout, and the records are owed to tasks after the paint, each reading for `OWED_SLICE_MS`
 * (read in one task, they were a long task of ours every render). Later frames read
 * their own records, not the owed ones, and a later big frame is owed too, up to
 * `MAX_OWED_RECORDS`: past it, that frame reads what is owed first (memory stays bounded). Each
 * record is read once either way.
 *
 * A container rebuilt with thousands of nodes is handed over, with what the rebuild removed,
 * 250 ms later if not rebuilt again meanwhile; rebuilt frame after frame (the storm), only once
 * it has gone quiet (storm-watch.ts). While it storms, the observer watches around it, not
 * under it (`observationPlan`), and again as before once it is quiet; records pending at each
 * switch are taken first, not dropped.
 *
 * A list under which big frames come again and again (a live tail re-rendering every second)
 * is observed by its window (live12): the rows near the screen with the full
 * options, the list itself `childList` only, the rest of its rows not at all. A subtree
 * observer over the whole list made Blink build the render's 20,000 records (and a transient
 * registration for each text node removed) inside the page's own render task: its CPU 29 ms
 * alone, 47.5 ms with only such an observer (live-tail-floor.ts). The rows out of the window are
 * read again every `TAIL_REREAD_MS` in the background, and as they come into the window; a
 * list whose window saw no change for that long is observed as before.
 */
import { MAX_OBSERVE_CALLS, observationPlan, stormWatch, SUBTREE, windowRows, type StormWatch } from './storm-watch';

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
  /**
   * The nodes are re-rendered lists read again because their rows out of the window changed
   * unseen (a tail): not news the analyst watches, read with the whole-page scan's priority.
   */
  reread?: true;
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
   * records: the caller rescans what is on screen now, and the records are read after the
   * paint (`afterPaint`), a slice a task. Without it every flush reads what it finds.
   */
  onBigFrame?: () => void;
  /** Runs a task after the current frame is painted; a 0 ms timer by default (tests inject). */
  afterPaint?: (task: () => void) => void;
  /**
   * setTimeout by default (tests inject): when a rebuilt container is looked at again, and the
   * flush while one storms.
   */
  setTimer?: (run: () => void, ms: number) => void;
  /**
   * The rows on screen at the last viewport sample: with it, a list re-rendered again and again
   * is observed by its window around them (a tail; see `moveWindow`). Without it, never.
   */
  screenRows?: () => Iterable<Node>;
  /**
   * Whether a text whose data changed is worth handing over (it may hold an address now, or
   * held one before). Without it, every changed text is.
   */
  textMatters?: (text: Text) => boolean;
}

export type ObserverLike = Pick<MutationObserver, 'observe' | 'disconnect' | 'takeRecords'>;

/**
 * No budget by default: with a 4 ms budget (bench page, live tail watched at the top, load
 * about 1) a React list's 20,000-record re-render was spread over many frames, and a new top
 * row waited behind it: never marked before the next render in 13, 10 and 2 of 18;
 * 16 ms: 2, 2 and 11; none: 0, 2 and 0. The storm's own work stays under
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
 * or editing cells brings tens. Traced on live-tail.html: reading and sorting a
 * render's 20,000 records took 60-500 ms inside the frame that first paints the new top row.
 */
export const BIG_FRAME_RECORDS = 1_000;

/**
 * Reading owed records, per task after the paint, ms. The live tail's 20,000 records and the
 * batch they make (nearness, queueing, the sweep of what they removed) took 50-90 ms in one
 * task at load ~10 (bench page-profile, live tail): a long task, counted whole against us.
 */
export const OWED_SLICE_MS = 8;

/**
 * Records owed from which a big frame reads them in the frame. On a busy page the tasks after
 * the paint fall behind a live tail (a logging build, load ~6, scrolled: 1,000-18,000 of a
 * render's 20,000 still owed at the next render, 8 times in 9), and reading them in that
 * frame put 30-40 ms of ours into the page's longest task. Two and a half such renders.
 */
export const MAX_OWED_RECORDS = 50 * BIG_FRAME_RECORDS;

/** Two big frames under one list within this make it a tail (the live tail renders every 1 s). */
export const TAIL_ENTER_MS = 2_500;
/** How often a tail's rows are read again in the background, and its window's quiet checked. */
export const TAIL_REREAD_MS = 5_000;
/** Children a list needs to be a tail: with fewer, its window is most of it. */
export const TAIL_MIN_ROWS = 100;

/**
 * A list observed by its window: the rows observed, and when a change was last seen under it.
 * One at a time (a second re-rendered list is observed as before): a console tails one log.
 */
interface Tail {
  list: Node;
  rows: Node[];
  seen: number;
}

/** Records in arrival order, read from `head`; a read can stop inside one (`nodeIndex`). */
class RecordList {
  items: MutationRecord[] = [];
  head = 0;
  nodeIndex = 0;

  get size(): number {
    return this.items.length - this.head;
  }

  /** Releases what was read: a page that keeps mutating must not keep every record alive. */
  compact(): void {
    if (this.head >= this.items.length) {
      this.items = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
  }

  /** Moves every unread record of `from` to the end of this list (adopting them when empty). */
  take(from: RecordList): void {
    if (this.size === 0) {
      this.items = from.items;
      this.head = from.head;
      this.nodeIndex = from.nodeIndex;
    } else {
      // A record `from` stopped inside is read again whole: its nodes are scanned twice at worst.
      for (let i = from.head; i < from.items.length; i++) this.items.push(from.items[i]!);
    }
    from.items = [];
    from.head = from.nodeIndex = 0;
  }
}

export class MutationQueue {
  private readonly observer: ObserverLike;
  /** Records to read in the next frame. */
  private records = new RecordList();
  /** Big frames' records, owed to the tasks after the paint (readOwed). */
  private owed = new RecordList();
  /** Whether a task after the paint is posted to read owed records. */
  private owedTask = false;
  private scheduled = false;
  private disposed = false;
  private readonly budgetMs: number;
  private readonly onBigFrame: (() => void) | undefined;
  private readonly afterPaint: (task: () => void) => void;
  private readonly now: () => number;
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
  private readonly screenRows: (() => Iterable<Node>) | undefined;
  private readonly textMatters: ((text: Text) => boolean) | undefined;
  /** The list the last big frame came under, and when (a second one soon makes it a tail). */
  private lastBigFrame: [list: Node, at: number] | undefined;
  private tail: Tail | undefined;

  constructor(
    private readonly onBatch: (batch: MutationBatch) => void,
    private readonly schedule: FlushScheduler,
    options: MutationQueueOptions = {},
  ) {
    this.budgetMs = options.budgetMs ?? FLUSH_BUDGET_MS;
    this.now = options.now ?? (() => performance.now());
    this.onBigFrame = options.onBigFrame;
    this.afterPaint = options.afterPaint ?? ((task) => setTimeout(task, 0));
    this.setTimer = options.setTimer ?? ((run, ms) => setTimeout(run, ms));
    this.screenRows = options.screenRows;
    this.textMatters = options.textMatters;
    this.rebuilds = stormWatch({
      now: this.now,
      setTimer: this.setTimer,
      onStorm: (root) => {
        this.replan = true;
        // What the rebuilds removed, swept in a task of ours (the store sweeps all it holds).
        this.setTimer(() => {
          if (this.disposed || !this.rebuildRemovals.delete(root)) return;
          this.handOverWhole(null);
        }, 0);
      },
      onQuiet: (root) => {
        if (this.disposed) return;
        this.reobserve();
        this.rebuildRemovals.delete(root);
        this.handOverWhole(root);
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
      for (const r of records) this.records.items.push(r);
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
    this.read(this.owed, Infinity);
    this.read(this.records, Infinity);
  }

  /** Records waiting to be read, owed ones included (tests). */
  get pending(): number {
    return this.records.size + this.owed.size;
  }

  disconnect(): void {
    this.disposed = true;
    this.observer.disconnect();
    this.records = new RecordList();
    this.owed = new RecordList();
    this.roots = [];
    this.path.clear();
    this.rebuildRemovals.clear();
    this.tail = undefined;
    this.lastBigFrame = undefined;
  }

  /**
   * The screen moved (a new viewport sample), or the page added or removed rows of the tail
   * (new events at its top): the tail's window follows, and its rows new to the window are
   * read (their text may have changed while they were not observed).
   */
  moveWindow(): void {
    const tail = this.tail;
    if (this.disposed || !tail) return;
    const before = new Set(tail.rows);
    tail.rows = windowRows(tail.list, this.screenRows!());
    const fresh = tail.rows.filter((row) => !before.delete(row) && row.isConnected);
    if (!fresh.length && !before.size) return;
    this.reobserve();
    if (fresh.length) this.onBatch({ touched: fresh, removed: false, removedNodes: [] });
  }

  /**
   * A big frame: the lowest element holding the targets of its records a quarter and three
   * quarters in is the list re-rendered (not its first or last: a page updates a counter
   * beside the list before or after rendering it, live-rerender.html's "Renders: n"); a second
   * big frame under it within `TAIL_ENTER_MS` makes it the tail.
   */
  private noteBigFrame(records: RecordList): void {
    const { items, head, size } = records;
    const list = commonAncestor(items[head + (size >> 2)]!.target, items[head + ((3 * size) >> 2)]!.target);
    if (this.tail || list?.nodeType !== Node.ELEMENT_NODE || list.childNodes.length < TAIL_MIN_ROWS) return;
    const t = this.now();
    const last = this.lastBigFrame;
    this.lastBigFrame = [list, t];
    if (last?.[0] !== list || t - last[1] > TAIL_ENTER_MS) return;
    this.tail = { list, rows: windowRows(list, this.screenRows!()), seen: t };
    this.reobserve();
    this.setTimer(() => this.rereadTail(), TAIL_REREAD_MS);
  }

  /**
   * Every `TAIL_REREAD_MS`: the tail is handed over whole (its rows out of the window changed
   * unseen; what they held is swept); if its window saw no change meanwhile it stopped
   * re-rendering, and is observed as before from now on.
   */
  private rereadTail(): void {
    const tail = this.tail;
    if (this.disposed || !tail) return;
    const { list } = tail;
    if (!list.isConnected || this.now() - tail.seen >= TAIL_REREAD_MS) {
      this.tail = undefined;
      this.reobserve();
    } else this.setTimer(() => this.rereadTail(), TAIL_REREAD_MS);
    this.handOverWhole(list, true);
  }

  /**
   * Hands `root` over to be read whole (when still in the page; null: nothing to read), with a
   * sweep of everything the store holds: what it lost was not seen (a storm's or a tail's rows
   * out of observation). `reread`: a tail's rows read again, not news (see MutationBatch).
   */
  private handOverWhole(root: Node | null, reread?: true): void {
    const touched = root?.isConnected ? [root] : [];
    this.onBatch({ touched, removed: true, removedNodes: [], removalsUnseen: true, ...(reread ? { reread } : {}) });
  }

  /**
   * Observes again: around the storming containers, or as before when there are none. The
   * records the observer holds are taken first (disconnect drops them) and read by a flush.
   */
  private reobserve(): void {
    this.replan = false;
    this.takeRecords();
    this.observer.disconnect();
    const tail = this.tail;
    const plan = observationPlan(this.liveRoots(), this.rebuilds.containers(), MAX_OBSERVE_CALLS, tail && [tail.list, tail.rows]);
    this.path = plan.path;
    for (const [node, options] of plan.calls) this.observer.observe(node, options);
    if (this.records.size > 0) this.requestFlush();
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
   * A big frame is owed to tasks after the paint (see `onBigFrame`), after what is owed from
   * earlier ones; past MAX_OWED_RECORDS those are read first, here.
   */
  private flushSlice(): void {
    this.scheduled = false;
    if (this.disposed) return;
    this.takeRecords();
    if (this.onBigFrame && this.records.size >= BIG_FRAME_RECORDS) {
      if (this.screenRows) this.noteBigFrame(this.records);
      if (this.owed.size + this.records.size > MAX_OWED_RECORDS) this.read(this.owed, Infinity);
      this.owed.take(this.records);
      this.onBigFrame();
      this.postOwedTask();
      return;
    }
    this.read(this.records, this.now() + this.budgetMs);
    if (this.records.size > 0) this.requestFlush();
  }

  private postOwedTask(): void {
    if (this.owedTask) return;
    this.owedTask = true;
    this.afterPaint(() => this.readOwed());
  }

  /** A task after the paint: owed records for OWED_SLICE_MS, and another task for the rest. */
  private readOwed(): void {
    this.owedTask = false;
    if (this.disposed) return;
    this.read(this.owed, this.now() + OWED_SLICE_MS);
    if (this.owed.size > 0) this.postOwedTask();
  }

  private takeRecords(): void {
    for (const r of this.observer.takeRecords()) this.records.items.push(r);
  }

  /** Reads records of `list` up to `deadline` (ms). */
  private read(list: RecordList, deadline: number): void {
    if (this.disposed) return;
    if (list === this.records) this.takeRecords();
    if (list.size === 0) return;
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
    const records = list.items;
    let reads = 0;
    const outOfTime = () => ++reads % CLOCK_EVERY === 0 && this.now() >= deadline;
    const tail = this.tail;
    const readAt = tail ? this.now() : 0;
    let rowsMoved = false;
    reading: while (list.head < records.length) {
      const r = records[list.head]!;
      // The tail still re-renders; rows added to it or removed move its window.
      if (tail?.list.contains(r.target)) {
        tail.seen = readAt;
        rowsMoved ||= r.target === tail.list;
      }
      if (r.type === 'characterData') {
        // A live tail's relative ages ("5s ago" to "6s ago", a few hundred a second): a
        // character test here, and nothing handed over, queued or scanned.
        if (this.textMatters?.(r.target as Text) !== false) add(r.target);
      } else {
        // A storming container's ancestor gained or lost children: observe the new ones.
        if (this.path.has(r.target)) this.replan = true;
        const added = r.addedNodes;
        const rebuild = list.nodeIndex === 0 && replacesChildren(r);
        if (rebuild && added.length >= STORM_MIN_ADDED) {
          // A big rebuild is read once it is known not to storm, a storm's once it is quiet
          // (storm-watch.ts): its rows may live a frame. What it removed goes with it.
          if (r.removedNodes.length > 0) {
            const lists = this.rebuildRemovals.get(r.target);
            if (lists) lists.push(r.removedNodes);
            else this.rebuildRemovals.set(r.target, [r.removedNodes]);
          }
          this.rebuilds(r.target);
        } else {
          if (list.nodeIndex === 0 && r.removedNodes.length > 0) {
            removed = true;
            removedNodes.push(r.removedNodes);
          }
          if (rebuild) add(r.target);
          else {
            for (; list.nodeIndex < added.length; list.nodeIndex++) {
              add(added[list.nodeIndex]!);
              if (outOfTime()) {
                list.nodeIndex++;
                break reading;
              }
            }
          }
        }
      }
      list.nodeIndex = 0;
      // Released as read: a page that keeps mutating must not keep every record alive.
      records[list.head++] = undefined as unknown as MutationRecord;
      if (outOfTime()) break;
    }
    list.compact();
    // Before the batch: what it hands over is read after its new observers are in place.
    if (this.replan) this.reobserve();
    if (touched.length > 0 || removed) this.onBatch({ touched, removed, removedNodes });
    if (rowsMoved) this.moveWindow();
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

/** The lowest node holding both (themselves included), or null in different trees. */
function commonAncestor(a: Node, b: Node): Node | null {
  for (let node: Node | null = a; node; node = node.parentNode) if (node.contains(b)) return node;
  return null;
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
