/**
 * A resumable walk over the text of one subtree: it stops when the time slice is used up and
 * continues where it stopped. The TreeWalker has no filter callback: calling into JS for every
 * node was about 5× slower than checking the tag here (see DESIGN.md, performance facts).
 */
import { isSkippedElement, type SkipOptions } from './skip-rules';

export interface WalkVisitor {
  /** Reads one text node; false when it stopped half-way (a huge node, out of time). */
  text(node: Text): boolean;
  /** An open shadow root met on the way: the caller scans it as a new root. */
  shadowRoot(root: ShadowRoot): void;
}

/** How many nodes between two looks at the clock (performance.now() is not free). */
const CLOCK_EVERY = 64;

export class SubtreeWalk {
  private readonly walker: TreeWalker | null;
  private next: Node | null;

  constructor(
    readonly root: Node,
    private readonly visitor: WalkVisitor,
    private readonly skip: SkipOptions = {},
  ) {
    if (root.nodeType === Node.TEXT_NODE) {
      this.walker = null;
      this.next = root;
      return;
    }
    const doc = root.nodeType === Node.DOCUMENT_NODE ? (root as Document) : root.ownerDocument!;
    this.walker = doc.createTreeWalker(root, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
    this.next = root;
  }

  get done(): boolean {
    return this.next === null;
  }

  /**
   * Walks until `expired()` says so (checked every few dozen nodes, and inside a huge text
   * node by the visitor); true when finished.
   */
  step(expired: () => boolean): boolean {
    let node = this.next;
    let count = 0;
    while (node) {
      if (node.nodeType === Node.TEXT_NODE) {
        if (!this.visitor.text(node as Text)) {
          // Comes back to the same node next time (the walker still stands on it).
          this.next = node;
          return false;
        }
        node = this.walker ? this.walker.nextNode() : null;
      } else if (node.nodeType === Node.ELEMENT_NODE) {
        const element = node as Element;
        if (node !== this.root && isSkippedElement(element, this.skip)) {
          node = this.afterSubtree(element);
          continue;
        }
        // Only open roots are visible to us (closed ones are the page's private business).
        const shadow = element.shadowRoot;
        if (shadow) this.visitor.shadowRoot(shadow);
        node = this.walker!.nextNode();
      } else {
        // The root itself when it is a document or a shadow root.
        node = this.walker ? this.walker.nextNode() : null;
      }
      if (++count % CLOCK_EVERY === 0 && node && expired()) {
        this.next = node;
        return false;
      }
    }
    this.next = null;
    return true;
  }

  /** The node after `element`'s subtree in document order, staying inside the root. */
  private afterSubtree(element: Element): Node | null {
    const walker = this.walker!;
    walker.currentNode = element;
    for (let n: Node | null = element; n && n !== this.root; n = walker.parentNode()) {
      const sibling = walker.nextSibling();
      if (sibling) return sibling;
    }
    return null;
  }
}
