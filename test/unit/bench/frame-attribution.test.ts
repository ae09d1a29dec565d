import { describe, expect, it } from 'vitest';
import { framesBeyond, rankedMedian } from '../../bench/frame-attribution';

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
