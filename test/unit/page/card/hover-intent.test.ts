// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createHoverIntent, type HoverTarget } from '@/lib/page/card/hover-intent';

const rect = (left: number, top: number, width: number, height: number) =>
  ({ left, top, right: left + width, bottom: top + height, width, height, x: left, y: top }) as DOMRectReadOnly;

function move(target: EventTarget, x: number, y: number, extra: Partial<PointerEventInit> = {}) {
  target.dispatchEvent(new PointerEvent('pointermove', { clientX: x, clientY: y, pointerType: 'mouse', ...extra }));
}

describe('hover intent', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  function setup() {
    const target = new EventTarget();
    // One IP at x 100-200, y 10-30; another at x 300-400.
    const hit = vi.fn((x: number, y: number): HoverTarget<string> | undefined => {
      if (y < 10 || y > 30) return undefined;
      if (x >= 100 && x <= 200) return { item: 'a', rects: [rect(100, 10, 100, 20)] };
      if (x >= 300 && x <= 400) return { item: 'b', rects: [rect(300, 10, 100, 20)] };
      return undefined;
    });
    const events: string[] = [];
    let overCard = false;
    const intent = createHoverIntent({
      target,
      hitTest: hit,
      onEnter: (t) => events.push(`enter ${t.item}`),
      onLeave: () => events.push('leave'),
      isOverCard: () => overCard,
      restMs: 80,
      openDelayMs: 300,
      closeDelayMs: 200,
      setTimer: (fn, ms) => setTimeout(fn, ms) as unknown as number,
      clearTimer: (id) => clearTimeout(id),
    });
    return { target, hit, events, intent, setOverCard: (v: boolean) => (overCard = v) };
  }

  it('opens only after the pointer rests on an IP, and hit-tests only when it pauses', () => {
    const { target, hit, events } = setup();
    for (let x = 0; x < 500; x += 10) {
      move(target, x, 20);
      vi.advanceTimersByTime(16);
    }
    expect(hit).toHaveBeenCalledTimes(0);
    expect(events).toEqual([]);
    move(target, 150, 20);
    vi.advanceTimersByTime(299);
    expect(events).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(events).toEqual(['enter a']);
    expect(hit).toHaveBeenCalledTimes(1);
  });

  it('closes after the pointer leaves, but not while it is over the card', () => {
    const { target, events, setOverCard } = setup();
    move(target, 150, 20);
    vi.advanceTimersByTime(300);
    move(target, 150, 60);
    vi.advanceTimersByTime(100);
    setOverCard(true);
    move(target, 150, 70);
    vi.advanceTimersByTime(1000);
    expect(events).toEqual(['enter a']);
    setOverCard(false);
    move(target, 600, 300);
    vi.advanceTimersByTime(200);
    expect(events).toEqual(['enter a', 'leave']);
  });

  it('switches straight to another IP and does not reopen one dismissed with Escape', () => {
    const { target, events, intent } = setup();
    move(target, 150, 20);
    vi.advanceTimersByTime(300);
    move(target, 350, 20);
    vi.advanceTimersByTime(300);
    expect(events).toEqual(['enter a', 'enter b']);
    intent.dismiss();
    expect(events).toEqual(['enter a', 'enter b', 'leave']);
    move(target, 351, 21);
    vi.advanceTimersByTime(1000);
    expect(intent.active).toBeUndefined();
    move(target, 150, 20);
    vi.advanceTimersByTime(300);
    expect(intent.active?.item).toBe('a');
  });

  it('keeps the card when the pointer pauses on another IP on its way into the card', () => {
    const { target, events, setOverCard, intent } = setup();
    move(target, 150, 20);
    vi.advanceTimersByTime(300);
    // Towards a card at the right, across IP b, pausing there briefly (a rest, not an open).
    move(target, 350, 20);
    vi.advanceTimersByTime(150);
    setOverCard(true);
    move(target, 420, 40);
    vi.advanceTimersByTime(1000);
    expect(events).toEqual(['enter a']);
    expect(intent.active?.item).toBe('a');
  });

  it('ignores touch pointers', () => {
    const { target, events } = setup();
    move(target, 150, 20, { pointerType: 'touch' });
    vi.advanceTimersByTime(1000);
    expect(events).toEqual([]);
  });

  it('starts from a pointer already resting on an IP (the card loaded at the first hover)', () => {
    const events: string[] = [];
    createHoverIntent({
      target: new EventTarget(),
      hitTest: (x) => (x >= 100 && x <= 200 ? { item: 'a', rects: [rect(100, 10, 100, 20)] } : undefined),
      onEnter: (t) => events.push(`enter ${t.item}`),
      onLeave: () => events.push('leave'),
      isOverCard: () => false,
      restMs: 80,
      openDelayMs: 300,
      initialPointer: { x: 150, y: 20 },
      setTimer: (fn, ms) => setTimeout(fn, ms) as unknown as number,
      clearTimer: (id) => clearTimeout(id),
    });
    vi.advanceTimersByTime(299);
    expect(events).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(events).toEqual(['enter a']);
  });
});
