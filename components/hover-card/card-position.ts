/**
 * Places the card next to a piece of text (a Range, not an element: the IP has no element of
 * its own) with Floating UI, flipping and shifting so it never leaves the viewport, and keeps
 * it there while the page scrolls or resizes.
 */
import { autoUpdate, computePosition, flip, inline, offset, shift, size, type VirtualElement } from '@floating-ui/dom';

const PADDING = 8;

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
): () => void {
  const update = () => {
    // A virtualised table re-rendered the row under the card: its text is gone, so is the card.
    if (lost && !lost.isAlive()) {
      lost.onLost();
      return;
    }
    void computePosition(anchor, card, {
      strategy: 'fixed',
      placement: 'bottom-start',
      middleware: [
        // An IP wrapped over two lines: sit next to the line the pointer is on.
        inline(anchor.point ?? {}),
        offset(6),
        flip({ padding: PADDING }),
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
  return autoUpdate(anchor, card, update, { animationFrame: false });
}
