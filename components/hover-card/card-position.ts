/**
 * Places the card next to a piece of text (a Range, not an element: the IP has no element of
 * its own) with Floating UI, flipping and shifting so it never leaves the viewport, and keeps
 * it there while the page scrolls or resizes. Off the page's own tooltip for the same text when
 * it shows one, and where it can off the marked IPs on the lines above and below
 * (avoid-tooltips.ts).
 */
import { autoUpdate, computePosition, flip, inline, offset, shift, size, type VirtualElement } from '@floating-ui/dom';
import type { Rect } from '@/lib/page/card/card-placement';
import type { PageTooltips } from '@/lib/page/card/page-tooltips';
import { avoidPageTooltips, pushOf } from './avoid-tooltips';

const PADDING = 8;
const GAP = 6;

export function rangeAnchor(range: Range, point?: { x: number; y: number }): VirtualElement & { point?: { x: number; y: number } } {
  const context = range.startContainer.parentElement ?? undefined;
  return {
    getBoundingClientRect: () => range.getBoundingClientRect(),
    getClientRects: () => range.getClientRects(),
    ...(context ? { contextElement: context } : {}),
    ...(point ? { point } : {}),
  };
}

/** Starts positioning; returns the function that stops it. */
export function followAnchor(
  anchor: VirtualElement & { point?: { x: number; y: number } },
  card: HTMLElement,
  lost?: { isAlive: () => boolean; onLost: () => void },
  tooltips?: PageTooltips,
  neighbours: readonly Rect[] = [],
): () => void {
  const doc = card.ownerDocument;
  const avoid =
    tooltips || neighbours.length
      ? avoidPageTooltips({
          elements: tooltips?.elements ?? (() => []),
          neighbours,
          viewport: () => ({ width: doc.documentElement.clientWidth, height: doc.documentElement.clientHeight }),
          gap: GAP,
          padding: PADDING,
        })
      : null;
  const update = () => {
    // A virtualised table re-rendered the row under the card: its text is gone, so is the card.
    if (lost && !lost.isAlive()) {
      lost.onLost();
      return;
    }
    // Beside a page tooltip or marked neighbours the placement is avoid's choice, which already weighs the room.
    const avoiding = avoid?.avoids() ? avoid : null;
    void computePosition(anchor, card, {
      strategy: 'fixed',
      placement: 'bottom-start',
      middleware: [
        // An IP wrapped over two lines: sit next to the line the pointer is on.
        inline(anchor.point ?? {}),
        avoiding,
        offset((state) => GAP + pushOf(state)),
        avoiding ? null : flip({ padding: PADDING }),
        shift({ padding: PADDING }),
        size({
          padding: PADDING,
          apply({ availableHeight, availableWidth, elements }) {
            elements.floating.style.maxHeight = `${Math.max(120, availableHeight)}px`;
            elements.floating.style.maxWidth = `${Math.min(380, Math.max(200, availableWidth))}px`;
          },
        }),
      ],
    }).then(({ x, y }) => {
      card.style.left = `${Math.round(x)}px`;
      card.style.top = `${Math.round(y)}px`;
    });
  };
  const stopUpdates = autoUpdate(anchor, card, update, { animationFrame: false });
  const stopWatching = tooltips?.watch(update);
  return () => {
    stopUpdates();
    stopWatching?.();
  };
}
