/**
 * When the highlighter applies its queued mark changes: all at once, in one task of their own,
 * at most once per `gapMs`. Marks on screen do not wait for it (mark-dispatch.ts paints them,
 * and their answers, in the frame they come); what waits is marks near the screen but not on
 * it, their answers, and marks leaving (far away, or their text gone), none of which the analyst
 * can see change. A waiting mark that comes on screen is painted then, a frame after its text.
 *
 * Why they wait: every frame in which a highlight gains or loses a range costs the browser work
 * in proportion to the page, not to the change. Chromium rebuilds all highlight markers in that
 * frame, and with an underline (any text decoration) it invalidates the ink overflow of every
 * marked text, which recomputes the overflow of the table or list around it over all its rows:
 * PrePaint per such frame, one range added to a still, scrolling table (Chromium 156, bench
 * highlight-cost): +2.7 ms at 1,000 rows, +15.5 ms at 5,000 and +45.8 ms at 20,000, against
 * +0.2-1.2 ms at any size with a background fill. On the React live tail, scrolled, batches
 * every 100 ms changed our highlights in 25-38 frames a run (8 s), each a rendering task of
 * the page's size; batches every second in 12-14, every 3 s in 7-9, marks still on screen in
 * the frame their text was.
 * The near band is one screen: the bench's scroll (240 px/s) crosses it in about 3 s.
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

/** At most one batch of off-screen mark changes every 3 s. */
export const PAINT_GAP_MS = 3000;

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
