/**
 * When the highlighter applies its queued mark changes (issue 11, rendering frames): in an
 * animation frame, at most once per `gapMs`. Any frame in which a registered highlight gains or
 * loses a range repaints work in proportion to the page, not to the change (bench page on the
 * 10,000-row page: 67 ms with no range at all, 150-167 ms with 100-3,000 ranges), so a scan that
 * touched the highlights in every slice repainted the page in every frame. Batched, a scan
 * costs one such frame per `gapMs` however many slices it runs.
 *
 * Applied from `requestAnimationFrame`, so all the changes land in the frame about to be
 * painted; with a timer as well, because animation frames do not run in a hidden tab (there
 * nothing is painted, and the highlights must still be current when the page is read).
 */
export type PaintScheduler = (apply: () => void) => void;

export interface PaintThrottleEnv {
  now: () => number;
  requestFrame: (run: () => void) => void;
  setTimer: (run: () => void, ms: number) => void;
}

/** At most one paint per ~100 ms: marks appear within a frame or two of that. */
export const PAINT_GAP_MS = 100;

/** A hidden tab (no frames) still gets its changes this long after they were due. */
const NO_FRAME_MS = 250;

export function browserPaintEnv(win: Window & typeof globalThis = window): PaintThrottleEnv {
  return {
    now: () => win.performance.now(),
    requestFrame: (run) => win.requestAnimationFrame(() => run()),
    setTimer: (run, ms) => win.setTimeout(run, ms),
  };
}

/**
 * A scheduler that runs the latest `apply` given to it once, in the first animation frame at
 * least `gapMs` after the previous run (at once, in the next frame, when the previous run is
 * older). Calls while a run is due only replace what it will run.
 */
export function paintThrottle(env: PaintThrottleEnv, gapMs = PAINT_GAP_MS): PaintScheduler {
  let last = -Infinity;
  let due: (() => void) | null = null;
  // Each scheduled run has its own token: the frame and the timer race, the first one wins.
  let token = 0;
  const run = (mine: number) => {
    if (mine !== token || !due) return;
    const apply = due;
    due = null;
    token++;
    last = env.now();
    apply();
  };
  return (apply) => {
    const pending = due !== null;
    due = apply;
    if (pending) return;
    const mine = ++token;
    const wait = Math.max(0, last + gapMs - env.now());
    const inFrame = () => env.requestFrame(() => run(mine));
    if (wait > 0) env.setTimer(inFrame, wait);
    else inFrame();
    env.setTimer(() => run(mine), wait + NO_FRAME_MS);
  };
}
