/**
 * One MutationObserver for the document and every open shadow root we scan. Its callback only
 * stores the records and asks for a flush: consoles that re-render a table on every scroll
 * produce thousands of records, and doing work inside the callback would run it synchronously
 * in the page's own task (uBlock Origin's pattern). The flush runs in the next animation frame,
 * or on a slow timer while the tab is hidden (animation frames do not run then).
 */

export interface MutationBatch {
  /** Added nodes and text nodes whose text changed, still in the page, in record order. */
  touched: Node[];
  /** Whether anything was removed (the store then drops ranges whose nodes left). */
  removed: boolean;
}

export type FlushScheduler = (flush: () => void) => void;

/** rAF when visible, a 250 ms timer when hidden. */
export function frameScheduler(doc: Document = document): FlushScheduler {
  return (flush) => {
    if (doc.visibilityState === 'hidden') setTimeout(flush, 250);
    else requestAnimationFrame(() => flush());
  };
}

const OPTIONS: MutationObserverInit = { childList: true, subtree: true, characterData: true };

export class MutationQueue {
  private readonly observer: MutationObserver;
  private records: MutationRecord[] = [];
  private scheduled = false;
  private disposed = false;

  constructor(
    private readonly onBatch: (batch: MutationBatch) => void,
    private readonly schedule: FlushScheduler,
  ) {
    this.observer = new MutationObserver((records) => {
      // Only queue: no DOM reads, no allocation beyond the array push.
      for (const r of records) this.records.push(r);
      this.requestFlush();
    });
  }

  observe(root: Node): void {
    this.observer.observe(root, OPTIONS);
  }

  /** Processes pending records now (also used before answering the popup). */
  flush(): void {
    this.scheduled = false;
    if (this.disposed) return;
    const records = this.records.concat(this.observer.takeRecords());
    this.records = [];
    if (records.length === 0) return;
    const touched: Node[] = [];
    const seen = new Set<Node>();
    let removed = false;
    for (const r of records) {
      if (r.type === 'characterData') {
        add(r.target);
      } else {
        if (r.removedNodes.length > 0) removed = true;
        for (const n of r.addedNodes) add(n);
      }
    }
    function add(node: Node): void {
      if (seen.has(node) || !node.isConnected) return;
      if (node.nodeType !== Node.TEXT_NODE && node.nodeType !== Node.ELEMENT_NODE) return;
      seen.add(node);
      touched.push(node);
    }
    this.onBatch({ touched, removed });
  }

  disconnect(): void {
    this.disposed = true;
    this.observer.disconnect();
    this.records = [];
  }

  private requestFlush(): void {
    if (this.scheduled || this.disposed) return;
    this.scheduled = true;
    this.schedule(() => this.flush());
  }
}
