import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../../bench/page';
import { selfTimeByName } from '../../bench/self-time';

const ev = (name: string, ts: number, dur: number, tdur?: number): TraceEvent => ({ name, ph: 'X', ts, dur, tid: 1, ...(tdur === undefined ? {} : { tdur }) });

describe('selfTimeByName', () => {
  it("counts each event's thread time less its children's, inside the given tasks only", () => {
    const task = ev('RunTask', 0, 1000, 900);
    const events = [
      task,
      ev('Layout', 100, 500, 450),
      ev('performLayout', 100, 300, 200),
      // No thread time: transparent, its child is the layout's.
      ev('AsyncStep', 450, 100),
      ev('ComputeIntersections', 460, 50, 40),
      ev('Paint', 700, 100, 100),
      ev('Paint', 850, 100, 50),
      // Another task, not asked for.
      ev('RunTask', 2000, 100, 100),
      ev('Layout', 2010, 50, 50),
    ];
    const self = [...selfTimeByName(events, [task])].map(([name, [ms, n]]) => [name, [Math.round(ms * 1000) / 1000, n]]);
    expect(Object.fromEntries(self)).toEqual({
      RunTask: [0.3, 1],
      Layout: [0.21, 1],
      performLayout: [0.2, 1],
      ComputeIntersections: [0.04, 1],
      Paint: [0.15, 2],
    });
  });
});
