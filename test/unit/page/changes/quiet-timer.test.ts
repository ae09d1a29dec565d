import { afterEach, describe, expect, it, vi } from 'vitest';
import { quietTimer } from '@/lib/page/changes/quiet-timer';

describe('quiet timer', () => {
  afterEach(() => vi.useRealTimers());

  it('runs its task once, quietMs after the last touch, however many touches came before', () => {
    vi.useFakeTimers();
    const task = vi.fn();
    const quiet = quietTimer(3_000, task);
    for (let i = 0; i < 10; i++) {
      quiet.touch();
      vi.advanceTimersByTime(1_000);
    }
    // 10 touches a second apart: the page never went quiet for 3 s yet.
    expect(task).not.toHaveBeenCalled();
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(1_999);
    expect(task).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(task).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(10_000);
    expect(task).toHaveBeenCalledTimes(1);
  });

  it('waits again after a touch that follows a run, and stop() cancels', () => {
    vi.useFakeTimers();
    const task = vi.fn();
    const quiet = quietTimer(100, task);
    quiet.touch();
    vi.advanceTimersByTime(100);
    quiet.touch();
    vi.advanceTimersByTime(100);
    expect(task).toHaveBeenCalledTimes(2);
    quiet.touch();
    quiet.stop();
    vi.advanceTimersByTime(1_000);
    expect(task).toHaveBeenCalledTimes(2);
  });
});
