/**
 * A resumable walk over the text of one subtree: it stops when the time slice is used up and
 * continues where it stopped.
 *
 * Text only (issue 11): visiting every element to test its tag and look for a shadow root cost
 * about twice the bare text walk on the 10,000-row page (70,000 elements next to 40,000 text
 * nodes). So the walk has two passes:
 *   1. text: a TreeWalker over text nodes alone. Skipped regions (scripts, form fields,
 *      editors, see skip-rules.ts) are found up front with one `querySelectorAll`, in document
 *      order. The walk meets them in that order, so it only watches for the first text node of
 *      the next region (an identity test per node, issue 10: a `compareDocumentPosition` per
 *      candidate text was a measurable share of the 200,000-cell page) and, on reaching it,
 *      jumps past the region's last node. The page can change between slices, so each slice
 *      starts with one position check of where it stands, and a text whose own parent is
 *      skipped (script, style, form field) is never read whatever happened;
 *   2. shadow roots: an element-only walk reading `shadowRoot`, the one thing text cannot tell.
 * Neither pass calls into JS per node through a filter callback (about 5× slower, DESIGN.md).
 * Regions are read when the walk starts: an editor the page adds later is caught by the
 * mutation path (isInsideSkipped), which rescans what the page adds.
 */
import { couldHoldIp, isSkippedElement, isSkippedTag, SKIPPED_SELECTOR, type SkipOptions } from './skip-rules';

export interface WalkVisitor {
  /** Reads one text node; false when it stopped half-way (a huge node, out of time). */
  text(node: Text): boolean;
  /** An open shadow root met on the way: the caller scans it as a new root. */
  shadowRoot(root: ShadowRoot): void;
}

/** How many nodes between two looks at the clock (performance.now() is not free). */
const CLOCK_EVERY = 64;

export class SubtreeWalk {
  private readonly texts: TreeWalker | null;
  private elements: TreeWalker | null = null;
  /** The text node to read next; null once the text pass is over. */
  private nextText: Text | null;
  /** Top-level skipped regions inside the root, in document order, not nested. */
  private readonly regions: Element[];
  private region = 0;
  /** The first text node of regions[region] (null: none left, or the region holds no text). */
  private regionStart: Text | null = null;
  private finished = false;

  constructor(
    readonly root: Node,
    private readonly visitor: WalkVisitor,
    private readonly skip: SkipOptions = {},
  ) {
    if (root.nodeType === Node.TEXT_NODE) {
      this.texts = null;
      this.nextText = root as Text;
      this.regions = [];
      return;
    }
    this.texts = documentOf(root).createTreeWalker(root, NodeFilter.SHOW_TEXT);
    this.nextText = this.texts.nextNode() as Text | null;
    this.regions = skippedRegions(root, skip);
  }

  get done(): boolean {
    return this.finished;
  }

  /**
   * Walks until `expired()` says so (checked every few dozen nodes, and inside a huge text
   * node by the visitor); true when finished.
   */
  step(expired: () => boolean): boolean {
    if (this.finished) return true;
    if (this.nextText && !this.stepText(expired)) return false;
    if (this.texts && !this.stepShadowRoots(expired)) return false;
    this.finished = true;
    return true;
  }

  private stepText(expired: () => boolean): boolean {
    let node: Text | null = this.nextText;
    if (node && this.regions.length > 0) node = this.resync(node);
    let count = 0;
    while (node) {
      if (node === this.regionStart) {
        // Entering a skipped region: on past its last node, and watch for the next region.
        node = this.pastRegion(this.regions[this.region]!);
        continue;
      }
      if (!couldHoldIp(node.data) || !this.isOwnOrSkippedParent(node)) {
        if (!this.visitor.text(node)) {
          // Comes back to the same node next time.
          this.nextText = node;
          return false;
        }
      }
      node = this.texts ? (this.texts.nextNode() as Text | null) : null;
      if (++count % CLOCK_EVERY === 0 && node && expired()) {
        this.nextText = node;
        return false;
      }
    }
    this.nextText = null;
    return true;
  }

  /**
   * At the start of a slice: the page may have moved things since the last one. One position
   * check finds the region the walk is in or next to, and its first text node anew; the node
   * to read next, or the first one past a region it stands in.
   */
  private resync(node: Text): Text | null {
    const { regions } = this;
    while (this.region < regions.length) {
      const region = regions[this.region]!;
      const position = region.compareDocumentPosition(node);
      if (position & Node.DOCUMENT_POSITION_CONTAINED_BY) return this.pastRegion(region);
      // The node comes before the region: this is the next one to meet.
      if (!(position & (Node.DOCUMENT_POSITION_FOLLOWING | Node.DOCUMENT_POSITION_DISCONNECTED))) break;
      this.region++;
    }
    this.regionStart = this.firstTextOfRegion();
    return node;
  }

  /** Skips the rest of `region`: the first text node after it. */
  private pastRegion(region: Element): Text | null {
    this.region++;
    this.regionStart = this.firstTextOfRegion();
    if (!this.texts) return null;
    let last: Node = region;
    while (last.lastChild) last = last.lastChild;
    this.texts.currentNode = last;
    return this.texts.nextNode() as Text | null;
  }

  /** The first text node of the next region that holds any (regions without text are passed). */
  private firstTextOfRegion(): Text | null {
    const { regions } = this;
    for (; this.region < regions.length; this.region++) {
      const region = regions[this.region]!;
      const first = region.isConnected ? (documentOf(this.root).createTreeWalker(region, NodeFilter.SHOW_TEXT).nextNode() as Text | null) : null;
      if (first) return first;
    }
    return null;
  }

  /**
   * Checked for each text that could hold an IP, in O(1): a skipped parent (a script or field
   * the page put there after the walk began), or our own UI.
   */
  private isOwnOrSkippedParent(node: Text): boolean {
    const el = node.parentElement;
    if (!el || el === this.root) return false;
    return isSkippedTag(el) || (this.skip.isOwnUi?.(el) ?? false);
  }

  /** Only open roots are visible to us (closed ones are the page's private business). */
  private stepShadowRoots(expired: () => boolean): boolean {
    if (!this.elements) {
      this.elements = documentOf(this.root).createTreeWalker(this.root, NodeFilter.SHOW_ELEMENT);
      // The regions again from the first: this pass starts over at the top of the root.
      this.region = 0;
    }
    const walker = this.elements;
    let count = 0;
    for (let el = walker.nextNode() as Element | null; el; el = walker.nextNode() as Element | null) {
      const shadow = el.shadowRoot;
      if (shadow && !this.isSkipped(el)) this.visitor.shadowRoot(shadow);
      if (++count % CLOCK_EVERY === 0 && expired()) return false;
    }
    return true;
  }

  /**
   * Whether a shadow host lies in a skipped region (hosts are few: a position check each).
   * Hosts come in document order, so the regions before one are passed for good.
   */
  private isSkipped(node: Node): boolean {
    const { regions } = this;
    while (this.region < regions.length) {
      const position = regions[this.region]!.compareDocumentPosition(node);
      if (position & Node.DOCUMENT_POSITION_CONTAINED_BY) return true;
      // The node comes before the region: outside every region.
      if (!(position & (Node.DOCUMENT_POSITION_FOLLOWING | Node.DOCUMENT_POSITION_DISCONNECTED))) break;
      // The node is past the region (or the region left the page): on to the next one.
      this.region++;
    }
    // Our own UI is not found by a selector. `isOwnUi` answers for any element inside it, so
    // the parent says it for the text; a shadow host is asked itself.
    const el = node.nodeType === Node.ELEMENT_NODE ? (node as Element) : node.parentElement;
    return !!el && el !== this.root && (this.skip.isOwnUi?.(el) ?? false);
  }
}

function documentOf(root: Node): Document {
  return root.nodeType === Node.DOCUMENT_NODE ? (root as Document) : root.ownerDocument!;
}

/** The outermost skipped elements under `root` (never the root itself), in document order. */
function skippedRegions(root: Node, skip: SkipOptions): Element[] {
  const found = (root as ParentNode).querySelectorAll?.(SKIPPED_SELECTOR);
  const regions: Element[] = [];
  if (!found) return regions;
  for (const el of found) {
    // `contenteditable="false"` matches the selector but is not skipped.
    if (!isSkippedElement(el, skip)) continue;
    const last = regions[regions.length - 1];
    if (last && last.contains(el)) continue;
    regions.push(el);
  }
  return regions;
}
