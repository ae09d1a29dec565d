import { describe, expect, it } from 'vitest';
import { alignmentOf, frameThreadMs, framesBeyond, rankedMedian } from '../../bench/frame-attribution';

describe('rankedMedian', () => {
  it('takes the median of each rank over runs, a missing rank counting as 0', () => {
    expect(rankedMedian([[100, 60], [90], [120, 70, 55]])).toEqual([100, 60, 0]);
  });

  it('is empty when the page alone made no long frame', () => {
    expect(rankedMedian([[], []])).toEqual([]);
  });
});

describe('framesBeyond', () => {
  it("does not count the page's own frame as ours", () => {
    expect(framesBeyond([98], [100])).toBe(0);
  });

  it('counts what a frame has beyond the matching frame of the page alone', () => {
    expect(framesBeyond([160], [100])).toBe(60);
  });

  it('counts a frame the page alone does not make, whole, even when shorter than its longest', () => {
    expect(framesBeyond([100, 70], [100])).toBe(70);
  });

  it('counts everything when the page alone is idle (a one-off scan of a loaded page)', () => {
    expect(framesBeyond([207, 60], [])).toBe(207);
  });
});

describe('frameThreadMs', () => {
  const task = (ts: number, tdur: number, tid = 1) => ({ name: 'RunTask', ph: 'X', ts, dur: tdur * 2, tdur, tid });
  // performance.now() 1,000 ms was trace time 5,000,000 µs.
  const align = { ts: 5_000_000, now: 1000, tid: 1 };

  it("sums the thread time of the main thread's tasks that start in the frame", () => {
    const events = [task(5_100_000, 20_000), task(5_150_000, 10_000), task(5_300_000, 99_000), task(5_120_000, 50_000, 2)];
    // Frame at 1,100 ms, 100 ms long: the first two tasks (the third starts after it, the fourth is another thread).
    expect(frameThreadMs(events, [{ start: 1100, frame: 100 }], align)).toEqual([30]);
    expect(frameThreadMs(events, [{ start: 1100, frame: 100 }], align, new Set([events[1]!]))).toEqual([10]);
  });

  it('finds the alignment stamp', () => {
    const stamp = { name: 'TimeStamp', ph: 'I', ts: 7, tid: 3, args: { data: { message: 'bench-align' } } };
    expect(alignmentOf([stamp], 'bench-align', 42)).toEqual({ ts: 7, now: 42, tid: 3 });
    expect(alignmentOf([stamp], 'other', 42)).toBeUndefined();
  });
});
