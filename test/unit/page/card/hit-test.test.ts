// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { findIps } from '@/lib/ip';
import { hitTest, liveRange, pointInRects } from '@/lib/page/card/hit-test';
import { emptyChange, OccurrenceStore } from '@/lib/page/occurrences/occurrence-store';
import { fakeRangeFactory } from '../dom-fakes';

const rect = (left: number, top: number, width: number, height: number) =>
  ({ left, top, right: left + width, bottom: top + height, width, height, x: left, y: top }) as DOMRect;

describe('hit testing', () => {
  afterEach(() => {
    document.body.replaceChildren();
    vi.restoreAllMocks();
  });

  function setup() {
    const node = document.createTextNode('src 185.220.101.1 dst 8.8.8.8');
    document.body.append(node);
    const store = new OccurrenceStore(fakeRangeFactory);
    store.setMatches(node, findIps(node.data), emptyChange());
    return { node, store };
  }

  it('finds the IP under the caret when the pointer is on its glyphs', () => {
    const { node, store } = setup();
    vi.spyOn(Range.prototype, 'getClientRects').mockReturnValue([rect(100, 10, 90, 16)] as unknown as DOMRectList);
    const caret = () => ({ node: node as Node, offset: 6 });
    expect(hitTest(store, caret, 120, 15)?.ip).toBe('185.220.101.1');
    // The caret snaps to the nearest character even beside the line: the rects say no.
    expect(hitTest(store, caret, 120, 60)).toBeUndefined();
  });

  it('ignores carets outside any IP and outside text', () => {
    const { node, store } = setup();
    vi.spyOn(Range.prototype, 'getClientRects').mockReturnValue([rect(0, 0, 1000, 1000)] as unknown as DOMRectList);
    expect(hitTest(store, () => ({ node, offset: 1 }), 5, 5)).toBeUndefined();
    expect(hitTest(store, () => ({ node: document.body, offset: 0 }), 5, 5)).toBeUndefined();
    expect(hitTest(store, () => null, 5, 5)).toBeUndefined();
    expect(hitTest(store, () => ({ node, offset: 24 }), 5, 5)?.ip).toBe('8.8.8.8');
  });

  it('makes no range for text that changed under a stale match', () => {
    const { node, store } = setup();
    const occ = store.occurrencesOfNode(node)[1]!;
    node.data = 'short';
    expect(liveRange(occ)).toBeNull();
  });

  it('counts the edge of a glyph box as inside', () => {
    expect(pointInRects([rect(10, 10, 10, 10)], 21, 20)).toBe(true);
    expect(pointInRects([rect(10, 10, 10, 10)], 22, 20)).toBe(false);
  });
});
