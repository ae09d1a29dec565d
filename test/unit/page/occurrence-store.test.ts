// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { findIps } from '@/lib/ip';
import { emptyChange, OccurrenceStore } from '@/lib/page/occurrence-store';
import { fakeRangeFactory } from './dom-fakes';

function setup(text: string) {
  const store = new OccurrenceStore(fakeRangeFactory);
  const node = document.createTextNode(text);
  document.body.append(node);
  return { store, node };
}

describe('OccurrenceStore', () => {
  it('indexes matches by node and by IP, with ranges over the matched characters', () => {
    const { store, node } = setup('src 185.220.101.1 dst 8.8.8.8 again 185.220.101.1');
    const change = emptyChange();
    store.setMatches(node, findIps(node.data), change);
    expect(change.added.map((o) => o.ip)).toEqual(['185.220.101.1', '8.8.8.8', '185.220.101.1']);
    expect(store.countOf('185.220.101.1')).toBe(2);
    expect([...store.ips()].sort()).toEqual(['185.220.101.1', '8.8.8.8']);
    const first = change.added[0]!;
    expect(first.range).toBeUndefined();
    const range = store.rangeOf(first);
    expect(node.data.slice(range.startOffset, range.endOffset)).toBe('185.220.101.1');
    expect(store.rangeOf(first)).toBe(range);
    expect(store.occurrenceAt(node, 4)?.ip).toBe('185.220.101.1');
    expect(store.occurrenceAt(node, 3)).toBeUndefined();
  });

  it('keeps the same occurrences when a node is re-set to the same text (no churn)', () => {
    const { store, node } = setup('1.2.3.4');
    store.setMatches(node, findIps(node.data), emptyChange());
    const before = store.occurrencesOfNode(node)[0];
    const change = emptyChange();
    store.setMatches(node, findIps(node.data), change);
    expect(change.added).toEqual([]);
    expect(change.removed).toEqual([]);
    expect(store.occurrencesOfNode(node)[0]).toBe(before);
  });

  it('holds a node with one occurrence, then several, then one again (a lone one is kept without an array)', () => {
    const { store, node } = setup('1.2.3.4');
    const change = emptyChange();
    store.setMatches(node, findIps(node.data), change);
    expect(store.occurrencesOfNode(node).map((o) => o.ip)).toEqual(['1.2.3.4']);
    expect(store.occurrenceAt(node, 2)).toBe(change.added[0]);
    node.data = '1.2.3.4 to 5.6.7.8';
    store.setMatches(node, findIps(node.data), change);
    expect(store.occurrencesOfNode(node).map((o) => o.ip)).toEqual(['1.2.3.4', '5.6.7.8']);
    expect(store.occurrenceAt(node, 12)?.ip).toBe('5.6.7.8');
    expect(store.occurrenceCount).toBe(2);
    node.data = '9.9.9.9';
    store.setMatches(node, findIps(node.data), change);
    expect(store.occurrencesOfNode(node).map((o) => o.ip)).toEqual(['9.9.9.9']);
    expect([...store.ips()]).toEqual(['9.9.9.9']);
    expect(store.occurrenceCount).toBe(1);
    const forget = emptyChange();
    store.forgetNode(node, forget);
    expect(forget.removed.map((o) => o.ip)).toEqual(['9.9.9.9']);
    expect(store.occurrencesOfNode(node)).toEqual([]);
    expect(store.nodeCount).toBe(0);
  });

  it('replaces matches when text changes and forgets nodes that left the page', () => {
    const { store, node } = setup('1.2.3.4');
    store.setMatches(node, findIps(node.data), emptyChange());
    node.data = 'now 5.6.7.8';
    const change = emptyChange();
    store.setMatches(node, findIps(node.data), change);
    expect(change.removed.map((o) => o.ip)).toEqual(['1.2.3.4']);
    expect(change.added.map((o) => o.ip)).toEqual(['5.6.7.8']);
    expect(store.countOf('1.2.3.4')).toBe(0);

    const sweep = emptyChange();
    store.sweepDisconnected(sweep);
    expect(sweep.removed).toEqual([]);
    node.remove();
    store.sweepDisconnected(sweep);
    expect(sweep.removed.map((o) => o.ip)).toEqual(['5.6.7.8']);
    expect(store.ipCount).toBe(0);
    expect(store.nodeCount).toBe(0);
  });
});
