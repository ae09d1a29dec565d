/**
 * When the highlighter applies its queued mark changes: all at
 * once, in one task of their own, at most once per `gapMs`. Any frame in which a registered
 * highlight gains or loses a range repaints work in proportion to the page, not to the change
 * (bench page on the 10,000-row page: 67 ms with no range at all, 150-167 ms with 100-3,000
 * ranges), so a scan that touched the highlights in every slice repainted the page in every
 * frame. Batched, a scan costs one such frame per `gapMs` however many slices it runs.
 *
 * A timer task, not `requestAnimationFrame`: changes made in one task are painted together in
 * the next frame all the same, and a frame callback would run our work inside the frame's own
 * task, ahead of the restyle and paint it sets off (and in a hidden tab frames never run, while
 * the highlights must still be current when the page is read).
 */
export type PaintScheduler = (apply: () => void) => void;

export interface PaintThrottleEnv {
  now: () => number;
  setTimer: (run: () => void, ms: number) => void;
}

/** At most one batch of mark changes per ~100 ms: marks appear at most that much later. */
export const PAINT_GAP_MS = 100;

export function browserPaintEnv(win: Window & typeof globalThis = window): PaintThrottleEnv {
  return {
    now: () => win.performance.now(),
    setTimer: (run, ms) => win.setTimeout(run, ms),
  };
}

/**
 * A scheduler that runs the latest `apply` given to it once, in a task at least `gapMs` after
 * the previous run (in the next task when the previous run is older). Calls while a run is due
 * only replace what it will run.
 */
export function paintThrottle(env: PaintThrottleEnv, gapMs = PAINT_GAP_MS): PaintScheduler {
  let last = -Infinity;
  let due: (() => void) | null = null;
  const run = () => {
    const apply = due;
    due = null;
    last = env.now();
    apply?.();
  };
  return (apply) => {
    const pending = due !== null;
    due = apply;
    if (!pending) env.setTimer(run, Math.max(0, last + gapMs - env.now()));
  };
}
