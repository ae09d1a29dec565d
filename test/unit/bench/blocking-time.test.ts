import { describe, expect, it } from 'vitest';
import { blockingTime, shiftedRatio } from '../../bench/blocking-time';

describe('blockingTime', () => {
  it('sums each task beyond 50 ms, after the shift', () => {
    expect(blockingTime([40, 49.5, 50, 55, 70])).toBe(25);
    expect(blockingTime([40, 49.5, 50, 55, 70], 1)).toBeCloseTo(0.5 + 1 + 6 + 21);
    expect(blockingTime([])).toBe(0);
  });

  it('reads a small per-frame cost as a large blocking change when frames sit under 50 ms', () => {
    // Frames at 49 ms block nothing; 1.5 ms more each makes them all block.
    const loads = [[49, 49, 49, 52]];
    expect(shiftedRatio(loads, 0)).toBe(1);
    expect(shiftedRatio(loads, 1.5)).toBeCloseTo((0.5 * 3 + 3.5) / 2);
    expect(shiftedRatio([[40, 45]], 1)).toBe(1);
    expect(shiftedRatio([[49.5]], 1)).toBe(Infinity);
  });
});
