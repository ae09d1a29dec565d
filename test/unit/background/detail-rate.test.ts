import { describe, expect, it } from 'vitest';
import { ApiError } from '@/lib/api/errors';
import { DetailRate } from '@/lib/background/detail-rate';
import { createManualClock } from '../lookup/helpers/manual-clock';

describe('DetailRate', () => {
  it('allows a burst of 10 per tab, then one every 6 s, with a clear error in between', async () => {
    const clock = createManualClock();
    const rate = new DetailRate({ clock });
    for (let i = 0; i < 10; i++) rate.take(1);
    let error: unknown;
    try {
      rate.take(1);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ kind: 'rate-limited', retryAfterMs: 6_000 });
    expect((error as Error).message).toMatch(/Too many detailed lookups from this tab.*Try again in 6 s/);
    // Another tab has its own allowance.
    expect(() => rate.take(2)).not.toThrow();
    await clock.advance(6_000);
    expect(() => rate.take(1)).not.toThrow();
    expect(() => rate.take(1)).toThrow(/Try again/);
    // A minute later the burst is back, no more.
    await clock.advance(120_000);
    for (let i = 0; i < 10; i++) rate.take(1);
    expect(() => rate.take(1)).toThrow();
  });
});
