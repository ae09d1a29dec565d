import { describe, expect, it } from 'vitest';
import { paintThrottle, type PaintThrottleEnv } from '@/lib/page/marks/paint-throttle';

/** A clock and timers the test runs by hand. */
function fakeClock() {
  let now = 0;
  let timers: { at: number; run: () => void }[] = [];
  const env: PaintThrottleEnv = {
    now: () => now,
    setTimer: (run, ms) => timers.push({ at: now + ms, run }),
  };
  return {
    env,
    get timers() {
      return timers.length;
    },
    /** Moves the clock on, running the timers that fall due. */
    advance(ms: number) {
      now += ms;
      const due = timers.filter((t) => t.at <= now);
      timers = timers.filter((t) => t.at > now);
      due.forEach((t) => t.run());
    },
  };
}

describe('paintThrottle', () => {
  it('applies the first change in the next task, then at most once per gap, all queued changes in one run', () => {
    const clock = fakeClock();
    const schedule = paintThrottle(clock.env, 100);
    const applied: string[] = [];
    schedule(() => applied.push('first'));
    expect(applied).toEqual([]);
    clock.advance(0);
    expect(applied).toEqual(['first']);

    // Changes in the next frames wait for the gap, and are applied once.
    clock.advance(16);
    schedule(() => applied.push('second'));
    schedule(() => applied.push('latest'));
    expect(clock.timers).toBe(1);
    clock.advance(16);
    expect(applied).toEqual(['first']);
    clock.advance(67);
    expect(applied).toEqual(['first']);
    clock.advance(1);
    expect(applied).toEqual(['first', 'latest']);
    expect(clock.timers).toBe(0);

    // Long after the last run, the next change goes in the next task again.
    clock.advance(500);
    schedule(() => applied.push('later'));
    clock.advance(0);
    expect(applied).toEqual(['first', 'latest', 'later']);
  });
});
