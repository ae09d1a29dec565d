/**
 * Hover intent: the card opens when the pointer rests on a marked IP for a moment, not when it
 * sweeps across a table. Hit-testing (which may force a layout) runs only once the pointer has
 * paused, never on every pointermove; leaving the IP is detected against its cached rects, which
 * costs no layout. A grace period lets the pointer travel from the IP into the card.
 */

export interface HoverTarget<T> {
  item: T;
  /** Client rects of the hovered text at the time of the hit. */
  rects: DOMRectReadOnly[];
}

export interface HoverIntentOptions<T> {
  target: EventTarget;
  hitTest: (x: number, y: number) => HoverTarget<T> | undefined;
  /** Two hits on the same thing (the same occurrence) compare equal. */
  same?: (a: T, b: T) => boolean;
  onEnter: (target: HoverTarget<T>) => void;
  onLeave: () => void;
  /** True when the event happened over our own card (its host element). */
  isOverCard: (event: PointerEvent) => boolean;
  /** Time the pointer must rest before we hit-test. */
  restMs?: number;
  /** Total time on an IP before the card opens (including restMs). */
  openDelayMs?: number;
  /** Time off the IP and off the card before the card closes. */
  closeDelayMs?: number;
  signal?: AbortSignal;
  /**
   * Where the pointer already rests when the intent starts (the card code loads at the first
   * hover, after the pointermove that found the IP): treated as a move there, so a pointer that
   * stays still still opens the card.
   */
  initialPointer?: { x: number; y: number };
  setTimer?: (fn: () => void, ms: number) => number;
  clearTimer?: (id: number) => void;
}

export interface HoverIntent<T> {
  /** What the card shows now, if anything. */
  readonly active: HoverTarget<T> | undefined;
  /** Closes at once (Escape, card's close button). */
  dismiss(): void;
}

export function createHoverIntent<T>(options: HoverIntentOptions<T>): HoverIntent<T> {
  const restMs = options.restMs ?? 80;
  const openDelay = Math.max(options.openDelayMs ?? 350, restMs);
  const closeDelay = options.closeDelayMs ?? 300;
  const setTimer = options.setTimer ?? ((fn, ms) => window.setTimeout(fn, ms));
  const clearTimer = options.clearTimer ?? ((id) => window.clearTimeout(id));
  const same = options.same ?? ((a, b) => a === b);

  let active: HoverTarget<T> | undefined;
  /** Dismissed with Escape: not reopened until the pointer leaves it. */
  let suppressed: T | undefined;
  let restTimer: number | undefined;
  let openTimer: number | undefined;
  let closeTimer: number | undefined;
  let x = 0;
  let y = 0;

  const clear = (id: number | undefined) => {
    if (id !== undefined) clearTimer(id);
  };

  function scheduleClose(): void {
    if (!active || closeTimer !== undefined) return;
    closeTimer = setTimer(() => {
      closeTimer = undefined;
      close();
    }, closeDelay);
  }

  function cancelClose(): void {
    clear(closeTimer);
    closeTimer = undefined;
  }

  function close(): void {
    clear(openTimer);
    openTimer = undefined;
    if (!active) return;
    active = undefined;
    options.onLeave();
  }

  function onRest(): void {
    restTimer = undefined;
    const hit = options.hitTest(x, y);
    if (suppressed !== undefined && !(hit && same(hit.item, suppressed))) suppressed = undefined;
    if (hit && suppressed !== undefined) return;
    if (!hit) {
      clear(openTimer);
      openTimer = undefined;
      scheduleClose();
      return;
    }
    if (active && same(active.item, hit.item)) {
      cancelClose();
      return;
    }
    // Moving straight to another IP: keep this card until the next one opens (no flicker).
    cancelClose();
    clear(openTimer);
    openTimer = setTimer(() => {
      openTimer = undefined;
      cancelClose();
      active = hit;
      options.onEnter(hit);
    }, openDelay - restMs);
  }

  function onMove(event: Event): void {
    const e = event as PointerEvent;
    if (e.pointerType === 'touch') return;
    x = e.clientX;
    y = e.clientY;
    if (options.isOverCard(e)) {
      cancelClose();
      clear(restTimer);
      restTimer = undefined;
      // The pointer crossed another IP on its way into the card and paused there: reaching
      // the card says which one the analyst wanted, so that switch is off.
      clear(openTimer);
      openTimer = undefined;
      return;
    }
    if (active && !inRects(active.rects, x, y)) scheduleClose();
    clear(restTimer);
    restTimer = setTimer(onRest, restMs);
  }

  function onLeaveWindow(): void {
    clear(restTimer);
    restTimer = undefined;
    clear(openTimer);
    openTimer = undefined;
    scheduleClose();
  }

  const listen = { capture: true, passive: true, signal: options.signal };
  options.target.addEventListener('pointermove', onMove, listen);
  // Leaving the window (pointer to another monitor, devtools) must not keep the card.
  options.target.addEventListener('pointerout', (e) => {
    if (!(e as PointerEvent).relatedTarget) onLeaveWindow();
  }, listen);
  if (options.initialPointer) {
    x = options.initialPointer.x;
    y = options.initialPointer.y;
    restTimer = setTimer(onRest, restMs);
  }
  options.signal?.addEventListener('abort', () => {
    clear(restTimer);
    clear(openTimer);
    clear(closeTimer);
  });

  return {
    get active() {
      return active;
    },
    dismiss() {
      suppressed = active?.item;
      cancelClose();
      close();
    },
  };
}

function inRects(rects: DOMRectReadOnly[], x: number, y: number): boolean {
  return rects.some((r) => x >= r.left - 2 && x <= r.right + 2 && y >= r.top - 2 && y <= r.bottom + 2);
}
