import { describe, expect, it } from 'vitest';
import { ApiError, type ApiErrorKind } from '../../../lib/api/errors';
import { backoffDelay, DEFAULT_RETRY_POLICY, parseRetryAfter, resolveRetryPolicy, withRetry } from '../../../lib/api/retry';
import type { RetryPolicy } from '../../../lib/api/types';

const policy: RetryPolicy = { limit: 3, baseDelayMs: 0, maxDelayMs: 0, maxRetryAfterMs: 1_000, maxElapsedMs: 60_000 };

/** An attempt function that fails with the given errors in turn, then succeeds. */
function failing(...errors: Array<ApiErrorKind | ApiError>) {
  let calls = 0;
  const fn = async () => {
    const next = errors[calls++];
    if (next === undefined) return 'ok';
    throw typeof next === 'string' ? new ApiError({ kind: next, message: next }) : next;
  };
  return { fn, calls: () => calls };
}

describe('backoffDelay', () => {
  it('is full jitter: random(0, min(cap, base * 2^retry))', () => {
    const p = { ...DEFAULT_RETRY_POLICY, baseDelayMs: 100, maxDelayMs: 1_000 };
    expect(backoffDelay(0, p, () => 0.999)).toBe(99);
    expect(backoffDelay(2, p, () => 0.5)).toBe(200);
    expect(backoffDelay(10, p, () => 0.999)).toBe(999);
    expect(backoffDelay(3, p, () => 0)).toBe(0);
  });
});

describe('parseRetryAfter', () => {
  const now = Date.UTC(2025, 0, 1, 12, 0, 0);
  it('reads seconds and HTTP dates', () => {
    expect(parseRetryAfter('3', now)).toBe(3_000);
    expect(parseRetryAfter('0', now)).toBe(0);
    expect(parseRetryAfter('1.5', now)).toBe(1_500);
    expect(parseRetryAfter('Wed, 01 Jan 2025 12:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Wed, 01 Jan 2025 11:00:00 GMT', now)).toBe(0);
  });

  it('ignores absent or unreadable values', () => {
    expect(parseRetryAfter(null, now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('-5', now)).toBeUndefined();
  });
});

describe('resolveRetryPolicy', () => {
  it('fills defaults and ignores undefined overrides', () => {
    expect(resolveRetryPolicy({ limit: 1, baseDelayMs: undefined })).toEqual({ ...DEFAULT_RETRY_POLICY, limit: 1 });
  });
});

describe('withRetry', () => {
  it.each<ApiErrorKind>(['rate-limited', 'server', 'network'])('retries %s and returns the success', async (kind) => {
    const attempt = failing(kind, kind);
    await expect(withRetry(attempt.fn, { policy })).resolves.toBe('ok');
    expect(attempt.calls()).toBe(3);
  });

  it.each<ApiErrorKind>(['bad-request', 'missing-key', 'invalid-key', 'quota-exhausted', 'not-found', 'timeout', 'bad-response'])(
    'never retries %s',
    async (kind) => {
      const attempt = failing(kind);
      await expect(withRetry(attempt.fn, { policy })).rejects.toMatchObject({ kind });
      expect(attempt.calls()).toBe(1);
    },
  );

  it('gives up after `limit` retries with the last error', async () => {
    const attempt = failing('server', 'server', 'server', 'server', 'server');
    await expect(withRetry(attempt.fn, { policy: { ...policy, limit: 2 } })).rejects.toMatchObject({ kind: 'server' });
    expect(attempt.calls()).toBe(3);
  });

  it("a retry refused by the circuit the first failure opened rethrows that failure, not 'not sent'", async () => {
    const outage = new ApiError({ kind: 'server', message: 'Internal server error', status: 503 });
    const refused = new ApiError({ kind: 'server', message: 'Not sent: the circuit is open.', circuitOpen: true });
    const attempt = failing(outage, refused);
    const error = await withRetry(attempt.fn, { policy }).catch((e: unknown) => e);
    expect(error).toBe(outage);
    expect(attempt.calls()).toBe(2);
  });

  it('a first attempt refused by an open circuit stays "not sent"', async () => {
    const refused = new ApiError({ kind: 'server', message: 'Not sent: the circuit is open.', circuitOpen: true });
    const attempt = failing(refused);
    await expect(withRetry(attempt.fn, { policy })).rejects.toMatchObject({ circuitOpen: true });
    expect(attempt.calls()).toBe(1);
  });

  it('fails fast when Retry-After is longer than maxRetryAfterMs', async () => {
    const longWait = new ApiError({ kind: 'rate-limited', message: 'slow down', status: 429, retryAfterMs: 120_000 });
    const attempt = failing(longWait);
    await expect(withRetry(attempt.fn, { policy })).rejects.toMatchObject({ kind: 'rate-limited', retryAfterMs: 120_000 });
    expect(attempt.calls()).toBe(1);
  });

  it('stops when the next wait would pass maxElapsedMs', async () => {
    let clock = 0;
    const attempt = failing('server', 'server', 'server');
    const slow = async () => {
      clock += 40_000; // each attempt "takes" 40 s on the fake clock
      return attempt.fn();
    };
    await expect(withRetry(slow, { policy, now: () => clock })).rejects.toMatchObject({ kind: 'server' });
    expect(attempt.calls()).toBe(2);
  });

  it('waits the jittered backoff between attempts', async () => {
    const seen: number[] = [];
    const attempt = failing('network');
    await withRetry(attempt.fn, {
      policy: { ...policy, baseDelayMs: 4, maxDelayMs: 4 },
      random: () => {
        seen.push(1);
        return 0.5;
      },
    });
    expect(seen).toHaveLength(1);
  });

  it('stops waiting when the caller aborts', async () => {
    const controller = new AbortController();
    const attempt = failing('rate-limited', 'rate-limited');
    const reason = new Error('cancelled');
    const run = withRetry(
      async () => {
        queueMicrotask(() => controller.abort(reason));
        return attempt.fn();
      },
      { policy: { ...policy, baseDelayMs: 60_000, maxDelayMs: 60_000 }, signal: controller.signal, random: () => 0.99 },
    );
    await expect(run).rejects.toBe(reason);
    expect(attempt.calls()).toBe(1);
  });

  it('passes through errors that are not ApiErrors', async () => {
    const boom = new TypeError('bug');
    await expect(withRetry(async () => Promise.reject(boom), { policy })).rejects.toBe(boom);
  });
});
