/**
 * What a renderer's JS heap holds, by constructor: a heap snapshot taken over CDP (after a
 * forced GC), grouped by node type and name, largest self size first. Used by the storm
 * benchmark to see what stays alive, and whether it is the page's or ours: the content
 * script's isolated world shares the page's V8 heap, so a snapshot is the only way to tell
 * its objects apart (by their constructor names).
 */
import type { Page } from '@playwright/test';
import { largestRetained } from './heap-retained';

export interface HeapGroup {
  type: string;
  name: string;
  count: number;
  selfBytes: number;
  /** Nodes the snapshot marks detached from the document (DOM wrappers kept by JS). */
  detached: number;
}

export interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]]; edge_fields: string[]; edge_types: [string[]] } };
  nodes: number[];
  edges: number[];
  strings: string[];
}

/**
 * Who holds the objects named `names` (by constructor): retainer name and edge, most first.
 * A name ending in `*` matches every constructor name it starts (native names are long).
 */
export function retainersOf(snap: Snapshot, names: string[], top = 8): Map<string, string[]> {
  const nf = snap.snapshot.meta.node_fields;
  const ef = snap.snapshot.meta.edge_fields;
  const width = nf.length;
  const [NAME, EDGES, TYPE] = [nf.indexOf('name'), nf.indexOf('edge_count'), nf.indexOf('type')];
  const [ETYPE, ENAME, ETO] = [ef.indexOf('type'), ef.indexOf('name_or_index'), ef.indexOf('to_node')];
  const edgeTypes = snap.snapshot.meta.edge_types[0];
  const nodeTypes = snap.snapshot.meta.node_types[0];
  const counts = new Map<string, Map<string, number>>(names.map((n) => [n, new Map()]));
  const prefixes = names.filter((n) => n.endsWith('*'));
  let edge = 0;
  for (let i = 0; i < snap.nodes.length; i += width) {
    const from = snap.strings[snap.nodes[i + NAME]!] ?? '?';
    const fromType = nodeTypes[snap.nodes[i + TYPE]!];
    for (let e = 0; e < snap.nodes[i + EDGES]!; e++, edge += ef.length) {
      const to = snap.edges[edge + ETO]!;
      const toName = snap.strings[snap.nodes[to + NAME]!] ?? '?';
      const bucket = counts.get(toName) ?? (prefixes.length ? counts.get(prefixes.find((p) => toName.startsWith(p.slice(0, -1))) ?? '') : undefined);
      if (!bucket) continue;
      const etype = edgeTypes[snap.edges[edge + ETYPE]!];
      if (etype === 'weak') continue;
      const ename = etype === 'element' || etype === 'hidden' ? `[${etype}]` : snap.strings[snap.edges[edge + ENAME]!];
      const key = `${fromType}:${from.slice(0, 50)} --${etype}:${String(ename).slice(0, 40)}-->`;
      bucket.set(key, (bucket.get(key) ?? 0) + 1);
    }
  }
  return new Map([...counts].map(([n, m]) => [n, [...m].sort((a, b) => b[1] - a[1]).slice(0, top).map(([k, c]) => `${c} × ${k}`)]));
}

const STRING_SHAPES = !!process.env.BENCH_STRINGS;

function shapeOf(value: string): string {
  return JSON.stringify(value.slice(0, 24).replace(/\d/g, '9')) + (value.length > 24 ? `… (${value.length})` : '');
}

export async function heapGroups(page: Page, retainersFor: string[] = []): Promise<HeapGroup[]> {
  const cdp = await page.context().newCDPSession(page);
  const chunks: string[] = [];
  cdp.on('HeapProfiler.addHeapSnapshotChunk', ({ chunk }) => chunks.push(chunk));
  await cdp.send('HeapProfiler.enable');
  await cdp.send('HeapProfiler.collectGarbage');
  await cdp.send('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
  await cdp.detach();
  const snap = JSON.parse(chunks.join('')) as Snapshot;
  for (const [name, rows] of retainersOf(snap, retainersFor)) console.log(`retainers of ${name}:\n  ${rows.join('\n  ')}`);
  if (process.env.BENCH_RETAINED) {
    console.log(`largest retained sizes (${page.url()}), each with its dominators, nearest first:`);
    for (const row of largestRetained(snap, Number(process.env.BENCH_RETAINED) || 20)) {
      console.log(`  ${(row.retainedBytes / 1024).toFixed(0).padStart(6)} KB (self ${row.selfBytes} B) ${row.path.join(' <- ')}`);
    }
  }
  const fields = snap.snapshot.meta.node_fields;
  const width = fields.length;
  const at = (f: string) => fields.indexOf(f);
  const [TYPE, NAME, SIZE, DETACHED] = [at('type'), at('name'), at('self_size'), at('detachedness')];
  const types = snap.snapshot.meta.node_types[0];
  const groups = new Map<string, HeapGroup>();
  for (let i = 0; i < snap.nodes.length; i += width) {
    const type = types[snap.nodes[i + TYPE]!] ?? '?';
    // Strings and numbers are grouped by type only: their "name" is their value.
    // BENCH_STRINGS=1 groups strings by shape too (digits as 9, first 24 characters): which texts we hold.
    const str = type === 'string' || type === 'concatenated string' || type === 'sliced string';
    const value = snap.strings[snap.nodes[i + NAME]!] ?? '?';
    const name = str && STRING_SHAPES ? `(${type}) ${shapeOf(value)}` : str || type === 'number' ? `(${type})` : value;
    const key = `${type}\u0000${name}`;
    const g = groups.get(key) ?? { type, name, count: 0, selfBytes: 0, detached: 0 };
    g.count++;
    g.selfBytes += snap.nodes[i + SIZE]!;
    if (DETACHED >= 0 && snap.nodes[i + DETACHED] === 2) g.detached++;
    groups.set(key, g);
  }
  return [...groups.values()].sort((a, b) => b.selfBytes - a.selfBytes);
}

/**
 * The groups that grew most from `alone` to `withUs`: where the extra memory is. Matched by
 * full name: Blink's native names share their first 60 characters across template types, and
 * matching the shortened ones set the page's own 10,000 `OffsetMapping` hash tables (one per
 * log line of the 60k page, alone or not) against another group: "+1 MB, ours".
 */
export function heapGrowth(alone: HeapGroup[], withUs: HeapGroup[], top = 15): string[] {
  const base = new Map(alone.map((g) => [`${g.type}\u0000${g.name}`, g]));
  return withUs
    .map((g) => {
      const b = base.get(`${g.type}\u0000${g.name}`);
      return { g, bytes: g.selfBytes - (b?.selfBytes ?? 0), count: g.count - (b?.count ?? 0) };
    })
    .sort((x, y) => y.bytes - x.bytes)
    .slice(0, top)
    .map(({ g, bytes, count }) => `${(bytes / 1024).toFixed(0).padStart(7)} KB ${String(count).padStart(7)} × ${g.type} ${g.name.slice(0, 60)}${g.detached ? ` (${g.detached} detached)` : ''}`);
}
