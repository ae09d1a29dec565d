import { describe, expect, it, vi } from 'vitest';
import { CARD_KEYBOARD_KEY } from '@/components/hover-card/lazy-card';
import { chooseFrame, frameState, nextIpCommand, parseFrameStates, pressKey } from '@/lib/background/keyboard-command';
import { createPageHandlers } from '@/lib/background/page-handlers';
import { fakePageApi, memorySites } from './page-api-fake';

describe('the next-IP shortcut', () => {
  it('goes to the focused frame with a content script, else the top frame, else any', () => {
    expect(chooseFrame([{ frameId: 0, lens: true, focused: false }, { frameId: 5, lens: true, focused: true }])).toBe(5);
    // The focused frame is not scanned (a cross-site ad frame): the top frame's marks.
    expect(chooseFrame([{ frameId: 0, lens: true, focused: false }, { frameId: 5, lens: false, focused: true }])).toBe(0);
    expect(chooseFrame([{ frameId: 0, lens: false, focused: true }, { frameId: 7, lens: true, focused: false }])).toBe(7);
    expect(chooseFrame([{ frameId: 0, lens: false, focused: true }])).toBeUndefined();
  });

  it('reads only well-formed frame answers (a renderer may send anything)', () => {
    expect(parseFrameStates([null, 3, { frameId: '1', result: {} }, { frameId: 2 }, { frameId: 4, result: { lens: 'yes', focused: true } }, { frameId: 6, result: { lens: true, focused: false } }])).toEqual([
      { frameId: 4, lens: false, focused: true },
      { frameId: 6, lens: true, focused: false },
    ]);
  });

  it('hands the key to the chosen frame, or scans a page that has no content script yet', async () => {
    const fake = fakePageApi();
    const scan = vi.fn(async () => {});
    const api = { runInFrames: fake.api.runInFrames, scan };
    fake.frames.set(3, [
      { frameId: 0, lens: true, focused: false },
      { frameId: 9, lens: true, focused: true },
    ]);
    expect(await nextIpCommand(api, 3)).toBe('key');
    expect(fake.keys).toEqual([{ tabId: 3, frameId: 9 }]);
    expect(scan).not.toHaveBeenCalled();
    fake.frames.set(4, [{ frameId: 0, lens: false, focused: true }]);
    expect(await nextIpCommand(api, 4)).toBe('scanned');
    expect(scan).toHaveBeenCalledWith(4);
    expect(fake.keys).toHaveLength(1);
  });

  it('is registered as the next-ip command', async () => {
    const fake = fakePageApi();
    const page = createPageHandlers({ lookup: { lookup: vi.fn() }, api: fake.api, sites: memorySites() });
    page.start();
    fake.frames.set(8, [{ frameId: 0, lens: true, focused: true }]);
    fake.events.onCommand.fire('next-ip', { id: 8 });
    await vi.waitFor(() => expect(fake.keys).toEqual([{ tabId: 8, frameId: 0 }]));
    // Not a page to scan: nothing was injected.
    expect(fake.injections).toEqual([]);
  });
});

describe('the functions run in a frame', () => {
  it('say whether the content script is there and whether the focus is in this document', async () => {
    delete (globalThis as Record<string, unknown>)[CARD_KEYBOARD_KEY];
    const doc = { activeElement: { tagName: 'BODY' }, hasFocus: () => true };
    vi.stubGlobal('document', doc);
    try {
      expect(frameState(CARD_KEYBOARD_KEY)).toEqual({ lens: false, focused: true });
      const card = { keyboard: vi.fn() };
      const bring = vi.fn(async () => card);
      (globalThis as Record<string, unknown>)[CARD_KEYBOARD_KEY] = bring;
      // The focus went on into a frame of this document: that frame is the focused one.
      doc.activeElement = { tagName: 'IFRAME' };
      expect(frameState(CARD_KEYBOARD_KEY)).toEqual({ lens: true, focused: false });
      expect(pressKey(CARD_KEYBOARD_KEY)).toBe(true);
      expect(bring).toHaveBeenCalledWith(false);
      await vi.waitFor(() => expect(card.keyboard).toHaveBeenCalledTimes(1));
    } finally {
      vi.unstubAllGlobals();
      delete (globalThis as Record<string, unknown>)[CARD_KEYBOARD_KEY];
    }
    expect(pressKey(CARD_KEYBOARD_KEY)).toBe(false);
  });
});
