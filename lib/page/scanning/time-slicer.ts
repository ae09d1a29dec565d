/**
 * Cooperative time slicing: long page work (walking 100k text nodes) runs in short slices and
 * hands the main thread back to the page between them, so the console never freezes and no
 * task of ours gets near the 50 ms "long task" line.
 */

/**
 * What the work after the pause is for: `user-visible` for what the analyst sees now (rows on
 * screen, text the page just rendered), `background` for the rest of a whole-page scan.
 */
export type YieldPriority = 'user-visible' | 'background';
export type YieldFn = (priority?: YieldPriority) => Promise<void>;

interface PostTaskScheduler {
  postTask?: (callback: () => void, options: { priority: YieldPriority }) => Promise<void>;
}

/**
 * Scanning is background work: it continues at `background` priority (scheduler.postTask,
 * Chrome 94+), behind the page's own tasks, rendering, and the replies that bring lookup
 * results. Not `scheduler.yield()`: its continuations go ahead of other tasks, and a long scan
 * starved IntersectionObserver callbacks and message replies, so on-screen IPs waited for the
 * whole page to be scanned (benchmark: 4.9 s instead of a few hundred ms). Elsewhere a
 * MessageChannel post: a macrotask without setTimeout's 4 ms clamp.
 *
 * Work for what is on screen continues at `user-visible` priority, level with the page's own
 * tasks: a live tail that re-renders 5,000 rows every second keeps the main thread busy by
 * itself, and background continuations then never ran (bench page: 0 % of its new rows
 * marked within 500 ms). That work is small (the rows on screen), so it cannot starve anything.
 */
export function defaultYield(): YieldFn {
  const scheduler = (globalThis as { scheduler?: PostTaskScheduler }).scheduler;
  if (scheduler && typeof scheduler.postTask === 'function') {
    return (priority = 'background') => scheduler.postTask!(() => {}, { priority });
  }
  if (typeof MessageChannel === 'function') {
    const channel = new MessageChannel();
    const waiting: (() => void)[] = [];
    channel.port1.onmessage = () => waiting.shift()?.();
    return () =>
      new Promise<void>((resolve) => {
        waiting.push(resolve);
        channel.port2.postMessage(null);
      });
  }
  return () => new Promise<void>((resolve) => setTimeout(resolve, 0));
}

/**
 * Tells the slicer when the page has rendered a frame, from a task of its own, never from a
 * callback inside the frame (see frameWatch).
 */
export interface FrameWatch {
  /** True if a frame ran since the last call; watches for the next one either way. */
  passed(): boolean;
  /** Resolves after the next frame (or when none comes: a timeout, a hidden tab). */
  next(): Promise<void>;
}

/** A frame that does not come within this is not waited for (none is due, or the tab is hidden). */
const FRAME_WAIT_MS = 100;

/**
 * Frames seen through an IntersectionObserver. A new observation is reported after the next
 * rendering update, in a task of its own (Chromium posts the delivery), so nothing of ours runs
 * inside the frame. A `requestAnimationFrame` gate did: the frame's task, restyle included,
 * became our task (longest task 19-46 -> 65-213 ms, docs/page-performance.md).
 * `document.timeline.currentTime` is no signal: Chromium moves it on the vsync grid between
 * frames too (measured: it advances every 16.7 ms with no frame requested).
 */
export function frameWatch(root?: Document): FrameWatch | null {
  if (typeof IntersectionObserver !== 'function') return null;
  const doc = root ?? document;
  let seen = false;
  let watching = false;
  let waiting: (() => void)[] = [];
  const observer = new IntersectionObserver(() => {
    observer.disconnect();
    watching = false;
    seen = true;
    const woken = waiting;
    waiting = [];
    for (const wake of woken) wake();
  });
  const watch = () => {
    if (watching || !doc.documentElement) return;
    observer.observe(doc.documentElement);
    watching = true;
  };
  return {
    passed() {
      const was = seen;
      seen = false;
      watch();
      return was;
    },
    next() {
      if (doc.visibilityState === 'hidden') return Promise.resolve();
      watch();
      return new Promise((resolve) => {
        waiting.push(resolve);
        setTimeout(resolve, FRAME_WAIT_MS);
      });
    },
  };
}

export interface TimeSlicerOptions {
  /** Longest stretch of work before yielding. */
  budgetMs?: number;
  now?: () => number;
  yieldFn?: YieldFn;
  /** Frames rendered (null: slices never wait for one). */
  frames?: FrameWatch | null;
  /** Slice time since the last frame after which the next slice waits for a frame. */
  frameBudgetMs?: number;
}

export interface TimeSlicer {
  /** Starts a slice's clock. */
  begin(): void;
  /** True once the current slice has used its budget. */
  expired(): boolean;
  /** Yields to the page and starts a new slice. */
  pause(priority?: YieldPriority): Promise<void>;
}

/**
 * Slices of a long scan run back to back while a frame is due but not yet rendered (the
 * compositor is still busy with the last one): the frame then counts all of them, and with
 * its own restyle and GC it went past 50 ms (registered scan: frames of 81-139 ms thread
 * time, 41-90 ms of them our slices). So after `frameBudgetMs` of slices with no frame in
 * between, the next background slice waits for one.
 */
export function createTimeSlicer(options: TimeSlicerOptions = {}): TimeSlicer {
  const budget = options.budgetMs ?? 8;
  const now = options.now ?? (() => performance.now());
  const yieldFn = options.yieldFn ?? defaultYield();
  const frames = options.frames === undefined ? frameWatch() : options.frames;
  const frameBudget = options.frameBudgetMs ?? 16;
  let started = now();
  /** Slice time since the last frame seen. */
  let sinceFrame = 0;
  return {
    begin() {
      started = now();
    },
    expired() {
      return now() - started >= budget;
    },
    async pause(priority) {
      const worked = now() - started;
      sinceFrame = frames?.passed() ? worked : sinceFrame + worked;
      // Work for the screen does not wait: its marks belong in the frame being prepared.
      if (frames && sinceFrame >= frameBudget && priority !== 'user-visible') {
        sinceFrame = 0;
        await frames.next();
      }
      // Then a yield at the work's own priority all the same: resumed from the observer's
      // task, a background slice went ahead of the page's tasks and the lookup replies (live
      // tail: addresses new to the screen marked within 500 ms 100 / 92 % -> 78 / 79 %).
      await yieldFn(priority);
      started = now();
    },
  };
}
