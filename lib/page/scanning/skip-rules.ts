/**
 * Which parts of a page are never scanned: code and styles (not visible text), form fields and
 * editable regions (marking what the analyst is typing would be wrong and, with some editors,
 * disruptive), and the extension's own UI.
 */

/** Upper-case tag names (HTML elements report `tagName` in upper case). */
const SKIPPED_TAGS = new Set([
  'SCRIPT',
  'STYLE',
  'NOSCRIPT',
  'TEMPLATE',
  'TEXTAREA',
  'INPUT',
  'SELECT',
  'OPTION',
  'IFRAME',
  'OBJECT',
  'CANVAS',
  'svg',
  'math',
]);

/** The shortest text that can hold an address (`::1`). */
const MIN_IP_LENGTH = 3;

/** The shortest address written with word dots: `1[dot]2[dot]3[dot]4`. */
const MIN_WORD_DOT_LENGTH = 19;
/**
 * A dot written as a word, as threat reports defang it (`[dot]`, `(dot)`, `{dot}`, any case;
 * lib/ip/candidate-pattern.ts reads the same forms). The bracketed `[.]` forms hold a '.'.
 */
const WORD_DOT = /[[({]dot[\])}]/i;

/**
 * No dot, no colon and no dot written as a word: no IPv4 and no IPv6. Skips most of a page's
 * text before any regex or skip-region check. The word test runs only on text that has neither
 * character, and long enough to hold such an address (measured: see skip-rules.test.ts).
 */
export function couldHoldIp(data: string): boolean {
  if (data.length < MIN_IP_LENGTH) return false;
  if (data.includes('.') || data.includes(':')) return true;
  return data.length >= MIN_WORD_DOT_LENGTH && WORD_DOT.test(data);
}

/**
 * The elements attachShadow accepts (DOM standard, "valid shadow host name"), upper case as
 * tagName gives them in HTML documents and lower case as in XHTML; and custom elements (a dash
 * in the name). No other element has a shadow root, and reading `shadowRoot` is a call into the
 * DOM: one per element of the walk (70,000 on the 10,000-row table's cells and rows).
 */
const SHADOW_HOSTS = new Set(
  'ARTICLE ASIDE BLOCKQUOTE BODY DIV FOOTER H1 H2 H3 H4 H5 H6 HEADER MAIN NAV P SECTION SPAN'.split(' ').flatMap((t) => [t, t.toLowerCase()]),
);

/** Whether an element with this tagName can have a shadow root. */
export function mayHostShadow(tag: string): boolean {
  return SHADOW_HOSTS.has(tag) || tag.includes('-');
}

/**
 * A table row or list item whose descendants are all plain cells and inline text elements
 * (none skipped, none able to host a shadow root, no custom element, nothing editable): the
 * element pass has nothing to find under it, and passes it whole. On the 10,000-row table that
 * is 60,000 cells the pass no longer visits (a `nextNode`, a wrapper of our world, a `tagName`
 * and a `getAttribute` each) for one native query per row. The query stops at the
 * first element not listed, so a row of divs costs little more than before. Our own UI sits
 * under a custom element (its host), which no plain row holds. And no element in it has
 * eight children (the tracker's list test, near-tracker.ts): the row is its texts' list item.
 */
const ROW = /^(tr|li)$/i;
const NOT_PLAIN = ':not(td):not(th):not(a):not(b):not(i):not(em):not(strong):not(code):not(br):not(img):not(time),[contenteditable],:nth-child(8)';

/** Whether the element pass may skip this element's subtree (see NOT_PLAIN); `tag`: its tagName. */
export function isPlainRow(element: Element, tag: string): boolean {
  return ROW.test(tag) && !element.querySelector(NOT_PLAIN);
}

export interface SkipOptions {
  /**
   * Whether an element is part of our own UI (the hover card host): true for the host and for
   * every element inside it.
   */
  isOwnUi?: (element: Element) => boolean;
}

/** Script, style, form field and the like by tag alone (one property read and a set lookup). */
export function isSkippedTag(element: Element): boolean {
  return SKIPPED_TAGS.has(element.tagName);
}

/**
 * Checked for each element during a walk: cheap property reads only, no style or layout.
 * `tag`: its tagName, when the caller read it already.
 */
export function isSkippedElement(element: Element, options: SkipOptions = {}, tag = element.tagName): boolean {
  if (SKIPPED_TAGS.has(tag)) return true;
  // `contenteditable` / `contenteditable=""` / `plaintext-only` are editable; only "false" is not.
  const editable = element.getAttribute('contenteditable');
  if (editable !== null && editable.toLowerCase() !== 'false') return true;
  return options.isOwnUi?.(element) ?? false;
}

/** The parent across a shadow boundary: a shadow root's "parent" is its host. */
export function composedParent(node: Node): Node | null {
  if (node.parentNode) {
    const parent = node.parentNode;
    return parent.nodeType === Node.DOCUMENT_FRAGMENT_NODE && (parent as ShadowRoot).host
      ? (parent as ShadowRoot).host
      : parent;
  }
  return null;
}

/**
 * For a node added by a mutation: is it inside something we skip? Walks up to the document
 * (a few dozen property reads), crossing shadow roots. With `known` (the answers so far for
 * elements, kept only while the page cannot change: one synchronous run), the walk stops at
 * the first element already answered: a live tail's re-render queues 20,000 text nodes whose
 * walks share all but their parent (bench page-profile, live tail: ~25 ms a render).
 */
export function isInsideSkipped(node: Node, options: SkipOptions = {}, known?: Map<Node, boolean>): boolean {
  const doc = node.ownerDocument;
  if (doc?.designMode === 'on') return true;
  const walked: Node[] = [];
  let inside = false;
  for (let n: Node | null = node.nodeType === Node.ELEMENT_NODE ? node : composedParent(node); n; n = composedParent(n)) {
    const answer = known?.get(n);
    if (answer !== undefined) {
      inside = answer;
      break;
    }
    if (known) walked.push(n);
    if (n.nodeType === Node.ELEMENT_NODE && isSkippedElement(n as Element, options)) {
      inside = true;
      break;
    }
  }
  // Each node walked is inside a skipped one exactly when the first it reached is.
  for (const n of walked) known!.set(n, inside);
  return inside;
}
