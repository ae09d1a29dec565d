/**
 * A clock the test moves by hand. Timers fire only inside advance(), in due order, with the
 * promise jobs they start given a chance to run between them.
 */
import type { Clock } from '../../../../lib/lookup/clock';

export interface ManualClock extends Clock {
  advance(ms: number): Promise<void>;
  pending(): number;
}

export function createManualClock(start = Date.UTC(2025, 0, 1)): ManualClock {
  let now = start;
  let nextId = 1;
  const timers = new Map<number, { at: number; callback: () => void }>();
  const settle = async () => {
    for (let i = 0; i < 10; i++) await Promise.resolve();
  };
  return {
    now: () => now,
    setTimeout(callback, ms) {
      const id = nextId++;
      timers.set(id, { at: now + Math.max(0, ms), callback });
      return id;
    },
    clearTimeout(handle) {
      timers.delete(handle as number);
    },
    pending: () => timers.size,
    async advance(ms) {
      const target = now + ms;
      for (;;) {
        await settle();
        let due: [number, { at: number; callback: () => void }] | undefined;
        for (const entry of timers) if (entry[1].at <= target && (!due || entry[1].at < due[1].at)) due = entry;
        if (!due) break;
        timers.delete(due[0]);
        now = Math.max(now, due[1].at);
        due[1].callback();
      }
      now = target;
      await settle();
    },
  };
}
