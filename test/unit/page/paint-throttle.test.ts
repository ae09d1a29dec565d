import { describe, expect, it } from 'vitest';
import { paintThrottle, type PaintThrottleEnv } from '@/lib/page/paint-throttle';

/** A clock, animation frames and timers the test runs by hand. */
function fakePaintEnv() {
  let now = 0;
  let frames: (() => void)[] = [];
  let timers: { at: number; run: () => void }[] = [];
  const env: PaintThrottleEnv = {
    now: () => now,
    requestFrame: (run) => frames.push(run),
    setTimer: (run, ms) => timers.push({ at: now + ms, run }),
  };
  return {
    env,
    get frames() {
      return frames.length;
    },
    /** Runs the animation frame now due (the browser painting). */
    frame() {
      const due = frames;
      frames = [];
      due.forEach((f) => f());
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
  it('applies the first change in the next frame, then at most once per gap, in a frame', () => {
    const clock = fakePaintEnv();
    const schedule = paintThrottle(clock.env, 100);
    let applied = 0;
    schedule(() => applied++);
    expect(clock.frames).toBe(1);
    clock.advance(16);
    clock.frame();
    expect(applied).toBe(1);

    // Changes in the next frames wait for the gap: no frame is even asked for before it.
    clock.advance(16);
    schedule(() => applied++);
    schedule(() => applied++);
    clock.advance(16);
    clock.frame();
    expect(applied).toBe(1);
    expect(clock.frames).toBe(0);
    clock.advance(68);
    expect(clock.frames).toBe(1);
    expect(applied).toBe(1);
    clock.frame();
    expect(applied).toBe(2);
    // The hidden-tab timer of a run already done does nothing.
    clock.advance(1_000);
    expect(applied).toBe(2);
  });

  it('still applies the changes in a hidden tab, where animation frames never run', () => {
    const clock = fakePaintEnv();
    const schedule = paintThrottle(clock.env, 100);
    let applied = 0;
    schedule(() => applied++);
    clock.advance(200);
    expect(applied).toBe(0);
    clock.advance(100);
    expect(applied).toBe(1);
    // The frame that comes late (tab shown again) does not apply it twice.
    clock.frame();
    expect(applied).toBe(1);
  });
});
