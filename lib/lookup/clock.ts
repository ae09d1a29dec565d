/**
 * Time as a dependency: the lookup engine never reads `Date.now()` or calls `setTimeout`
 * itself, so unit tests drive it with a manual clock (TTL expiry, 429 pauses, batch windows)
 * without waiting and without faking the globals the real API client and IndexedDB rely on.
 */
export type TimerHandle = unknown;

export interface Clock {
  now(): number;
  setTimeout(callback: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => globalThis.setTimeout(callback, ms),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof globalThis.setTimeout>),
};

