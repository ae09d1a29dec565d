/**
 * Which marked IP is under the pointer, without any element of ours in the page: the caret
 * position at the point gives a text node and offset, the store says which match covers it,
 * and the match's own rects confirm the pointer is really over it (caret lookup snaps to the
 * nearest character even when the pointer is in empty space beside a line).
 */
import type { Occurrence, OccurrenceStore } from '../occurrences/occurrence-store';

export interface CaretHit {
  node: Node;
  offset: number;
}

export type CaretLookup = (x: number, y: number) => CaretHit | null;

interface CaretDocument {
  caretPositionFromPoint?: (
    x: number,
    y: number,
    options?: { shadowRoots?: ShadowRoot[] },
  ) => { offsetNode: Node; offset: number } | null;
  caretRangeFromPoint?: (x: number, y: number) => Range | null;
}

/** Uses the standard API (which can enter the open shadow roots we pass), else WebKit's. */
export function caretLookup(doc: Document, shadowRoots: () => ShadowRoot[]): CaretLookup {
  const d = doc as unknown as CaretDocument;
  if (typeof d.caretPositionFromPoint === 'function') {
    return (x, y) => {
      const roots = shadowRoots();
      const p = d.caretPositionFromPoint!(x, y, roots.length ? { shadowRoots: roots } : undefined);
      return p ? { node: p.offsetNode, offset: p.offset } : null;
    };
  }
  if (typeof d.caretRangeFromPoint === 'function') {
    return (x, y) => {
      const r = d.caretRangeFromPoint!(x, y);
      return r ? { node: r.startContainer, offset: r.startOffset } : null;
    };
  }
  return () => null;
}

/** A live Range over an occurrence, for geometry (StaticRange has no rects). */
export function liveRange(occ: Occurrence): Range | null {
  const { node, start, end } = occ;
  if (!node.isConnected || end > node.length) return null;
  const range = node.ownerDocument.createRange();
  range.setStart(node, start);
  range.setEnd(node, end);
  return range;
}

/** Slack around glyph boxes, in CSS pixels, so the edge of a character still counts. */
const SLACK = 1;

export function pointInRects(rects: Iterable<DOMRectReadOnly>, x: number, y: number): boolean {
  for (const r of rects) {
    if (x >= r.left - SLACK && x <= r.right + SLACK && y >= r.top - SLACK && y <= r.bottom + SLACK) return true;
  }
  return false;
}

export function hitTest(store: OccurrenceStore, caret: CaretLookup, x: number, y: number): Occurrence | undefined {
  const hit = caret(x, y);
  if (!hit || hit.node.nodeType !== Node.TEXT_NODE) return undefined;
  const node = hit.node as Text;
  // The caret sits between characters: the one under the pointer is before or after it.
  for (const occ of store.occurrencesOfNode(node)) {
    if (hit.offset < occ.start || hit.offset > occ.end) continue;
    const range = liveRange(occ);
    if (range && pointInRects(range.getClientRects(), x, y)) return occ;
  }
  return undefined;
}
