import { describe, expect, it } from 'vitest';
import { formatKinds, insideTasks, medianKinds, taskKinds, type KindEvent } from '../../bench/task-kinds';

const URL = 'chrome-extension://x/content-scripts/content.js';
const task = (ts: number, dur: number, tdur = dur): KindEvent => ({ name: 'RunTask', ph: 'X', ts, dur, tdur, tid: 1 });
const ev = (name: string, ts: number, dur: number, data?: NonNullable<KindEvent['args']>['data']): KindEvent => ({
  name,
  ph: 'X',
  ts,
  dur,
  tid: 1,
  ...(data ? { args: { data } } : {}),
});

describe('taskKinds', () => {
  it('names each task by the first dispatch event in it, and sums thread time and GC per kind', () => {
    const tasks = [task(0, 1000), task(2000, 5000, 4000), task(8000, 3000), task(12000, 2000), task(15000, 1000)];
    const events = [
      ...tasks,
      ev('EvaluateScript', 10, 900, { url: URL }),
      ev('RunPostTaskCallback', 2010, 4900),
      ev('FunctionCall', 2020, 10, { url: URL, functionName: '' }),
      ev('MinorGC', 3000, 1000),
      ev('TimerFire', 8010, 2900),
      ev('FunctionCall', 8020, 2800, { url: URL, functionName: 'paint' }),
      ev('FunctionCall', 12010, 1900, { url: URL, functionName: 'onIntersect' }),
      ev('FunctionCall', 15010, 900, { url: URL, functionName: '', columnNumber: 3 }),
    ];
    const kinds = taskKinds(events, tasks, URL, 'a=(e)=>{b(e)}');
    expect(Object.fromEntries(kinds)).toMatchObject({
      evaluation: { n: 1, thread: 1, gc: 0 },
      'postTask (scan slices)': { n: 1, thread: 4, gc: 1 },
      'timer paint': { n: 1, thread: 3, gc: 0 },
      'callback onIntersect': { n: 1, thread: 2, gc: 0 },
      'callback "(e)=>{b(e)}"': { n: 1, thread: 1, gc: 0 },
    });
  });

  it('splits a task of observer callbacks by callback, each up to the next one (thread clock)', () => {
    const t = { ...task(0, 10000, 8000), tts: 0 };
    const events = [
      t,
      { ...ev('FunctionCall', 100, 50, { url: URL, functionName: 'frameSeen' }), tts: 100 },
      { ...ev('MinorGC', 2000, 1000), tts: 2000 },
      { ...ev('FunctionCall', 6000, 3000, { url: URL, functionName: 'coarse' }), tts: 5000 },
      // Nested in the call before: not a callback of its own.
      { ...ev('FunctionCall', 6100, 100, { url: URL, functionName: 'inner' }), tts: 5100 },
    ];
    expect(Object.fromEntries(taskKinds(events, [t], URL))).toEqual({
      'callback frameSeen': { n: 1, thread: 5, gc: 1, each: [5] },
      'callback coarse': { n: 1, thread: 3, gc: 0, each: [3] },
    });
  });

  it('names a task whose only call of ours came after the page its own (a microtask of ours)', () => {
    const t = task(0, 1000);
    const events = [t, ev('FunctionCall', 10, 100, { url: 'https://page/app.js', functionName: 'render' }), ev('FunctionCall', 200, 100, { url: URL, functionName: 'onMutations' })];
    expect([...taskKinds(events, [t], URL).keys()]).toEqual(['callback onMutations']);
  });
});

describe('medianKinds', () => {
  it('takes each kind’s median over runs, 0 in a run without it, most time first', () => {
    const a = new Map([['timer', { n: 1, thread: 2, gc: 0 }]]);
    const b = new Map([
      ['timer', { n: 3, thread: 4, gc: 1 }],
      ['evaluation', { n: 1, thread: 9, gc: 0 }],
    ]);
    const c = new Map([['timer', { n: 2, thread: 3, gc: 0 }]]);
    expect(medianKinds([a, b, c])).toEqual([
      ['timer', { n: 2, thread: 3, gc: 0 }],
      ['evaluation', { n: 0, thread: 0, gc: 0 }],
    ]);
    expect(formatKinds(medianKinds([b]))).toBe('evaluation 1/9.0/0.0 | timer 3/4.0/1.0');
  });
});

describe('insideTasks', () => {
  it('sums the events nested in the given tasks only', () => {
    const t = task(0, 1000);
    const events = [t, ev('MinorGC', 10, 300), ev('MinorGC', 5000, 300), ev('Layout', 500, 200)];
    expect(insideTasks(events, [t])).toBe('MinorGC×1 0.3 | Layout×1 0.2');
  });
});
