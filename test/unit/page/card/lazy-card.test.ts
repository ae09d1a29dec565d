// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { CardLens, CardStore, CardStoreDeps } from '@/lib/page/card/card-store';
import { CARD_KEYBOARD_KEY, createLazyCard, publishCardFactory, publishedCardFactory, type CardFactory } from '@/components/hover-card/lazy-card';
import type { Occurrence } from '@/lib/page/occurrences/occurrence-store';
import { findIps } from '@/lib/ip';
import { DEFAULT_THRESHOLDS } from '@/lib/severity';
import { pressKey } from '@/lib/background/keyboard-command';

const OCC = { ip: '185.220.101.1' } as Occurrence;

function lens(hitAt: (x: number, y: number) => boolean): CardLens {
  return {
    hitTest: vi.fn((x: number, y: number) => (hitAt(x, y) ? OCC : undefined)),
    resultOf: () => undefined,
    onResults: () => () => {},
    putResult: () => {},
    askNow: () => {},
    thresholds: DEFAULT_THRESHOLDS,
    resultsGeneration: 0,
    store: { nodes: () => [], occurrencesOfNode: () => [] },
  };
}

function fakeFactory() {
  const made: CardStoreDeps[] = [];
  const shown: string[] = [];
  const keys: number[] = [];
  const factory: CardFactory = (deps) => {
    made.push(deps);
    const controller: CardStore = {
      showForSelection: (text) => void shown.push(text),
      isOwnUi: (el) => el.tagName === 'IP-REPUTATION-LENS',
      close: () => {},
      keyboard: () => void keys.push(1),
      open: false,
    };
    return controller;
  };
  return { factory, made, shown, keys };
}

const move = (x: number, y: number) =>
  document.dispatchEvent(new PointerEvent('pointermove', { clientX: x, clientY: y, pointerType: 'mouse' }));

describe('lazy hover card', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('loads nothing while the pointer sweeps or rests off the IPs', async () => {
    const abort = new AbortController();
    const l = lens((x) => x > 100);
    const load = vi.fn();
    createLazyCard({ lens: l, findIps, lookupDetailed: vi.fn(), signal: abort.signal, load });
    for (let x = 0; x < 100; x += 10) {
      move(x, 5);
      await vi.advanceTimersByTimeAsync(16);
    }
    await vi.advanceTimersByTimeAsync(200);
    expect(l.hitTest).toHaveBeenCalledTimes(1);
    expect(load).not.toHaveBeenCalled();
    abort.abort();
  });

  it('loads once when the pointer rests on an IP, and starts the card where the pointer is', async () => {
    const abort = new AbortController();
    const l = lens((x) => x > 100);
    const { factory, made } = fakeFactory();
    let release!: () => void;
    const load = vi.fn(() => new Promise<CardFactory>((r) => (release = () => r(factory))));
    const card = createLazyCard({ lens: l, findIps, lookupDetailed: vi.fn(), signal: abort.signal, load });
    expect(card.isOwnUi(document.createElement('ip-reputation-lens'))).toBe(false);
    move(150, 5);
    await vi.advanceTimersByTimeAsync(100);
    expect(load).toHaveBeenCalledTimes(1);
    // The pointer moves on while the code loads: no second load, the latest position wins.
    move(160, 7);
    await vi.advanceTimersByTimeAsync(100);
    expect(load).toHaveBeenCalledTimes(1);
    release();
    await vi.advanceTimersByTimeAsync(0);
    expect(made).toHaveLength(1);
    expect(made[0]!.initialPointer).toEqual({ x: 160, y: 7 });
    expect(made[0]!.signal).toBe(abort.signal);
    expect(card.isOwnUi(document.createElement('ip-reputation-lens'))).toBe(true);
    // Loaded: the watcher is gone, the controller's own hover intent takes over.
    const hits = vi.mocked(l.hitTest).mock.calls.length;
    move(170, 7);
    await vi.advanceTimersByTimeAsync(200);
    expect(vi.mocked(l.hitTest).mock.calls.length).toBe(hits);
    abort.abort();
  });

  it('a selection lookup loads the card and shows it; a failed load is tried again later', async () => {
    const abort = new AbortController();
    const { factory, shown, made } = fakeFactory();
    const load = vi.fn<() => Promise<CardFactory>>().mockRejectedValueOnce(new Error('gone')).mockResolvedValue(factory);
    const card = createLazyCard({ lens: lens(() => true), findIps, lookupDetailed: vi.fn(), signal: abort.signal, load });
    card.showForSelection('1.2.3.4');
    await vi.advanceTimersByTimeAsync(0);
    expect(shown).toEqual([]);
    card.showForSelection('5.6.7.8');
    await vi.advanceTimersByTimeAsync(0);
    expect(shown).toEqual(['5.6.7.8']);
    expect(made[0]!.initialPointer).toBeUndefined();
    card.showForSelection('9.9.9.9');
    await vi.advanceTimersByTimeAsync(0);
    expect(shown).toEqual(['5.6.7.8', '9.9.9.9']);
    expect(load).toHaveBeenCalledTimes(2);
    abort.abort();
  });

  it('the keyboard shortcut loads the card before anything is hovered and hands it the key', async () => {
    const abort = new AbortController();
    const { factory, made, keys } = fakeFactory();
    const load = vi.fn(async () => factory);
    createLazyCard({ lens: lens(() => false), findIps, lookupDetailed: vi.fn(), signal: abort.signal, load });
    // What the background runs in this world on Alt+Shift+K.
    expect(pressKey(CARD_KEYBOARD_KEY)).toBe(true);
    await vi.advanceTimersByTimeAsync(0);
    expect(load).toHaveBeenCalledTimes(1);
    expect(made[0]!.initialPointer).toBeUndefined();
    expect(keys).toHaveLength(1);
    pressKey(CARD_KEYBOARD_KEY);
    await vi.advanceTimersByTimeAsync(0);
    expect(load).toHaveBeenCalledTimes(1);
    expect(keys).toHaveLength(2);
    abort.abort();
  });

  it('stops watching the pointer when the script ends', async () => {
    const abort = new AbortController();
    const l = lens(() => true);
    const load = vi.fn();
    createLazyCard({ lens: l, findIps, lookupDetailed: vi.fn(), signal: abort.signal, load });
    abort.abort();
    move(150, 5);
    await vi.advanceTimersByTimeAsync(200);
    expect(l.hitTest).not.toHaveBeenCalled();
    expect(load).not.toHaveBeenCalled();
  });

  it('the factory is published on the global object of the world it runs in', () => {
    const { factory } = fakeFactory();
    expect(publishedCardFactory()).toBeUndefined();
    publishCardFactory(factory);
    expect(publishedCardFactory()).toBe(factory);
  });
});
