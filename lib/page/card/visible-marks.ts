/**
 * The marks an analyst can see now: occurrences that have a mark (a range: they came near the
 * viewport), with a box inside the viewport that nothing of the page's covers (a sticky header,
 * a scroll container's clipped part). Read at a key press or as a card opens, not per frame:
 * the walk goes over every held text, but only marked ones cost a layout read.
 */
import { TEXT_NODE } from '../scanning/dom-constants';
import { liveRange } from './hit-test';
import type { Occurrence } from '../occurrences/occurrence-store';
import type { Placed } from './screen-marks';

export interface MarkSource {
  nodes(): Iterable<Node>;
  occurrencesOfNode(node: Text): readonly Occurrence[];
}

/**
 * `uncoveredOnly`: also ask the page what it draws at each mark's middle (the keyboard's walk
 * must not stop at an IP under a sticky header); the card's placement needs boxes only.
 */
export function visibleMarks(store: MarkSource, doc: Document, isOwnUi: (el: Element) => boolean, uncoveredOnly = true): Placed<Occurrence>[] {
  const width = doc.documentElement.clientWidth;
  const height = doc.documentElement.clientHeight;
  const out: Placed<Occurrence>[] = [];
  for (const node of store.nodes()) {
    // Rows held unread have no marks.
    if (node.nodeType !== TEXT_NODE) continue;
    for (const occ of store.occurrencesOfNode(node as Text)) {
      if (!occ.range) continue;
      const range = liveRange(occ);
      if (!range) continue;
      for (const r of range.getClientRects()) {
        if (r.width <= 0 || r.height <= 0 || r.right <= 0 || r.bottom <= 0 || r.left >= width || r.top >= height) continue;
        const x = Math.min(Math.max(r.left + r.width / 2, 0), width - 1);
        const y = Math.min(Math.max(r.top + r.height / 2, 0), height - 1);
        if (uncoveredOnly && !shows(doc.elementFromPoint(x, y), occ.node, isOwnUi)) continue;
        out.push({ item: occ, rect: { x: r.left, y: r.top, width: r.width, height: r.height } });
        break;
      }
    }
  }
  return out;
}

/** Whether the element drawn at the mark's middle is the mark's own text (or our card above it). */
function shows(hit: Element | null, text: Node, isOwnUi: (el: Element) => boolean): boolean {
  if (!hit) return false;
  if (isOwnUi(hit)) return true;
  // elementFromPoint stops at a shadow host: climb out of the text's shadow roots.
  for (let node: Node | null = text; node; ) {
    if (hit.contains(node)) return true;
    const root = node.getRootNode();
    node = root instanceof ShadowRoot ? root.host : null;
  }
  return false;
}
