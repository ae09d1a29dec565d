import { describe, expect, it } from 'vitest';
import { CARD_PLACEMENTS, cardRectAt, chooseCardPlacement, overlapArea, type PlacementInput, type Rect } from '@/lib/page/card/card-placement';

const viewport = { width: 1280, height: 800 };
const card = { width: 360, height: 240 };
/** An IP in a grid cell, and the tooltip ag-grid draws below-right of the pointer on it. */
function gridCase(anchor: Rect, extra: Partial<PlacementInput> = {}): PlacementInput {
  const pointer = { x: anchor.x + anchor.width / 2, y: anchor.y + anchor.height / 2 };
  const tooltip = { x: pointer.x, y: pointer.y + 20, width: 260, height: 66 };
  return { anchor, card, viewport, avoid: [tooltip], gap: 6, padding: 8, ...extra };
}

function coveredBy(input: PlacementInput): number {
  const { rect } = chooseCardPlacement(input);
  return input.avoid.reduce((sum, r) => sum + overlapArea(rect, r), 0);
}

describe('card placement beside a page tooltip', () => {
  it('keeps the usual place, under the IP, when there is nothing to avoid', () => {
    const choice = chooseCardPlacement({ ...gridCase({ x: 500, y: 380, width: 100, height: 18 }), avoid: [] });
    expect(choice.placement).toBe('bottom-start');
    expect(choice.rect).toEqual({ x: 500, y: 404, width: 360, height: 240 });
  });

  it('moves above the IP in the middle of the grid, where the tooltip is below', () => {
    const input = gridCase({ x: 500, y: 380, width: 100, height: 18 });
    // The old placement (under the IP) covers most of the tooltip.
    const under = cardRectAt('bottom-start', input).rect;
    expect(overlapArea(under, input.avoid[0]!)).toBeGreaterThan(0.8 * 260 * 66);
    const choice = chooseCardPlacement(input);
    expect(choice.placement).toBe('top-start');
    expect(choice.fits).toBe(true);
    expect(coveredBy(input)).toBe(0);
  });

  it('near the top, where the card does not fit above, sits beside the IP away from the tooltip', () => {
    const input = gridCase({ x: 500, y: 60, width: 100, height: 18 });
    const choice = chooseCardPlacement(input);
    expect(choice.placement).toBe('left-start');
    expect(choice.rect.x + choice.rect.width).toBeLessThanOrEqual(500);
    expect(coveredBy(input)).toBe(0);
  });

  it('at the right edge, with the tooltip moved left to fit, still clears it', () => {
    const anchor = { x: 1160, y: 300, width: 104, height: 18 };
    const tooltip = { x: 1280 - 4 - 260, y: 329, width: 260, height: 66 };
    const input: PlacementInput = { anchor, card, viewport, avoid: [tooltip], gap: 6, padding: 8 };
    const choice = chooseCardPlacement(input);
    expect(choice.placement.startsWith('top')).toBe(true);
    expect(choice.rect.x + choice.rect.width).toBeLessThanOrEqual(1280 - 8);
    expect(coveredBy(input)).toBe(0);
  });

  it('at the bottom edge, with the tooltip above the pointer, goes above it or beside', () => {
    const anchor = { x: 500, y: 770, width: 100, height: 18 };
    const tooltip = { x: 550, y: 779 - 12 - 66, width: 260, height: 66 };
    const input: PlacementInput = { anchor, card, viewport, avoid: [tooltip], gap: 6, padding: 8 };
    const choice = chooseCardPlacement(input);
    expect(choice.fits).toBe(true);
    expect(coveredBy(input)).toBe(0);
    // Never below the IP: there is no room.
    expect(choice.placement.startsWith('bottom')).toBe(false);
  });

  it('in the bottom-right corner, with the tooltip above-left of the pointer, moves out past it', () => {
    const anchor = { x: 1160, y: 770, width: 104, height: 18 };
    const tooltip = { x: 1280 - 4 - 260, y: 779 - 12 - 66, width: 260, height: 66 };
    const input: PlacementInput = { anchor, card, viewport, avoid: [tooltip], gap: 6, padding: 8 };
    // Nowhere next to the IP is clear of it.
    for (const p of CARD_PLACEMENTS) {
      const { rect } = cardRectAt(p, input);
      const inside = rect.x >= 0 && rect.y >= 0 && rect.x + rect.width <= 1280 && rect.y + rect.height <= 800;
      expect(inside && overlapArea(rect, tooltip) === 0, p).toBe(false);
    }
    const choice = chooseCardPlacement(input);
    expect(choice.placement).toBe('top-start');
    expect(choice.push).toBe(770 - 6 - (tooltip.y - 6));
    expect(choice.rect.y + choice.rect.height).toBeLessThanOrEqual(tooltip.y - 6);
    expect(choice.rect.x + choice.rect.width).toBeLessThanOrEqual(1280 - 8);
    expect(coveredBy(input)).toBe(0);
  });

  it('keeps the gap around the tooltip: touching it counts as covering it', () => {
    const input = gridCase({ x: 500, y: 380, width: 100, height: 18 });
    const choice = chooseCardPlacement(input);
    const t = input.avoid[0]!;
    const widened = { x: t.x - 6, y: t.y - 6, width: t.width + 12, height: t.height + 12 };
    expect(overlapArea(choice.rect, widened)).toBe(0);
  });

  it('when every side is covered, takes the one covering the least: away from the tooltip', () => {
    // A small window: a page popover over everything below and right of the IP, a banner above.
    const small = { width: 640, height: 400 };
    const anchor = { x: 200, y: 190, width: 100, height: 18 };
    const popover = { x: 120, y: 214, width: 520, height: 186 };
    const banner = { x: 0, y: 0, width: 640, height: 150 };
    const input: PlacementInput = { anchor, card, viewport: small, avoid: [popover, banner], gap: 6, padding: 8 };
    const choice = chooseCardPlacement(input);
    expect(choice.overlap).toBeGreaterThan(0);
    const widened = input.avoid.map((r) => ({ x: r.x - 6, y: r.y - 6, width: r.width + 12, height: r.height + 12 }));
    const covered = (rect: Rect) => widened.reduce((sum, r) => sum + overlapArea(rect, r), 0);
    expect(covered(choice.rect)).toBe(choice.overlap);
    for (const p of CARD_PLACEMENTS) expect(choice.overlap).toBeLessThanOrEqual(covered(cardRectAt(p, input).rect));
    // The usual place, under the IP, is towards the popover: not taken.
    expect(choice.placement).not.toBe('bottom-start');
  });

  it('models shift and size: inside the viewport, shrunk to the room on its side', () => {
    const input = gridCase({ x: 1200, y: 700, width: 70, height: 18 });
    const below = cardRectAt('bottom-start', input);
    expect(below.fits).toBe(false);
    expect(below.rect.height).toBe(120);
    expect(below.rect.x).toBe(1280 - 8 - 360);
    const above = cardRectAt('top-start', input);
    expect(above.fits).toBe(true);
    expect(above.rect.y).toBe(700 - 6 - 240);
  });
});
