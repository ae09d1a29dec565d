/**
 * Where the hover card goes when the page shows its own tooltip or popover for the same text
 * (ag-grid's cell tooltip sat 90 % under our card). Pure geometry, in viewport
 * pixels: it models what Floating UI then does with the chosen placement (offset, shift along
 * the card's edge, size shrinking the card to the space on its side) and picks the first
 * placement whose card rectangle stays clear of every rectangle to avoid. When none does, the
 * one covering the least of them: that is the side away from the tooltip.
 *
 * Rectangles to spare (the marked IPs on the lines around the one the card is about) weigh
 * less: a card may cover them when every placement that spares them covers a tooltip or leaves
 * the screen, and then covers the least of them.
 */

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export type CardPlacement =
  | 'bottom-start'
  | 'top-start'
  | 'bottom-end'
  | 'top-end'
  | 'right-start'
  | 'left-start'
  | 'right-end'
  | 'left-end';

/** Preference order: the card's usual place (under the IP) first, then above, then beside. */
export const CARD_PLACEMENTS: readonly CardPlacement[] = [
  'bottom-start',
  'top-start',
  'bottom-end',
  'top-end',
  'right-start',
  'left-start',
  'right-end',
  'left-end',
];

export interface PlacementInput {
  /** The IP's line box. */
  anchor: Rect;
  /** The card's size as drawn now. */
  card: { width: number; height: number };
  viewport: { width: number; height: number };
  /** The page's tooltips and popovers. */
  avoid: readonly Rect[];
  /** Kept clear of where the room allows (neighbouring marks). */
  spare?: readonly Rect[];
  /** Distance between the IP and the card (Floating UI's offset). */
  gap?: number;
  /** Distance kept from the viewport's edges (shift and size padding). */
  padding?: number;
  /** The size middleware never makes the card lower or narrower than this. */
  minHeight?: number;
  minWidth?: number;
}

export interface PlacementChoice {
  placement: CardPlacement;
  /** Added to the gap: how far the card moves out along its side to clear a tooltip there. */
  push: number;
  /** Where the card would be drawn. */
  rect: Rect;
  /** Area of the avoided rectangles (widened by the gap) that the card would cover. */
  overlap: number;
  /** Area of the rectangles to spare that the card would cover. */
  spared: number;
  /** The card fits on that side at its full size. */
  fits: boolean;
}

/**
 * Each placement is tried next to the IP and, when that covers a tooltip on the same side,
 * moved out past it (a tooltip above-left of an IP in the bottom-right corner leaves no room
 * beside the IP). Costs: the area covered plus the area off screen; then adjacent before
 * moved out, full size before shrunk, and the preference order.
 */
export function chooseCardPlacement(input: PlacementInput): PlacementChoice {
  const gap = input.gap ?? 6;
  // A card touching the tooltip's edge still looks like it covers it: keep the gap around it too.
  const avoid = input.avoid.map((r) => inflate(r, gap));
  const options = CARD_PLACEMENTS.flatMap((placement, index) => {
    const near = option(placement, 0);
    const push = near.overlap > 0 ? pushPast(placement, input, avoid) : 0;
    return (push > 0 ? [near, option(placement, push)] : [near]).map((o) => ({ ...o, index }));
  });
  options.sort(
    (a, b) =>
      a.overlap + a.offscreen - (b.overlap + b.offscreen) ||
      a.spared - b.spared ||
      Number(a.push > 0) - Number(b.push > 0) ||
      Number(b.fits) - Number(a.fits) ||
      a.push - b.push ||
      a.index - b.index,
  );
  const { placement, push, rect, overlap, spared, fits } = options[0]!;
  return { placement, push, rect, overlap, spared, fits };

  function option(placement: CardPlacement, push: number) {
    const { rect, fits } = cardRectAt(placement, input, push);
    const overlap = avoid.reduce((sum, r) => sum + overlapArea(rect, r), 0);
    const spared = (input.spare ?? []).reduce((sum, r) => sum + overlapArea(rect, r), 0);
    const { width, height } = input.viewport;
    const offscreen = rect.width * rect.height - overlapArea(rect, { x: 0, y: 0, width, height });
    return { placement, push, rect, overlap, spared, offscreen, fits };
  }
}

/** How much farther out along its side the card must go to clear the avoided rectangles. */
function pushPast(placement: CardPlacement, input: PlacementInput, avoid: readonly Rect[]): number {
  const side = placement.split('-')[0];
  let push = 0;
  // Clearing one rectangle can land on the next: a few rounds settle it.
  for (let round = 0; round < avoid.length; round++) {
    const { rect } = cardRectAt(placement, input, push);
    const hit = avoid.find((r) => overlapArea(rect, r) > 0);
    if (!hit) break;
    if (side === 'top') push += rect.y + rect.height - hit.y;
    else if (side === 'bottom') push += hit.y + hit.height - rect.y;
    else if (side === 'left') push += rect.x + rect.width - hit.x;
    else push += hit.x + hit.width - rect.x;
  }
  return Math.ceil(push);
}

/** The card's rectangle at one placement, after Floating UI's offset, shift and size. */
export function cardRectAt(placement: CardPlacement, input: PlacementInput, push = 0): { rect: Rect; fits: boolean } {
  const { anchor: a, card, viewport: vp } = input;
  const gap = (input.gap ?? 6) + push;
  const pad = input.padding ?? 8;
  const [side, align] = placement.split('-') as ['top' | 'bottom' | 'left' | 'right', 'start' | 'end'];
  if (side === 'top' || side === 'bottom') {
    const room = side === 'bottom' ? vp.height - pad - (a.y + a.height + gap) : a.y - gap - pad;
    const height = Math.min(card.height, Math.max(input.minHeight ?? 120, room));
    const y = side === 'bottom' ? a.y + a.height + gap : a.y - gap - height;
    const x = clamp(align === 'start' ? a.x : a.x + a.width - card.width, pad, vp.width - pad - card.width);
    return { rect: { x, y, width: card.width, height }, fits: room >= card.height && card.width <= vp.width - 2 * pad };
  }
  const room = side === 'right' ? vp.width - pad - (a.x + a.width + gap) : a.x - gap - pad;
  const width = Math.min(card.width, Math.max(input.minWidth ?? 200, room));
  const x = side === 'right' ? a.x + a.width + gap : a.x - gap - width;
  const y = clamp(align === 'start' ? a.y : a.y + a.height - card.height, pad, vp.height - pad - card.height);
  return { rect: { x, y, width, height: card.height }, fits: room >= card.width && card.height <= vp.height - 2 * pad };
}

export function overlapArea(a: Rect, b: Rect): number {
  const w = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  return w > 0 && h > 0 ? w * h : 0;
}

function inflate(r: Rect, by: number): Rect {
  return { x: r.x - by, y: r.y - by, width: r.width + 2 * by, height: r.height + 2 * by };
}

/** Like shift: the start edge wins when the card is wider than the room. */
function clamp(value: number, min: number, max: number): number {
  return Math.max(min, Math.min(value, max));
}
