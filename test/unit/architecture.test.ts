/**
 * The layering rules that need the whole import graph (scripts/check-architecture.ts): no
 * import cycle, type imports included, and nothing in the content script's runtime graph that
 * would ship zod or the settings (and their storage) to every scanned page. And no comment,
 * script or test that points at a tracker number instead of saying its reason.
 */
import { describe, expect, it } from 'vitest';
import {
  buildGraph,
  CONTENT_ENTRY,
  findCycles,
  forbiddenRuntimeImports,
  type ImportGraph,
  TRACKER_FREE_DIRS,
  trackerNumbers,
  trackerNumbersIn,
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

describe('tracker numbers', () => {
  // Built from pieces, so this file does not hold what it looks for.
  const issue = (n: string) => ['iss', 'ue ', n].join('');
  const stop = (n: string) => ['st', 'op ', n].join('');

  it('finds each tracker number with its line, in any case and plural', () => {
    const text = [`// ${issue('11')}: why`, 'const x = 1;', `/* ${stop('24')} and ${'Iss' + 'ues 11'} and 16, ${issue('#3')} */`].join('\n');
    expect(trackerNumbersIn(text)).toEqual([
      { line: 1, found: issue('11') },
      { line: 3, found: stop('24') },
      { line: 3, found: 'Iss' + 'ues 11' },
      { line: 3, found: issue('#3') },
    ]);
  });

  it('leaves words that only look alike alone', () => {
    expect(trackerNumbersIn('an issue with 3 rows; stops at 5; tissue 12; reissued 4 times')).toEqual([]);
  });

  it('looks in the code, scripts, gateway and tests', () => {
    expect(TRACKER_FREE_DIRS).toEqual(['lib', 'components', 'entrypoints', 'scripts', 'gateway', 'test']);
  });

  it('has none left in the tree (test/fixtures aside): a comment says its reason, not a number', () => {
    expect(trackerNumbers()).toEqual([]);
  });
});
