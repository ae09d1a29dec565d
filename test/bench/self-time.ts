/** Where a trace's thread time went, by event name (bench storm-frames, STORM_SELF). */
import type { TraceEvent } from './page';

/**
 * Self thread time by trace event name inside the given tasks (STORM_SELF): an event's thread
 * time less its children's, so each ms of a frame is counted once, under the innermost event
 * that covers it. Events without thread time (async, instant, some flow events) are skipped:
 * their time stays with the event around them. `events` sorted by ts.
 */
export function selfTimeByName(events: readonly TraceEvent[], tasks: readonly TraceEvent[]): Map<string, [number, number]> {
  const out = new Map<string, [number, number]>();
  const add = (name: string, us: number, n: number) => {
    const row = out.get(name) ?? [0, 0];
    row[0] += us / 1000;
    row[1] += n;
    out.set(name, row);
  };
  let i = 0;
  for (const task of tasks) {
    const end = task.ts + (task.dur ?? 0);
    while (i < events.length && events[i]!.ts < task.ts) i++;
    const inside: TraceEvent[] = [];
    for (let j = i; j < events.length && events[j]!.ts <= end; j++) {
      const e = events[j]!;
      if (e.ph === 'X' && e.tdur !== undefined && e.dur !== undefined) inside.push(e);
    }
    // Parents before children: the same start, the longer first.
    inside.sort((a, b) => a.ts - b.ts || b.dur! - a.dur!);
    const stack: [end: number, name: string, self: number][] = [];
    const pop = () => {
      const [, name, self] = stack.pop()!;
      add(name, Math.max(0, self), 1);
    };
    for (const e of inside) {
      while (stack.length && stack.at(-1)![0] < e.ts + e.dur!) pop();
      if (stack.length) stack.at(-1)![2] -= e.tdur!;
      stack.push([e.ts + e.dur!, e.name, e.tdur!]);
    }
    while (stack.length) pop();
  }
  return out;
}
