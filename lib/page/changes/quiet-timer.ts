/**
 * Runs a task once the page has gone `quietMs` without a `touch()` (after a storm of removals,
 * when resizing maps sized for its peak is worth it). One timer, re-armed for what is left of
 * the wait, not one per touch: a storm removes nodes every frame.
 */
export interface QuietTimer {
  touch(): void;
  stop(): void;
}

export function quietTimer(quietMs: number, task: () => void): QuietTimer {
  let touchedAt = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const check = (): void => {
    const left = touchedAt + quietMs - performance.now();
    if (left > 0) {
      timer = setTimeout(check, left);
      return;
    }
    timer = undefined;
    task();
  };
  return {
    touch() {
      touchedAt = performance.now();
      if (timer === undefined) timer = setTimeout(check, quietMs);
    },
    stop() {
      clearTimeout(timer);
    },
  };
}
