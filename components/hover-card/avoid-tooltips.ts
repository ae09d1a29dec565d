/**
 * A Floating UI middleware that moves the card off the page's own tooltip for the same text
 * (an analyst must still read the console's tooltip): it picks the placement with lib/page/card/card-placement.ts and restarts the
 * computation there once. It runs only while a page tooltip is (or was) showing: with none,
 * the card keeps its usual placement and flip.
 *
 * A tooltip that has closed is still avoided while this card stays open: the page hides it as
 * the pointer travels from the IP to the card, and a card that jumped back under the pointer's
 * way would move away from the analyst reaching for it. Boxes are remembered relative to the
 * IP, so they follow it when the page scrolls.
 *
 * The marked IPs on the lines just above and below (`neighbours`, the rows an analyst compares
 * with) are kept clear of too, but only where the room allows: a tooltip is never covered, a
 * neighbour only when every place covers one (then the least of them).
 */
import type { Middleware, MiddlewareState } from '@floating-ui/dom';
import { chooseCardPlacement, type Rect } from '@/lib/page/card/card-placement';

export interface AvoidOptions {
  /** The page tooltips visible now. */
  elements: () => readonly Element[];
  /** The neighbouring marks' boxes as the card opened (viewport pixels then). */
  neighbours?: readonly Rect[];
  viewport: () => { width: number; height: number };
  gap: number;
  padding: number;
}

const NAME = 'avoidPageTooltips';

/** How far past the IP's usual gap the card goes to clear a tooltip on its side (0: not at all). */
export function pushOf(state: MiddlewareState): number {
  return (state.middlewareData[NAME] as { push?: number } | undefined)?.push ?? 0;
}

export function avoidPageTooltips(options: AvoidOptions): Middleware & { avoids(): boolean } {
  /** Each tooltip's last box, relative to the IP's box. */
  const seen = new Map<Element, Rect>();
  const neighbours = options.neighbours ?? [];
  /** The neighbours relative to the IP's box, from the first computation on. */
  let near: Rect[] | null = null;
  return {
    name: NAME,
    avoids: () => neighbours.length > 0 || seen.size > 0 || options.elements().length > 0,
    fn(state) {
      // Decided once per computation: the size middleware's re-measure must not undo it.
      if ((state.middlewareData[NAME] as { placement?: string } | undefined)?.placement) return {};
      const anchor = state.rects.reference;
      for (const el of options.elements()) {
        const r = el.getBoundingClientRect();
        seen.set(el, { x: r.x - anchor.x, y: r.y - anchor.y, width: r.width, height: r.height });
      }
      near ??= neighbours.map((r) => ({ ...r, x: r.x - anchor.x, y: r.y - anchor.y }));
      if (seen.size === 0 && near.length === 0) return {};
      const fromAnchor = (r: Rect) => ({ ...r, x: r.x + anchor.x, y: r.y + anchor.y });
      const { placement, push } = chooseCardPlacement({
        anchor,
        card: state.rects.floating,
        viewport: options.viewport(),
        avoid: [...seen.values()].map(fromAnchor),
        spare: near.map(fromAnchor),
        gap: options.gap,
        padding: options.padding,
      });
      // `push` is read by the offset middleware that follows (see pushOf).
      return placement === state.placement ? { data: { placement, push } } : { data: { placement, push }, reset: { placement } };
    },
  };
}
