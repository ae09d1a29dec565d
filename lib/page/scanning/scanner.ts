/**
 * The scanner: subtrees to (re)scan, worked through in time slices. Each text node's IP
 * matches replace the ones the store had for it; changes are handed to `onChange` after every
 * slice so marks appear while a big page is still being scanned.
 *
 * Two queues: `urgent` holds what the analyst sees or just got (nodes added by the
 * page, rows on screen); `background` the rest of a whole-page scan. Urgent work always goes
 * first, pausing a background walk where it stands, so a new row at the top of a 5,000-row
 * live list is marked at once instead of after the initial scan.
 *
 * Nothing the page holds can stall a slice: a huge text node is read in pieces
 * across slices, and past the page limits (page-limits.ts) the whole-page scan stops and
 * `onLimit` says so; urgent work goes on. Urgent work is held to the limits too: a piece of it
 * that looks at more than `maxUrgentNodes` (a whole table handed over as "on screen") goes on
 * as part of the whole-page scan, which the limits stop.
 */
import { forEachIpFrom } from '../../ip/find-ips';
import type { IpMatch } from '../../ip/types';
import { changeSize, emptyChange, type OccurrenceStore, type StoreChange } from '../occurrences/occurrence-store';
import { DEFAULT_PAGE_LIMITS, LARGE_TEXT, type LimitReached, type PageLimits } from './page-limits';
import { ScanQueue } from './scan-queue';
import { couldHoldIp, isInsideSkipped, type SkipOptions } from './skip-rules';
import { SubtreeWalk } from './subtree-walk';
import type { TimeSlicer } from './time-slicer';

export type ScanPriority = 'urgent' | 'background';

export interface ScannerDeps {
  findIps: (text: string) => IpMatch[];
  /** Also sees each text node read (the CIDR block marks, lib/page/marks/block-marks.ts). */
  onText?: (node: Text, data: string) => void;
  store: OccurrenceStore;
  slicer: TimeSlicer;
  skip?: SkipOptions;
  limits?: Partial<PageLimits>;
  /**
   * The row to hold a text read by the whole-page scan under, without occurrences, when that
   * row is not known to be near; null: read it fully. Asked with the text's parent
   * element; urgent text, and text whose parent is a shadow root, is always read fully.
   */
  farRowOf?: (parent: Element) => Element | null;
  /**
   * Whether the whole-page scan may pass this plain row without reading its text (held unread
   * under it, OccurrenceStore.holdUnreadRow): far from the viewport and never read near. Its
   * text is read when the row comes near (trackRow) or the popup asks for the page's
   * list. Absent: every row is read.
   */
  mayHoldRow?: (row: Element) => boolean;
  /** Called after every slice that changed the store. */
  onChange: (change: StoreChange) => void;
  /** An open shadow root was found (to observe it and adopt styles into it). */
  onShadowRoot?: (root: ShadowRoot) => void;
  /** A page limit was reached: the whole-page scan stopped (called once). */
  onLimit?: (limit: LimitReached) => void;
}

/** Occurrences found before they are handed to onChange mid-slice. */
const FLUSH_EVERY = 128;

/** A huge text node read part of the way. */
interface PartialText {
  data: string;
  position: number;
  matches: IpMatch[];
}

export class Scanner {
  private readonly queues: Record<ScanPriority, ScanQueue> = { urgent: new ScanQueue(), background: new ScanQueue() };
  private readonly walks: Record<ScanPriority, SubtreeWalk | null> = { urgent: null, background: null };
  private readonly knownShadowRoots = new WeakSet<ShadowRoot>();
  private readonly partial = new Map<Text, PartialText>();
  private readonly limits: PageLimits;
  /** Which walk the visitor is in now (shadow roots found go to the same queue). */
  private current: ScanPriority = 'background';
  private change: StoreChange = emptyChange();
  private running: Promise<void> = Promise.resolve();
  private active = false;
  /** Inside `batch`: enqueue queues without starting. */
  private batching = false;
  /** isInsideSkipped's answers in this slice (the page cannot change during one): cleared at each yield. */
  private skipKnown = new Map<Node, boolean>();
  /** Ends a background-priority yield early (see yieldToPage); set only while one waits. */
  private wake: (() => void) | null = null;
  private stopped = false;
  private textNodes = 0;
  private chars = 0;
  private limitReached: LimitReached | null = null;

  constructor(private readonly deps: ScannerDeps) {
    this.limits = { ...DEFAULT_PAGE_LIMITS, ...deps.limits };
  }

  /**
   * Queues a subtree (or a single text node) and starts working if idle. Inside `batch`, only
   * queues: the promise is then the run under way, not one that covers this root.
   */
  enqueue(root: Node, priority: ScanPriority = 'background'): Promise<void> {
    if (priority === 'background' && this.limitReached) return this.drain();
    if (priority === 'urgent' || !this.queues.urgent.has(root)) this.queues[priority].push(root);
    if (priority === 'urgent') this.wake?.();
    return this.batching ? this.running : this.drain();
  }

  /**
   * Queues all that `fill` enqueues, then starts working once: one slice now, the rest after
   * a yield. An idle scanner's enqueue runs a slice at once with a fresh clock, and a slice
   * that empties the queue ends the run, so roots queued one by one were each read at once:
   * a live tail's re-render (20,000 text nodes) was read whole, synchronously, in the task
   * that handed it over (110-200 ms a render, bench page-profile, live tail).
   */
  batch(fill: () => void): Promise<void> {
    if (this.batching) {
      fill();
      return this.running;
    }
    this.batching = true;
    try {
      fill();
    } finally {
      this.batching = false;
    }
    return this.drain();
  }

  /** True while there is work queued or in progress. */
  get busy(): boolean {
    return this.active;
  }

  /** No urgent work queued or under way. */
  get urgentIdle(): boolean {
    return this.queues.urgent.size === 0 && !this.walks.urgent;
  }

  /** Resolves when the queue is empty. */
  drain(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (!this.active) {
      // The flag is cleared inside work() itself, synchronously with its last step, so work
      // queued by a callback of the final flush always starts a new run.
      this.active = true;
      this.running = this.work();
    }
    return this.running;
  }

  stop(): void {
    this.stopped = true;
    this.queues.urgent.clear();
    this.queues.background.clear();
    this.walks.urgent = this.walks.background = null;
    this.partial.clear();
  }

  private visitor = {
    text: (node: Text, data: string, parent: Element | null, row?: Element): boolean => {
      if (this.current === 'background') {
        this.textNodes++;
        this.chars += data.length;
      }
      if (!couldHoldIp(data)) {
        if (this.deps.store.hasNode(node)) this.deps.store.setMatches(node, NO_MATCHES, this.change);
        return true;
      }
      const matches = data.length > LARGE_TEXT ? this.readLarge(node, data) : this.capped(this.deps.findIps(data));
      if (!matches) return false;
      // CIDR blocks are read from the same text; a huge node is left to the IP limits.
      if (data.length <= LARGE_TEXT) this.deps.onText?.(node, data);
      if (matches.length > 0) {
        const farRow = this.current === 'background' ? this.farRowOf(node, parent, row) : null;
        this.deps.store.setMatches(node, matches, this.change, farRow);
      } else if (this.deps.store.hasNode(node)) {
        this.deps.store.setMatches(node, matches, this.change);
      }
      return true;
    },
    farRow: (row: Element): boolean => {
      if (this.current === 'background' && this.deps.mayHoldRow?.(row)) {
        this.deps.store.holdUnreadRow(row, this.change);
        // Held, it is one text node against the page limits (it holds no address yet).
        this.textNodes++;
        return true;
      }
      // Read now (near, urgent, or the popup asked): no longer unread.
      this.deps.store.readRow(row, this.change);
      return false;
    },
    shadowRoot: (root: ShadowRoot) => {
      if (!this.knownShadowRoots.has(root)) {
        this.knownShadowRoots.add(root);
        this.deps.onShadowRoot?.(root);
      }
      // Known root inside a subtree being rescanned: its text may have changed too.
      this.queues[this.current].push(root);
    },
  };

  /**
   * The row to hold a whole-page text under without occurrences (see ScannerDeps.farRowOf). A
   * plain row the walk names is asked directly when the tracker takes it as its own list item
   * (the row of each of its cells); otherwise, as when it is near, the text's parent is read.
   */
  private farRowOf(node: Text, parent: Element | null, row: Element | undefined): Element | null {
    const ask = this.deps.farRowOf;
    if (row && ask?.(row) === row) return row;
    if (row) parent = node.parentElement;
    return parent && ask ? ask(parent) : null;
  }

  private capped(matches: IpMatch[]): IpMatch[] {
    const max = this.limits.maxMatchesPerNode;
    if (matches.length <= max) return matches;
    this.reachLimit('maxMatchesPerNode');
    return matches.slice(0, max);
  }

  /** Reads a huge text node a slice at a time; null while unfinished. */
  private readLarge(node: Text, data: string): IpMatch[] | null {
    let state = this.partial.get(node);
    if (!state || state.data !== data) this.partial.set(node, (state = { data, position: 0, matches: [] }));
    const max = this.limits.maxMatchesPerNode;
    const { slicer } = this.deps;
    const found = state.matches;
    const next = forEachIpFrom(data, state.position, (m) => found.push(m), () => found.length >= max || slicer.expired());
    if (next >= 0 && found.length < max) {
      state.position = next;
      return null;
    }
    this.partial.delete(node);
    if (found.length >= max && next >= 0) this.reachLimit('maxMatchesPerNode');
    return found;
  }

  private reachLimit(limit: LimitReached): void {
    if (limit !== 'maxMatchesPerNode') {
      // The whole-page scan stops here; what the analyst sees is still scanned (urgent).
      this.walks.background = null;
      this.queues.background.clear();
    }
    if (this.limitReached) return;
    this.limitReached = limit;
    this.deps.onLimit?.(limit);
  }

  private checkPageLimits(): void {
    const { limits } = this;
    if (this.textNodes > limits.maxTextNodes) this.reachLimit('maxTextNodes');
    else if (this.chars > limits.maxChars) this.reachLimit('maxChars');
    else if (this.deps.store.occurrenceCount > limits.maxOccurrences) this.reachLimit('maxOccurrences');
  }

  /**
   * An urgent walk past its size: the rest of it is whole-page work, counted against the page
   * limits (and dropped once they stopped the whole-page scan).
   */
  private demote(walk: SubtreeWalk): void {
    this.walks.urgent = null;
    if (this.limitReached && this.limitReached !== 'maxMatchesPerNode') return;
    if (!this.walks.background) this.walks.background = walk;
    else this.queues.background.push(walk.root);
  }

  /** The walk to work on now: urgent first, then the background scan where it stood. */
  private nextWalk(): SubtreeWalk | null {
    for (const priority of ['urgent', 'background'] as const) {
      if (this.walks[priority]) return (this.current = priority), this.walks[priority];
      for (let root = this.queues[priority].shift(); root; root = this.queues[priority].shift()) {
        // A root that left the page before its turn has nothing to show. What the page added
        // inside an editor or a script is checked here, in a slice, not in the mutation
        // callback: a live tail replaces 20,000 text nodes a second.
        if (!root.isConnected || ((priority === 'urgent' || root.nodeType === Node.TEXT_NODE) && isInsideSkipped(root, this.deps.skip, this.skipKnown))) continue;
        this.current = priority;
        // A row held unread, read as a root (it came near): no longer unread.
        this.deps.store.readRow(root, this.change);
        return (this.walks[priority] = new SubtreeWalk(root, this.visitor, this.deps.skip));
      }
    }
    return null;
  }

  private async work(): Promise<void> {
    const { slicer } = this.deps;
    this.skipKnown.clear();
    try {
      slicer.begin();
      while (!this.stopped) {
        const walk = this.nextWalk();
        if (!walk) {
          // onChange may queue more (it runs our callers' code): look again after it.
          this.flush();
          if (this.queues.urgent.size === 0 && this.queues.background.size === 0) break;
          continue;
        }
        const priority = this.current;
        // Changes are handed over inside the timed loop, so their cost counts in the slice.
        const finished = walk.step(() => {
          if (changeSize(this.change) >= FLUSH_EVERY) this.flush();
          // Urgent work queued meanwhile (by onChange) pauses a background walk.
          if (priority === 'background') return slicer.expired() || this.queues.urgent.size > 0;
          return slicer.expired() || walk.nodesSeen >= this.limits.maxUrgentNodes;
        });
        if (finished && this.walks[priority] === walk) this.walks[priority] = null;
        else if (priority === 'urgent' && this.walks.urgent === walk && walk.nodesSeen >= this.limits.maxUrgentNodes) this.demote(walk);
        this.checkPageLimits();
        if (slicer.expired()) {
          this.flush();
          await this.yieldToPage();
        }
      }
    } finally {
      this.active = false;
    }
  }

  /**
   * Yields between slices: at user-visible priority while work for the screen is queued, at
   * background priority otherwise. A page that keeps its main thread busy starves background
   * tasks for seconds, so that yield ends as soon as work for the screen is queued. Without
   * this, text a live list had just re-rendered on screen waited behind the whole-page scan's
   * yield (seen on live-rerender.html: 1,656 urgent nodes queued and nothing scanned for
   * over 10 s) and was replaced by the next render before it was ever scanned.
   * A user-visible yield ends early too: its task runs after the frame being prepared, and on a
   * live tail whose renders leave a frame every 0.5-1 s that put a new row's mark one whole
   * frame late (new top event -> mark about 850 ms on a 5,000-event list).
   */
  private async yieldToPage(): Promise<void> {
    const { slicer } = this.deps;
    const priority = this.urgentIdle ? 'background' : 'user-visible';
    const woken = await new Promise<boolean>((resolve) => {
      this.wake = () => resolve(true);
      slicer.pause(priority).then(
        () => resolve(false),
        () => resolve(false),
      );
    });
    this.wake = null;
    // The page ran meanwhile: what was skipped may have changed.
    this.skipKnown.clear();
    // Woken from the page's own task (the mutation flush): a fresh slice, so the screen's text
    // is marked before that frame is painted.
    if (woken) slicer.begin();
  }

  private flush(): void {
    if (changeSize(this.change) === 0) return;
    const change = this.change;
    this.change = emptyChange();
    this.deps.onChange(change);
  }
}

const NO_MATCHES: IpMatch[] = [];
