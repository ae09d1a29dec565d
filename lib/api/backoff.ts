/**
 * Exponential backoff with "equal jitter": the n-th wait lies between half and all of
 * min(cap, base * 2^(n-1)). Half of each step is certain, so waits never shrink to nothing
 * (full jitter may draw 0 ms and let a failing endpoint be asked again at once) and a bound on
 * requests per minute can be proven; the other half spreads clients that failed together.
 *
 * A pure function of the attempt and a random source rather than a library: the retry libraries
 * (p-retry, exponential-backoff) sleep on real timers themselves, while the circuit breaker and
 * the gateway compute a time and leave the waiting to their own (injected, testable) clock.
 */
export interface BackoffSteps {
  /** The first step (before jitter). */
  baseMs: number;
  /** The largest step (before jitter). */
  maxMs: number;
}

/** The wait after the `attempt`-th failure in a row (1 for the first), in ms. */
export function equalJitterBackoff(attempt: number, steps: BackoffSteps, random: () => number = Math.random): number {
  const exponent = Math.max(0, Math.min(attempt - 1, 30));
  const step = Math.min(steps.maxMs, steps.baseMs * 2 ** exponent);
  const draw = Math.min(1, Math.max(0, random()));
  return Math.round(step / 2 + (step / 2) * draw);
}
