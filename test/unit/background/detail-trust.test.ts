import { describe, expect, it } from 'vitest';
import { browserTabInFront } from '@/lib/background/detail-trust';

describe('browserTabInFront', () => {
  const api = (tabs: Record<number, { active: boolean; windowId: number }>, focusedWindow: number | undefined) => ({
    tabs: { get: async (id: number) => tabs[id] ?? Promise.reject(new Error('No tab with id')) },
    windows: { getLastFocused: async () => ({ id: focusedWindow }) },
  });

  it('is the active tab of the last-focused window, and nothing else', async () => {
    const inFront = browserTabInFront(
      api({ 1: { active: true, windowId: 10 }, 2: { active: false, windowId: 10 }, 3: { active: true, windowId: 20 } }, 10),
    );
    expect(await inFront(1)).toBe(true);
    expect(await inFront(2)).toBe(false); // a background tab of the focused window
    expect(await inFront(3)).toBe(false); // the active tab of a window behind it
    await expect(inFront(4)).rejects.toThrow(); // checkDetailedAsk reads a failure as "not in front"
    expect(await browserTabInFront(api({ 1: { active: true, windowId: 10 } }, undefined))(1)).toBe(false);
  });
});
