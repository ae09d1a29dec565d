import { describe, expect, it } from 'vitest';
import { largestRetained } from '../../bench/heap-retained';
import type { Snapshot } from '../../bench/heap-summary';

/** A snapshot in V8's flat format: nodes [type, name, self_size, edge_count], edges [type, name, to_node]. */
function snapshot(nodes: [string, number, string[]][], weak: [string, string][] = []): Snapshot {
  const strings = nodes.map(([name]) => name);
  const index = new Map(nodes.map(([name], i) => [name, i]));
  const flatNodes: number[] = [];
  const flatEdges: number[] = [];
  nodes.forEach(([name, size, to], i) => {
    const weakTo = weak.filter(([from]) => from === name).map(([, t]) => t);
    flatNodes.push(i === 0 ? 1 : 0, i, size, to.length + weakTo.length);
    for (const t of to) flatEdges.push(0, 0, index.get(t)! * 4);
    for (const t of weakTo) flatEdges.push(1, 0, index.get(t)! * 4);
  });
  return {
    snapshot: {
      meta: {
        node_fields: ['type', 'name', 'self_size', 'edge_count'],
        node_types: [['object', 'synthetic']],
        edge_fields: ['type', 'name_or_index', 'to_node'],
        edge_types: [['property', 'weak']],
      },
    },
    nodes: flatNodes,
    edges: flatEdges,
    strings,
  };
}

describe('retained sizes from the dominator tree', () => {
  it('charges an object with what only it holds, not what another path also reaches, and ignores weak edges', () => {
    const snap = snapshot(
      [
        ['(GC roots)', 0, ['Lens', 'Other']],
        ['Lens', 10, ['Shared', 'Cache']],
        ['Shared', 100, []],
        ['Other', 20, ['Shared']],
        ['Cache', 1000, []],
        ['OnlyWeak', 5000, []],
      ],
      [['Other', 'OnlyWeak']],
    );
    const rows = largestRetained(snap);
    expect(rows.map((r) => [r.path, r.retainedBytes])).toEqual([
      [['object Lens'], 1010],
      [['object Cache', 'object Lens'], 1000],
      [['object Shared'], 100],
      [['object Other'], 20],
    ]);
  });
});
