/**
 * The circuit breaker per endpoint, on a fake clock: nothing passes an open endpoint, one probe
 * at a time when half-open, backoff that grows to its cap, Retry-After honoured, timeouts
 * lengthened after a timeout, and its state outlives the process through the store.
 */
import { describe, expect, it } from 'vitest';
import { equalJitterBackoff } from '../../../lib/api/backoff';
import { CircuitBreaker, type CircuitStore } from '../../../lib/api/circuit';
import { raisedTimeout, relaxedTimeout } from '../../../lib/api/slow-timeout';

const BULK = '/checkIP/bulk';
const down = { kind: 'server' as const, status: 503, message: 'Service unavailable' };
const timedOut = { kind: 'timeout' as const, message: 'No answer from the API within 15 s.', lostAfterSend: true };

function setup(random = () => 0.5) {
  let now = 1_000_000;
  const store = memoryStore();
  const clock = { now: () => now };
  const breaker = new CircuitBreaker({ clock, store, random });
  return { breaker, store, clock, advance: (ms: number) => (now += ms), at: () => now };
}

function memoryStore(): CircuitStore & { value: unknown } {
  const store = {
    value: undefined as unknown,
    load: async () => structuredClone(store.value),
    save: async (value: unknown) => void (store.value = structuredClone(value)),
  };
  return store;
}

describe('equalJitterBackoff', () => {
  it('doubles from base to cap, never below half a step', () => {
    const steps = { baseMs: 5_000, maxMs: 300_000 };
    expect([1, 2, 3, 4].map((n) => equalJitterBackoff(n, steps, () => 1))).toEqual([5_000, 10_000, 20_000, 40_000]);
    expect(equalJitterBackoff(1, steps, () => 0)).toBe(2_500);
    expect(equalJitterBackoff(20, steps, () => 1)).toBe(300_000);
    expect(equalJitterBackoff(20, steps, () => 0)).toBe(150_000);
  });
});

describe('slow-server timeout', () => {
  it('doubles after a timeout up to the cap, and comes back down only after prompt answers', () => {
    const rule = { baseMs: 15_000, capMs: 28_000 };
    expect(raisedTimeout(15_000, rule)).toBe(28_000);
    expect(raisedTimeout(28_000, rule)).toBe(28_000);
    expect(relaxedTimeout(28_000, 17_000, rule)).toBe(28_000);
    expect(relaxedTimeout(28_000, 2_000, rule)).toBe(15_000);
  });
});

describe('CircuitBreaker', () => {
  it('opens on an outage and refuses every request until the backoff ends', () => {
    const { breaker, advance } = setup();
    breaker.tryAcquire(BULK)!.failed(down);
    expect(breaker.view(BULK)).toMatchObject({ state: 'open', failures: 1, reason: { kind: 'server', status: 503 } });
    expect(breaker.tryAcquire(BULK)).toBeNull();
    advance(3_749); // 5 s step, jitter 0.5: 3,750 ms
    expect(breaker.tryAcquire(BULK)).toBeNull();
    advance(1);
    expect(breaker.view(BULK).state).toBe('half-open');
  });

  it('other endpoints are not affected: /account answering proves nothing about bulk', () => {
    const { breaker } = setup();
    breaker.tryAcquire(BULK)!.failed(down);
    const account = breaker.tryAcquire('/account');
    expect(account).not.toBeNull();
    account!.succeeded(50);
    expect(breaker.view(BULK).state).toBe('open');
  });

  it('half-open lets exactly one probe through; its success closes, its failure opens for longer', () => {
    const { breaker, advance } = setup(() => 1);
    breaker.tryAcquire(BULK)!.failed(down);
    advance(5_000);
    const probe = breaker.tryAcquire(BULK)!;
    expect(probe.probe).toBe(true);
    expect(breaker.tryAcquire(BULK)).toBeNull(); // one probe at a time
    probe.failed(down);
    expect(breaker.view(BULK)).toMatchObject({ state: 'open', failures: 2, retryAt: expect.any(Number) });
    advance(9_999);
    expect(breaker.tryAcquire(BULK)).toBeNull();
    advance(1);
    const second = breaker.tryAcquire(BULK)!;
    second.succeeded(100);
    expect(breaker.view(BULK)).toMatchObject({ state: 'closed', failures: 0 });
    expect(breaker.tryAcquire(BULK)?.probe).toBe(false);
  });

  it('a failure reported by a request sent before the opening does not lengthen the wait', () => {
    const { breaker } = setup(() => 1);
    const a = breaker.tryAcquire(BULK)!;
    const b = breaker.tryAcquire(BULK)!;
    a.failed(down);
    const until = breaker.view(BULK).retryAt;
    b.failed(down);
    expect(breaker.view(BULK)).toMatchObject({ failures: 1, retryAt: until });
  });

  it('backs off up to 5 minutes under a lasting outage', () => {
    const { breaker, advance, at } = setup(() => 1);
    const waits: number[] = [];
    breaker.tryAcquire(BULK)!.failed(down);
    for (let i = 0; i < 9; i++) {
      const retryAt = breaker.view(BULK).retryAt!;
      waits.push(retryAt - at());
      advance(retryAt - at());
      breaker.tryAcquire(BULK)!.failed(down);
    }
    expect(waits).toEqual([5_000, 10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000, 300_000]);
  });

  it('honours Retry-After exactly: nothing is let through earlier', () => {
    const { breaker, advance } = setup();
    breaker.tryAcquire(BULK)!.failed({ kind: 'rate-limited', status: 429, message: 'Rate limit exceeded', retryAfterMs: 120_000 });
    advance(119_999);
    expect(breaker.tryAcquire(BULK)).toBeNull();
    advance(1);
    expect(breaker.tryAcquire(BULK)?.probe).toBe(true);
  });

  it('an answered 4xx is not an outage: it closes the circuit', () => {
    const { breaker, advance } = setup();
    breaker.tryAcquire(BULK)!.failed(down);
    advance(10_000);
    breaker.tryAcquire(BULK)!.failed({ kind: 'bad-request', status: 400, message: 'Invalid IP' });
    expect(breaker.view(BULK).state).toBe('closed');
  });

  it('a timeout gives the endpoint longer next time; prompt answers bring it back', () => {
    const { breaker, advance } = setup();
    breaker.tryAcquire(BULK)!.failed(timedOut);
    expect(breaker.view(BULK).timeoutMs).toBe(28_000);
    advance(10_000);
    breaker.tryAcquire(BULK)!.succeeded(17_000);
    expect(breaker.view(BULK)).toMatchObject({ state: 'closed', timeoutMs: 28_000 });
    breaker.tryAcquire(BULK)!.succeeded(300);
    expect(breaker.view(BULK).timeoutMs).toBe(15_000);
  });

  it('an abandoned probe frees the slot; a probe whose process died holds it until its lease ends', async () => {
    const { breaker, store, clock, advance } = setup(() => 1);
    breaker.tryAcquire(BULK)!.failed(down);
    advance(5_000);
    breaker.tryAcquire(BULK)!.abandoned();
    expect(breaker.tryAcquire(BULK)?.probe).toBe(true); // the slot was free again
    await breaker.flush();
    // The worker stops with that probe in flight: its successor restores the lease.
    const next = new CircuitBreaker({ clock, store, random: () => 1 });
    await next.restore();
    expect(next.view(BULK)).toMatchObject({ state: 'half-open', failures: 1 });
    expect(next.tryAcquire(BULK)).toBeNull();
    advance(60_000);
    expect(next.tryAcquire(BULK)?.probe).toBe(true);
  });

  it('the state outlives the process; garbage in the store is ignored', async () => {
    const { breaker, store, clock } = setup();
    breaker.tryAcquire(BULK)!.failed(timedOut);
    await breaker.flush();
    const next = new CircuitBreaker({ clock, store });
    await next.restore();
    expect(next.view(BULK)).toMatchObject({ state: 'open', failures: 1, timeoutMs: 28_000, reason: { kind: 'timeout' } });
    store.value = { v: 1, endpoints: { [BULK]: { failures: 'x' } } };
    const third = new CircuitBreaker({ clock, store });
    await third.restore();
    expect(third.view(BULK).state).toBe('closed');
  });
});
