import { describe, expect, it } from 'vitest';
import { percentile, summarizeInsertions, type InsertionSample } from '../../bench/insertion-timing';

const sample = (readyMs: number | null, readyFrame: number | null, firstPaintMs: number | null = 300, paintFromLoaf = true): InsertionSample => ({
  firstFrameMs: 10,
  firstPaintMs,
  readyMs,
  readyFrame,
  paintFromLoaf,
});

describe('percentile', () => {
  it('is the nearest rank, and Infinity with no values', () => {
    expect(percentile([1, 2, 3, 4], 0.5)).toBe(2);
    expect(percentile([1, 2, 3, 4], 0.95)).toBe(4);
    expect(percentile([7], 0.5)).toBe(7);
    expect(percentile([], 0.5)).toBe(Infinity);
  });
});

describe('summarizeInsertions', () => {
  it('counts marks ready in the first frame that painted the text, and those never marked', () => {
    const s = summarizeInsertions([sample(15, 0), sample(20, 0), sample(700, 2), sample(null, null)]);
    expect(s.count).toBe(4);
    expect(s.readyInFirstFrame).toBe(2);
    expect(s.never).toBe(1);
    // A never-marked event is over any target: it sorts last.
    expect(s.ready.p50).toBe(20);
    expect(s.ready.p95).toBe(Infinity);
  });

  it('reads the page’s paint times apart from the marks (without the extension nothing is ready)', () => {
    const s = summarizeInsertions([sample(null, null, 250), sample(null, null, 400, false), sample(null, null, null)]);
    expect(s.never).toBe(3);
    expect(s.readyInFirstFrame).toBe(0);
    expect(s.firstPaint).toEqual({ p50: 250, p95: 400 });
    expect(s.firstFrame).toEqual({ p50: 10, p95: 10 });
    expect(s.paintFromLoaf).toBe(1);
  });

  it('is empty but defined with no events', () => {
    const s = summarizeInsertions([]);
    expect(s).toMatchObject({ count: 0, never: 0, readyInFirstFrame: 0, ready: { p50: Infinity, p95: Infinity } });
  });
});
