/**
 * A resumable walk over the text of one subtree: it stops when the time slice is used up and
 * continues where it stopped.
 *
 * Text only: visiting every element to test its tag and look for a shadow root cost
 * about twice the bare text walk on the 10,000-row page (70,000 elements next to 40,000 text
 * nodes). So the walk has two passes, each sliced:
 *   1. elements: a TreeWalker over elements that reads `shadowRoot` (the one thing text cannot
 *      tell) and notes the skipped regions (scripts, form fields, editors, our own UI, see
 *      skip-rules.ts), in document order, passing over each region's subtree. Not one
 *      `querySelectorAll` of the skipped elements up front: over the 200,000-cell
 *      page's 250,000 elements that was a 57 ms call in one slice, our longest task there;
 *   2. text: a TreeWalker over text nodes alone. The walk meets the regions in document order,
 *      so it only watches for the first text node of the next region (an identity test per
 *      node; a `compareDocumentPosition` per candidate text was a measurable share of the
 *      cells page) and, on reaching it, jumps past the region's last node. The page can change
 *      between slices, so each slice starts with one position check of where it stands, and a
 *      text whose own parent is skipped (a script or field added since) is never read. Text
 *      that cannot hold an IP (the cheap character test) is handed over unchecked (its visitor
 *      only clears what it held before).
 * A table row or list item holding only plain cells (isPlainRow: one native query) is passed
 * whole by the element pass and listed; the text pass names it for each candidate text inside
 * (one position check against the next listed row) instead of reading the text's parent and
 * its tag: in our isolated world each parent read made a wrapper per cell.
 * A script or field the page puts into such a row between the two passes is not caught by tag
 * there (the mutation path reads what the page adds). A plain row the visitor holds unread
 * (WalkVisitor.farRow: far from the viewport, in the whole-page scan) is listed as a region
 * instead: the text pass jumps past it, and none of its text is read.
 * Neither pass calls into JS per node through a filter callback (about 5× slower, DESIGN.md).
 * Regions are read before the text: an editor the page adds later is caught by the mutation
 * path (isInsideSkipped), which rescans what the page adds.
 */
import {
  DOCUMENT_NODE,
  DOCUMENT_POSITION_CONTAINED_BY as CONTAINED_BY,
  DOCUMENT_POSITION_DISCONNECTED as DISCONNECTED,
  DOCUMENT_POSITION_FOLLOWING as FOLLOWING,
  SHOW_ELEMENT,
  SHOW_TEXT,
  TEXT_NODE,
} from './dom-constants';
import { couldHoldIp, isPlainRow, isSkippedElement, isSkippedTag, mayHostShadow, type SkipOptions } from './skip-rules';

export interface WalkVisitor {
  /**
   * Reads one text node; false when it stopped half-way (a huge node, out of time). `data` is
   * its text as the walk read it, `parent` its parent element when the text could hold an IP
   * (read for the skip check; null otherwise, or when the parent is a shadow root): each read
   * is a call into the DOM, and in the content script's isolated world those were ~3 of the ~7
   * calls per text of the 10,000-row table's 40,000. `row`: the plain row the text
   * is in (isPlainRow, found by the element pass), handed over instead of its parent: a parent
   * read made a wrapper of our world for each cell, and the row is what the tracker climbs to.
   */
  text(node: Text, data: string, parent: Element | null, row?: Element): boolean;
  /** An open shadow root met on the way: the caller scans it as a new root. */
  shadowRoot(root: ShadowRoot): void;
  /**
   * A plain row met by the element pass (isPlainRow): true when the visitor holds it unread,
   * and the walk is to pass over its text.
   */
  farRow?(row: Element): boolean;
}

/** How many nodes between two looks at the clock (performance.now() is not free). */
const CLOCK_EVERY = 64;

export class SubtreeWalk {
  private texts: TreeWalker | null = null;
  private readonly elements: TreeWalker | null;
  /** The element to look at next; null once the element pass is over. */
  private nextElement: Element | null;
  /** The text node to read next (once the element pass is over); null when all is read. */
  private nextText: Text | null = null;
  /** Top-level skipped regions inside the root, in document order, not nested. */
  private readonly regions: Element[] = [];
  private region = 0;
  /** The first text node of regions[region] (null: none left, or the region holds no text). */
  private regionStart: Text | null = null;
  /** Plain rows the element pass passed whole, in document order, and the one the text pass is at or before. */
  private readonly rows: Element[] = [];
  private row = 0;
  private finished = false;
  /** Elements and text nodes looked at so far (the scanner holds urgent walks to a size). */
  nodesSeen = 0;

  constructor(
    readonly root: Node,
    private readonly visitor: WalkVisitor,
    private readonly skip: SkipOptions = {},
  ) {
    if (root.nodeType === TEXT_NODE) {
      this.elements = this.nextElement = null;
      this.nextText = root as Text;
      return;
    }
    this.elements = documentOf(root).createTreeWalker(root, SHOW_ELEMENT);
    this.nextElement = this.elements.nextNode() as Element | null;
    if (!this.nextElement) this.startText();
  }

  /**
   * Walks until `expired()` says so (checked every few dozen nodes, and inside a huge text
   * node by the visitor); true when finished.
   */
  step(expired: () => boolean): boolean {
    if (this.finished) return true;
    if (this.nextElement) {
      if (!this.stepElements(expired)) return false;
      this.startText();
    }
    if (this.nextText && !this.stepText(expired)) return false;
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
      const data = node.data;
      const candidate = couldHoldIp(data);
      const row = candidate ? this.rowOf(node) : undefined;
      const parent = candidate && !row ? node.parentElement : null;
      if (!parent || !this.isOwnOrSkippedParent(parent)) {
        if (!this.visitor.text(node, data, parent, row)) {
          // Comes back to the same node next time.
          this.nextText = node;
          return false;
        }
      }
      node = this.texts ? (this.texts.nextNode() as Text | null) : null;
      this.nodesSeen++;
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
      if (position & CONTAINED_BY) return this.pastRegion(region);
      // The node comes before the region: this is the next one to meet.
      if (!(position & (FOLLOWING | DISCONNECTED))) break;
      this.region++;
    }
    this.regionStart = this.firstTextOfRegion();
    return node;
  }

  /**
   * The plain row holding this text, if any: one position check against the next row (no
   * wrapper made), where the parent's tag and its row's were read before. Rows the walk has
   * passed (or that left the page) are dropped from the front.
   */
  private rowOf(node: Text): Element | undefined {
    const { rows } = this;
    for (; this.row < rows.length; this.row++) {
      const position = rows[this.row]!.compareDocumentPosition(node);
      if (position & CONTAINED_BY) return rows[this.row];
      if (!(position & (FOLLOWING | DISCONNECTED))) return undefined;
    }
    return undefined;
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
      const first = region.isConnected ? (documentOf(this.root).createTreeWalker(region, SHOW_TEXT).nextNode() as Text | null) : null;
      if (first) return first;
    }
    return null;
  }

  /**
   * Checked for the parent of each text that could hold an IP, in O(1): a skipped parent (a
   * script or field the page put there after the walk began), or our own UI.
   */
  private isOwnOrSkippedParent(el: Element): boolean {
    if (el === this.root) return false;
    return isSkippedTag(el) || (this.skip.isOwnUi?.(el) ?? false);
  }

  /**
   * Shadow roots and skipped regions, in document order. Only open roots are visible to us
   * (closed ones are the page's private business); a region's subtree is passed over, so only
   * outermost regions are listed and no host inside one is reported.
   */
  private stepElements(expired: () => boolean): boolean {
    const walker = this.elements!;
    let el = this.nextElement;
    let count = 0;
    while (el) {
      const tag = el.tagName;
      if (isSkippedElement(el, this.skip, tag)) {
        this.regions.push(el);
        el = nextOutside(walker);
      } else {
        const shadow = mayHostShadow(tag) ? el.shadowRoot : null;
        if (shadow) this.visitor.shadowRoot(shadow);
        if (isPlainRow(el, tag)) {
          // A row of plain cells holds no region and no shadow root: on past it in one step,
          // its cells counted (an urgent walk is held to a size).
          this.nodesSeen += el.childElementCount;
          if (this.visitor.farRow?.(el)) this.regions.push(el);
          else this.rows.push(el);
          el = nextOutside(walker);
        } else el = walker.nextNode() as Element | null;
      }
      this.nodesSeen++;
      if (++count % CLOCK_EVERY === 0 && el && expired()) {
        this.nextElement = el;
        return false;
      }
    }
    this.nextElement = null;
    return true;
  }

  private startText(): void {
    this.nextElement = null;
    this.texts = documentOf(this.root).createTreeWalker(this.root, SHOW_TEXT);
    this.nextText = this.texts.nextNode() as Text | null;
  }
}

/** The walker's next element after the current one's subtree (it stays inside its root). */
function nextOutside(walker: TreeWalker): Element | null {
  for (;;) {
    const sibling = walker.nextSibling();
    if (sibling) return sibling as Element;
    if (!walker.parentNode()) return null;
  }
}

function documentOf(root: Node): Document {
  return root.nodeType === DOCUMENT_NODE ? (root as Document) : root.ownerDocument!;
}
