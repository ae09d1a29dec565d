/**
 * Retries for 429, 5xx and network failures (for paid calls, only those that provably cost
 * nothing: see mayRetry): exponential backoff with full jitter, or the server's Retry-After
 * when it sends one, bounded by attempts and by total time. 400/401/403 never retry: asking
 * again cannot fix them and every 4xx costs quota.
 *
 * Hand-written rather than ky's retry: ky's `timeout` spans all attempts (ours is per attempt),
 * a Retry-After above ky's `maxRetryAfter` is clamped and waited for (we must fail fast with
 * `retryAfterMs` so the lookup engine pauses its queue), and the loop is 40 lines.
 */
import { ApiError, type ApiErrorKind } from './errors';
import type { RetryPolicy } from './types';

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  limit: 3,
  baseDelayMs: 500,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 30_000,
  maxElapsedMs: 60_000,
};

const RETRYABLE: ReadonlySet<ApiErrorKind> = new Set(['rate-limited', 'server', 'network']);

export function resolveRetryPolicy(overrides: Partial<RetryPolicy> = {}): RetryPolicy {
  const defined = Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined));
  return { ...DEFAULT_RETRY_POLICY, ...defined };
}

/** Full jitter (AWS architecture blog): random(0, min(cap, base * 2^retry)). */
export function backoffDelay(retry: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry);
  return Math.floor(random() * ceiling);
}

/** Retry-After is either delta-seconds or an HTTP date (RFC 9110 §10.2.3). */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  // An HTTP date names its weekday and month; without letters Date.parse reads "-5" as a year.
  if (!/[a-z]{3}/i.test(trimmed)) return undefined;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

export interface RetryContext {
  policy: RetryPolicy;
  /** The call costs quota: see mayRetry. */
  paid?: boolean;
  signal?: AbortSignal;
  random?: () => number;
  now?: () => number;
  /** Waits on this clock's timers (the globals by default). */
  setTimeout?: (callback: () => void, ms: number) => unknown;
  clearTimeout?: (handle: unknown) => void;
}

/**
 * A free call (/account) retries 429, 5xx and network failures. A paid one retries only what
 * provably cost nothing: a failure before sending, or a 5xx the service itself answered (it
 * bills no 5xx). A 429 is billed and an answer lost after sending may have been: those go back
 * to the lookup engine, which books them, pauses, and asks /account what the loss cost.
 */
export function mayRetry(error: ApiError, paid: boolean): boolean {
  // The endpoint's circuit is open: nothing may be sent to it until its probe says so.
  if (error.circuitOpen || !RETRYABLE.has(error.kind)) return false;
  if (!paid) return true;
  return error.kind !== 'rate-limited' && !error.lostAfterSend;
}

/** Runs `attempt` until it succeeds, fails for good, or the policy says stop. */
export async function withRetry<T>(attempt: () => Promise<T>, context: RetryContext): Promise<T> {
  const { policy, signal } = context;
  const now = context.now ?? Date.now;
  const started = now();
  let previous: ApiError | null = null;
  for (let retry = 0; ; retry++) {
    try {
      return await attempt();
    } catch (error) {
      // The retry was refused because the previous attempt's own failure opened the endpoint's
      // circuit: that failure is what happened. Reported as "not sent", it would hide the outage
      // from the lookup engine (which then never announces the recovery to the pages).
      if (previous && error instanceof ApiError && error.circuitOpen) throw previous;
      if (!(error instanceof ApiError) || !mayRetry(error, context.paid === true)) throw error;
      previous = error;
      if (retry >= policy.limit) throw error;
      // A long Retry-After is the server saying "not now": hand it to the caller to schedule.
      if (error.retryAfterMs !== undefined && error.retryAfterMs > policy.maxRetryAfterMs) throw error;
      // `Retry-After: 0` is no reason to ask again at once: never faster than the backoff base.
      const delay =
        error.retryAfterMs !== undefined ? Math.max(error.retryAfterMs, policy.baseDelayMs) : backoffDelay(retry, policy, context.random);
      if (now() - started + delay > policy.maxElapsedMs) throw error;
      await sleep(delay, signal, context);
    }
  }
}

function sleep(ms: number, signal: AbortSignal | undefined, timers: Pick<RetryContext, 'setTimeout' | 'clearTimeout'>): Promise<void> {
  const set = timers.setTimeout ?? ((callback: () => void, wait: number) => globalThis.setTimeout(callback, wait));
  const clear = timers.clearTimeout ?? ((handle: unknown) => globalThis.clearTimeout(handle as ReturnType<typeof globalThis.setTimeout>));
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = set(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clear(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
