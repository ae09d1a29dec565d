import { describe, expect, it } from 'vitest';
import { BLOCK_HIGHLIGHT, BlockMarks } from '../../../../lib/page/marks/block-marks';
import { findIps } from '../../../../lib/ip';

function fakeEnv() {
  const registry = new Map<string, unknown>();
  const root = { adoptedStyleSheets: [] as unknown[] };
  const env = {
    registry: registry as unknown as HighlightRegistry,
    createHighlight: () => new Set() as unknown as Highlight,
    createSheet: () => ({ replaceSync() {} }) as unknown as CSSStyleSheet,
    styleRoot: root as unknown as Document,
    makeRange: (node: Text, start: number, end: number) => ({ node, start, end }) as unknown as AbstractRange,
  };
  return { env, registry, root };
}

const text = (data: string, isConnected = true) => ({ data, isConnected }) as unknown as Text;

describe('BlockMarks', () => {
  it('marks blocks under their own highlight, installed only once a block is found', () => {
    const { env, registry, root } = fakeEnv();
    const marks = new BlockMarks(env);
    marks.scanText(text('no blocks 1.2.3.4 here'), 'no blocks 1.2.3.4 here');
    expect(registry.has(BLOCK_HIGHLIGHT)).toBe(false);
    expect(root.adoptedStyleSheets).toHaveLength(0);
    const node = text('drop 185.220.101.0/24 and 2001:db8::/120, not 10/24');
    marks.scanText(node, node.data);
    expect(marks.size).toBe(2);
    expect(registry.has(BLOCK_HIGHLIGHT)).toBe(true);
    expect(root.adoptedStyleSheets).toHaveLength(1);
    expect([...marks.blocks()]).toEqual([['185.220.101.0/24', 1], ['2001:db8::/120', 1]]);
    // The node's text changes: its old marks go.
    marks.scanText(node, 'now nothing');
    expect(marks.size).toBe(0);
  });

  it('forgets nodes that left the page, and cleans up on dispose', () => {
    const { env, registry, root } = fakeEnv();
    const marks = new BlockMarks(env);
    const gone = text('185.220.101.0/24', false);
    marks.scanText(gone, gone.data);
    marks.sweep();
    expect(marks.size).toBe(0);
    marks.scanText(text('185.220.101.0/24'), '185.220.101.0/24');
    marks.dispose();
    expect(registry.has(BLOCK_HIGHLIGHT)).toBe(false);
    expect(root.adoptedStyleSheets).toHaveLength(0);
  });
});

describe('blockAwareFindIps', () => {
  it('drops a block network address, keeps hosts with a prefix and plain IPs', () => {
    const { env } = fakeEnv();
    const marks = new BlockMarks(env);
    const find = marks.blockAwareFindIps(findIps);
    const data = 'block 185.220.101.0/24 host 185.220.101.1 inet 203.0.113.7/24';
    expect(find(data).map((m) => m.ip)).toEqual(['185.220.101.1', '203.0.113.7']);
    // The scanner hands the same text over next: its blocks come from that one scan.
    marks.scanText(text(data), data);
    expect([...marks.blocks().keys()]).toEqual(['185.220.101.0/24']);
    expect(find('2001:db8::/120 and 2001:db8::5').map((m) => m.ip)).toEqual(['2001:db8::5']);
  });
});
