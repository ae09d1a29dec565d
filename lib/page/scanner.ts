/**
 * The scanner: a queue of subtrees to (re)scan, worked through in time slices. Each text node's
 * IP matches replace the ones the store had for it; changes are handed to `onChange` after
 * every slice so marks appear while a big page is still being scanned.
 */
import type { IpMatch } from '../ip/types';
import { emptyChange, type OccurrenceStore, type StoreChange } from './occurrence-store';
import type { SkipOptions } from './skip-rules';
import { SubtreeWalk } from './subtree-walk';
import type { TimeSlicer } from './time-slicer';

export interface ScannerDeps {
  findIps: (text: string) => IpMatch[];
  /** Also sees each text node read (the CIDR block marks, lib/page/block-marks.ts). */
  onText?: (node: Text, data: string) => void;
  store: OccurrenceStore;
  slicer: TimeSlicer;
  skip?: SkipOptions;
  /** Called after every slice that changed the store. */
  onChange: (change: StoreChange) => void;
  /** An open shadow root was found (to observe it and adopt styles into it). */
  onShadowRoot?: (root: ShadowRoot) => void;
}

/** Occurrences found before they are handed to onChange mid-slice. */
const FLUSH_EVERY = 128;

/** The shortest text that can hold an address (`::1`). */
const MIN_LENGTH = 3;

export class Scanner {
  private readonly queue: Node[] = [];
  private readonly queued = new Set<Node>();
  private readonly knownShadowRoots = new WeakSet<ShadowRoot>();
  private walk: SubtreeWalk | null = null;
  private change: StoreChange = emptyChange();
  private running: Promise<void> = Promise.resolve();
  private active = false;
  private stopped = false;

  constructor(private readonly deps: ScannerDeps) {}

  /** Queues a subtree (or a single text node) and starts working if idle. */
  enqueue(root: Node): Promise<void> {
    if (!this.queued.has(root)) {
      this.queued.add(root);
      this.queue.push(root);
    }
    return this.drain();
  }

  /** True while there is work queued or in progress. */
  get busy(): boolean {
    return this.active;
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
    this.queue.length = 0;
    this.queued.clear();
    this.walk = null;
  }

  private visitor = {
    text: (node: Text) => {
      const data = node.data;
      // No dot and no colon: no IPv4 and no IPv6. Skips most text without calling the matcher.
      const maybe = data.length >= MIN_LENGTH && (data.includes('.') || data.includes(':'));
      const matches = maybe ? this.deps.findIps(data) : NO_MATCHES;
      if (maybe) this.deps.onText?.(node, data);
      if (matches.length > 0 || this.deps.store.occurrencesOfNode(node).length > 0) {
        this.deps.store.setMatches(node, matches, this.change);
      }
    },
    shadowRoot: (root: ShadowRoot) => {
      if (this.knownShadowRoots.has(root)) {
        // Known root inside a subtree being rescanned: its text may have changed too.
        this.queueRoot(root);
        return;
      }
      this.knownShadowRoots.add(root);
      this.deps.onShadowRoot?.(root);
      this.queueRoot(root);
    },
  };

  private queueRoot(root: Node): void {
    if (this.queued.has(root)) return;
    this.queued.add(root);
    this.queue.push(root);
  }

  private async work(): Promise<void> {
    const { slicer } = this.deps;
    try {
      slicer.begin();
      while (!this.stopped) {
        if (!this.walk) {
          const root = this.queue.shift();
          if (!root) {
            // onChange may queue more (it runs our callers' code): look again after it.
            this.flush();
            if (this.queue.length === 0) break;
            continue;
          }
          this.queued.delete(root);
          // A root that left the page before its turn has nothing to show.
          if (!root.isConnected) continue;
          this.walk = new SubtreeWalk(root, this.visitor, this.deps.skip);
        }
        // Changes are handed over inside the timed loop, so their cost counts in the slice.
        const finished = this.walk.step(() => {
          if (this.change.added.length + this.change.removed.length >= FLUSH_EVERY) this.flush();
          return slicer.expired();
        });
        if (finished) this.walk = null;
        if (slicer.expired()) {
          this.flush();
          await slicer.pause();
        }
      }
    } finally {
      this.active = false;
    }
  }

  private flush(): void {
    if (this.change.added.length === 0 && this.change.removed.length === 0) return;
    const change = this.change;
    this.change = emptyChange();
    this.deps.onChange(change);
  }
}

const NO_MATCHES: IpMatch[] = [];
