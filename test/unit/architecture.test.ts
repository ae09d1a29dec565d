/**
 * The layering rules that need the whole import graph (scripts/check-architecture.ts): no
 * import cycle, type imports included, and nothing in the content script's runtime graph that
 * would ship zod or the settings (and their storage) to every scanned page.
 */
import { describe, expect, it } from 'vitest';
import {
  buildGraph,
  CONTENT_ENTRY,
  findCycles,
  forbiddenRuntimeImports,
  type ImportGraph,
} from '../../scripts/check-architecture';

const graph = buildGraph();

function graphOf(edges: Record<string, [string, boolean?][]>): ImportGraph {
  return new Map(Object.entries(edges).map(([from, to]) => [from, to.map(([file, typeOnly]) => ({ to: file, typeOnly: !!typeOnly }))]));
}

describe('import graph', () => {
  it('reads the real tree, its type-only imports and the content entry', () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(graph.get(CONTENT_ENTRY)?.length).toBeGreaterThan(0);
    // Every module takes zod through lib/zod.ts (jitless before any schema exists).
    expect(graph.get('lib/messaging.ts')).toContainEqual({ to: 'lib/zod.ts', typeOnly: false });
    expect(graph.get('lib/zod.ts')).toContainEqual({ to: 'zod', typeOnly: false });
    expect(graph.get('lib/page/page-lens.ts')).toContainEqual({ to: 'lib/protocol.ts', typeOnly: true });
  });

  it('has no import cycle, type imports included', () => {
    expect(findCycles(graph)).toEqual([]);
  });

  it('finds a cycle, even one made of type imports only', () => {
    const cyclic = graphOf({ 'a.ts': [['b.ts', true]], 'b.ts': [['c.ts']], 'c.ts': [['a.ts', true]], 'd.ts': [['a.ts']] });
    expect(findCycles(cyclic)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
  });

  it('keeps zod and lib/settings out of the content script at run time', () => {
    expect(forbiddenRuntimeImports(graph, CONTENT_ENTRY)).toEqual([]);
  });

  it('names the chain that would bring zod or the settings to the page; type imports do not', () => {
    const leaky = graphOf({
      [CONTENT_ENTRY]: [['lib/page/x.ts'], ['lib/messaging.ts', true]],
      'lib/page/x.ts': [['lib/settings/store.ts']],
      'lib/messaging.ts': [['zod']],
    });
    expect(forbiddenRuntimeImports(leaky, CONTENT_ENTRY)).toEqual([
      `lib/settings: ${CONTENT_ENTRY} -> lib/page/x.ts -> lib/settings/store.ts`,
    ]);
  });
});
