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

export interface TimeSlicerOptions {
  /** Longest stretch of work before yielding. */
  budgetMs?: number;
  now?: () => number;
  yieldFn?: YieldFn;
}

export interface TimeSlicer {
  /** Starts a slice's clock. */
  begin(): void;
  /** True once the current slice has used its budget. */
  expired(): boolean;
  /** Yields to the page and starts a new slice. */
  pause(priority?: YieldPriority): Promise<void>;
}

export function createTimeSlicer(options: TimeSlicerOptions = {}): TimeSlicer {
  const budget = options.budgetMs ?? 8;
  const now = options.now ?? (() => performance.now());
  const yieldFn = options.yieldFn ?? defaultYield();
  let started = now();
  return {
    begin() {
      started = now();
    },
    expired() {
      return now() - started >= budget;
    },
    async pause(priority) {
      await yieldFn(priority);
      started = now();
    },
  };
}
