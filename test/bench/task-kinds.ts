/**
 * The content script's tasks by kind, from a trace: which of our thread time
 * is the scan's slices and which is the rest (observer and message callbacks, timers, the
 * script's evaluation). `bench page` prints it per side of its table.
 */
import { median } from './frame-attribution';
import type { TraceEvent } from './page';

/** A trace event as bench page reads it (a type-only import: page.ts imports this module). */
export type KindEvent = TraceEvent;

/** Our thread time in tasks of one kind (what started them), with the collector's share. */
export interface TaskKind {
  n: number;
  thread: number;
  gc: number;
  /** Each task's (or callback's) thread ms, in trace order. */
  each?: number[];
}

/** Trace events that say what a task ran: the first one nested in a task of ours names its kind. */
const DISPATCHERS: Record<string, string> = {
  RunPostTaskCallback: 'postTask (scan slices)',
  TimerFire: 'timer',
  FireAnimationFrame: 'animation frame',
  FireIdleCallback: 'idle callback',
};

const GC_EVENTS = new Set(['MinorGC', 'MajorGC', 'V8.GCIncrementalMarking']);

const threadMs = (e: KindEvent) => (e.tdur ?? e.dur ?? 0) / 1000;

/** The main thread's events other than tasks, per thread, in time order. */
function nestedByThread(events: KindEvent[]): Map<number, KindEvent[]> {
  const byTid = new Map<number, KindEvent[]>();
  for (const e of events) {
    if (e.ph !== 'X' || e.name === 'RunTask') continue;
    let list = byTid.get(e.tid);
    if (!list) byTid.set(e.tid, (list = []));
    list.push(e);
  }
  for (const list of byTid.values()) list.sort((a, b) => a.ts - b.ts);
  return byTid;
}

/** Index of the first event at or after `ts` in a list sorted by time (binary search). */
export function firstAtOrAfter(list: readonly { ts: number }[], ts: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid]!.ts < ts) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** A callback of ours by its function: its name, else the built file's text where it starts. */
function callbackName(data: NonNullable<KindEvent['args']>['data'], source: string): string {
  if (data?.functionName) return `callback ${data.functionName}`;
  const at = Math.max(0, (data?.columnNumber ?? 1) - 1);
  return `callback ${JSON.stringify(source.slice(at, at + 28))}`;
}

/** One task's share of a kind: a whole task, or one callback's stretch of it. */
interface Share {
  kind: string;
  thread: number;
  gc: number;
}

/**
 * A task of ours by what started it: its evaluation, a postTask continuation (the scan's
 * slices), a timer, a DOM event. A task the browser started by calling our functions directly
 * (observers: Chromium delivers every IntersectionObserver's reports of a frame in one task, one
 * callback after another) is split by callback: each gets the thread time from its call to the
 * next one's (its microtasks included), named by callbackName (`source`: the built file; a
 * class method keeps its name through terser, an arrow shows its first characters).
 */
function sharesOf(task: KindEvent, nested: KindEvent[], from: number, scriptUrl: string, source: string): Share[] {
  const end = task.ts + (task.dur ?? 0);
  const calls: KindEvent[] = [];
  let callsEnd = -Infinity;
  for (let i = from; i < nested.length && nested[i]!.ts <= end; i++) {
    const e = nested[i]!;
    const data = e.args?.data;
    if (!calls.length) {
      if (e.name === 'EvaluateScript' && data?.url === scriptUrl) return [{ kind: 'evaluation', thread: threadMs(task), gc: gcIn(nested, from, end) }];
      if (DISPATCHERS[e.name]) return [{ kind: dispatchedKind(e.name, nested, i, end, scriptUrl, source), thread: threadMs(task), gc: gcIn(nested, from, end) }];
      if (e.name === 'EventDispatch') return [{ kind: `event ${data?.type ?? '?'}`, thread: threadMs(task), gc: gcIn(nested, from, end) }];
    }
    // Top-level calls of ours only (not one nested in the call before).
    if (e.name === 'FunctionCall' && data?.url === scriptUrl && e.ts >= callsEnd) {
      calls.push(e);
      callsEnd = e.ts + (e.dur ?? 0);
    }
  }
  if (!calls.length) return [{ kind: '(other)', thread: threadMs(task), gc: gcIn(nested, from, end) }];
  // Thread clock where each stretch starts: the first takes what came before it in the task.
  const clock = (e: KindEvent) => (e.tts ?? e.ts) / 1000;
  const taskEnd = (task.tts ?? task.ts) / 1000 + threadMs(task);
  return calls.map((call, i) => {
    const next = calls[i + 1];
    const start = i === 0 ? (task.tts ?? task.ts) / 1000 : clock(call);
    const stop = next ? clock(next) : taskEnd;
    const upTo = next ? next.ts : end;
    return { kind: callbackName(call.args?.data, source), thread: Math.max(0, stop - start), gc: gcIn(nested, firstAtOrAfter(nested, call.ts), upTo) };
  });
}

/** A timer (or frame, idle) task named by the callback of ours it ran; postTask's are all `() => {}`. */
function dispatchedKind(name: string, nested: KindEvent[], from: number, end: number, scriptUrl: string, source: string): string {
  if (name === 'RunPostTaskCallback') return DISPATCHERS[name]!;
  for (let i = from; i < nested.length && nested[i]!.ts <= end; i++) {
    const e = nested[i]!;
    if (e.name === 'FunctionCall' && e.args?.data?.url === scriptUrl) return `${DISPATCHERS[name]} ${callbackName(e.args.data, source).slice('callback '.length)}`;
  }
  return DISPATCHERS[name]!;
}

function gcIn(nested: KindEvent[], from: number, end: number): number {
  let gc = 0;
  for (let i = from; i < nested.length && nested[i]!.ts <= end; i++) {
    // V8's incremental marking steps run in the tasks that allocate, outside its GC pauses.
    if (GC_EVENTS.has(nested[i]!.name)) gc += threadMs(nested[i]!);
  }
  return gc;
}

/** Our tasks' thread time by kind (see sharesOf), with the GC nested in them. */
export function taskKinds(events: KindEvent[], tasks: Iterable<KindEvent>, scriptUrl: string, source = ''): Map<string, TaskKind> {
  const byTid = nestedByThread(events);
  const kinds = new Map<string, TaskKind>();
  for (const task of tasks) {
    const nested = byTid.get(task.tid) ?? [];
    for (const share of sharesOf(task, nested, firstAtOrAfter(nested, task.ts), scriptUrl, source)) {
      const k = kinds.get(share.kind) ?? { n: 0, thread: 0, gc: 0, each: [] };
      k.n++;
      k.thread += share.thread;
      k.gc += share.gc;
      k.each!.push(share.thread);
      kinds.set(share.kind, k);
    }
  }
  return kinds;
}

/** Kinds of several runs, most thread time first: each kind's median over runs (0 in runs without it). */
export function medianKinds(runs: Map<string, TaskKind>[]): [string, TaskKind][] {
  const names = new Set(runs.flatMap((r) => [...r.keys()]));
  const out: [string, TaskKind][] = [];
  for (const name of names) {
    const of = (f: (k: TaskKind) => number) => median(runs.map((r) => (r.has(name) ? f(r.get(name)!) : 0)));
    out.push([name, { n: of((k) => k.n), thread: of((k) => k.thread), gc: of((k) => k.gc) }]);
  }
  return out.sort((a, b) => b[1].thread - a[1].thread);
}

export function formatKinds(kinds: Iterable<[string, TaskKind]>, each = false): string {
  const list = (v: TaskKind) => (each && v.each && v.n > 1 ? ` [${v.each.map((ms) => ms.toFixed(1)).join(' ')}]` : '');
  return [...kinds].map(([k, v]) => `${k} ${v.n}/${v.thread.toFixed(1)}/${v.gc.toFixed(1)}${list(v)}`).join(' | ');
}

/**
 * The trace events nested in all our tasks together, by name (thread ms; they nest, so they
 * overlap): compilation, GC, style or layout forced inside our tasks.
 */
export function insideTasks(events: KindEvent[], tasks: Iterable<KindEvent>, top = 16): string {
  const byTid = nestedByThread(events);
  const byName = new Map<string, { n: number; ms: number }>();
  for (const task of tasks) {
    const nested = byTid.get(task.tid) ?? [];
    const end = task.ts + (task.dur ?? 0);
    for (let i = firstAtOrAfter(nested, task.ts); i < nested.length && nested[i]!.ts <= end; i++) {
      const e = nested[i]!;
      const v = byName.get(e.name) ?? { n: 0, ms: 0 };
      v.n++;
      v.ms += threadMs(e);
      byName.set(e.name, v);
    }
  }
  return [...byName]
    .sort((a, b) => b[1].ms - a[1].ms)
    .slice(0, top)
    .map(([k, v]) => `${k}×${v.n} ${v.ms.toFixed(1)}`)
    .join(' | ');
}
