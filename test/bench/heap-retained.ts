/**
 * Who holds the heap: the dominator tree of a heap snapshot (Cooper, Harvey and Kennedy's
 * iterative algorithm over a reverse postorder), each object's retained size (what a GC would
 * free if it went), and the objects with the largest retained size that are not roots or
 * contexts, each with its chain of dominators up to the root: the retainer path DevTools' panel
 * shows, printed by the storm benchmark (BENCH_RETAINED=1) so a run says what our isolated
 * world keeps, by name, in the non-minified build (WXT_NO_MINIFY=1).
 */
import type { Snapshot } from './heap-summary';

export interface RetainedRow {
  retainedBytes: number;
  selfBytes: number;
  /** "type name" of the object, then of its dominators, nearest first. */
  path: string[];
}

/** Objects whose retained size says nothing about who holds what: roots and whole worlds. */
const STRUCTURAL = /^(\(|system \/ NativeContext|system \/ Context|Window|Object \[JSGlobal|synthetic)/;

export function largestRetained(snap: Snapshot, top = 20, pathLength = 6): RetainedRow[] {
  const nf = snap.snapshot.meta.node_fields;
  const ef = snap.snapshot.meta.edge_fields;
  const [W, EW] = [nf.length, ef.length];
  const [NAME, EDGES, TYPE, SIZE] = [nf.indexOf('name'), nf.indexOf('edge_count'), nf.indexOf('type'), nf.indexOf('self_size')];
  const [ETYPE, ETO] = [ef.indexOf('type'), ef.indexOf('to_node')];
  const weak = snap.snapshot.meta.edge_types[0].indexOf('weak');
  const nodeTypes = snap.snapshot.meta.node_types[0];
  const n = snap.nodes.length / W;
  const firstEdge = new Uint32Array(n + 1);
  for (let i = 0; i < n; i++) firstEdge[i + 1] = firstEdge[i]! + snap.nodes[i * W + EDGES]! * EW;
  const successors = (v: number, visit: (w: number) => void) => {
    for (let e = firstEdge[v]!; e < firstEdge[v + 1]!; e += EW) if (snap.edges[e + ETYPE] !== weak) visit(snap.edges[e + ETO]! / W);
  };

  // Postorder from the root (node 0), without recursion: snapshots are millions of nodes deep.
  const order = new Int32Array(n).fill(-1);
  const byOrder: number[] = [];
  const stack: number[] = [0];
  const cursor = new Uint32Array(n);
  const seen = new Uint8Array(n);
  seen[0] = 1;
  cursor[0] = firstEdge[0]!;
  while (stack.length) {
    const v = stack[stack.length - 1]!;
    let pushed = false;
    while (cursor[v]! < firstEdge[v + 1]!) {
      const e = cursor[v]!;
      cursor[v] = e + EW;
      if (snap.edges[e + ETYPE] === weak) continue;
      const w = snap.edges[e + ETO]! / W;
      if (seen[w]) continue;
      seen[w] = 1;
      cursor[w] = firstEdge[w]!;
      stack.push(w);
      pushed = true;
      break;
    }
    if (!pushed) {
      stack.pop();
      order[v] = byOrder.length;
      byOrder.push(v);
    }
  }
  const predecessors: number[][] = Array.from({ length: n }, () => []);
  for (const v of byOrder) successors(v, (w) => predecessors[w]!.push(v));

  const idom = new Int32Array(n).fill(-1);
  idom[0] = 0;
  const intersect = (a: number, b: number) => {
    while (a !== b) {
      while (order[a]! < order[b]!) a = idom[a]!;
      while (order[b]! < order[a]!) b = idom[b]!;
    }
    return a;
  };
  for (let changed = true; changed; ) {
    changed = false;
    for (let k = byOrder.length - 2; k >= 0; k--) {
      const v = byOrder[k]!;
      let next = -1;
      for (const p of predecessors[v]!) if (idom[p] !== -1) next = next === -1 ? p : intersect(p, next);
      if (next !== -1 && idom[v] !== next) {
        idom[v] = next;
        changed = true;
      }
    }
  }

  const retained = new Float64Array(n);
  for (const v of byOrder) retained[v] = retained[v]! + snap.nodes[v * W + SIZE]!;
  for (const v of byOrder) if (v !== 0) retained[idom[v]!] = retained[idom[v]!]! + retained[v]!;

  const label = (v: number) => `${nodeTypes[snap.nodes[v * W + TYPE]!]} ${(snap.strings[snap.nodes[v * W + NAME]!] ?? '?').slice(0, 60)}`;
  const nameOf = (v: number) => snap.strings[snap.nodes[v * W + NAME]!] ?? '';
  return byOrder
    .filter((v) => v !== 0 && !STRUCTURAL.test(nameOf(v)))
    .sort((a, b) => retained[b]! - retained[a]!)
    .slice(0, top)
    .map((v) => {
      const path: string[] = [];
      for (let u = v; u !== 0 && path.length < pathLength; u = idom[u]!) path.push(label(u));
      return { retainedBytes: retained[v]!, selfBytes: snap.nodes[v * W + SIZE]!, path };
    });
}
