/**
 * Puts the hover card on the page: the shadow host, the popover, Floating UI's positioning,
 * focus, and Preact rendering of `HoverCard`. What the card shows and when is the store's
 * (lib/page/card/card-store.ts); this is the `CardSurface` it drives.
 */
import { render } from 'preact';
import { liveRange } from '@/lib/page/card/hit-test';
import { createCardStore, type CardMode, type CardStore, type CardStoreDeps, type CardSurface } from '@/lib/page/card/card-store';
import { pageTooltipsFor } from '@/lib/page/card/page-tooltips';
import detailsCss from '@/components/reputation-details.css?inline';
import { createCardHost, type CardHost } from './card-host';
import { followAnchor, rangeAnchor } from './card-position';
import { copyText } from './copy-text';
import { HoverCard } from './hover-card';

/** The card's factory, published by hover-card.js (see lazy-card.ts). */
export function createHoverCard(deps: CardStoreDeps): CardStore {
  return createCardStore(deps, createCardSurface(deps.doc ?? document));
}

export function createCardSurface(doc: Document): CardSurface {
  let host: CardHost | null = null;
  let card: HTMLElement | null = null;
  let stopFollowing: (() => void) | null = null;
  /** Where the focus was when the card took it; null while the card has not. */
  let focusBefore: Element | null = null;
  const hasFocus = () => !!host && doc.activeElement === host.host;

  function ensureHost(): { host: CardHost; card: HTMLElement } {
    if (!host || !card) {
      host = createCardHost(doc, [detailsCss]);
      card = doc.createElement('div');
      card.className = 'card';
      card.tabIndex = -1;
      // Top layer where supported: above the console's own dialogs whatever their z-index.
      if (typeof card.showPopover === 'function') card.setAttribute('popover', 'manual');
      host.mount.append(card);
    }
    return { host, card };
  }

  function anchorOf(m: CardMode) {
    if (m.kind === 'hover') {
      const range = liveRange(m.occ);
      return range ? rangeAnchor(range, m.point) : null;
    }
    return m.range ? rangeAnchor(m.range) : null;
  }

  return {
    attach() {
      stopFollowing?.();
      stopFollowing = null;
      ensureHost().host.attach();
    },
    paint(view) {
      if (card) render(<HoverCard {...view} />, card);
    },
    place(mode, onAnchorLost, neighbours) {
      const { card: c } = ensureHost();
      if (c.hasAttribute('popover') && !isPopoverOpen(c)) c.showPopover();
      const anchor = anchorOf(mode);
      if (anchor) {
        const lost = mode.kind === 'hover' ? { isAlive: () => mode.occ.node.isConnected, onLost: onAnchorLost } : undefined;
        // The page's own tooltip for this text (a grid's cell tooltip) stays uncovered.
        const target = mode.kind === 'hover' ? mode.occ.node : (mode.range?.startContainer ?? null);
        const tooltips = pageTooltipsFor({ doc, target, isOwnUi: (el) => !!host?.isHost(el) });
        stopFollowing = followAnchor(anchor, c, lost, tooltips, neighbours);
      } else {
        // Nothing to point at (selection gone): top right, inside the viewport.
        c.style.left = `${Math.max(8, doc.documentElement.clientWidth - 400)}px`;
        c.style.top = '8px';
      }
    },
    focusIn() {
      if (!card) return;
      if (!hasFocus()) focusBefore = doc.activeElement;
      // The dialog itself, so a screen reader announces its name (IP and severity) first.
      const dialog = card.querySelector<HTMLElement>('[role="dialog"]') ?? card;
      dialog.focus({ preventScroll: true });
    },
    hasFocus,
    detach() {
      stopFollowing?.();
      stopFollowing = null;
      const hadFocus = hasFocus();
      if (card) {
        if (card.hasAttribute('popover') && isPopoverOpen(card)) card.hidePopover();
        render(null, card);
      }
      host?.detach();
      // Back where it was, unless the analyst has moved it out of the card meanwhile.
      if (hadFocus && focusBefore instanceof HTMLElement && focusBefore.isConnected) {
        focusBefore.focus({ preventScroll: true });
      }
      focusBefore = null;
    },
    contains: (target) => !!host && host.isHost(target),
    copy: (text) => (host ? copyText(text, host.shadow) : Promise.resolve(false)),
  };
}

function isPopoverOpen(el: HTMLElement): boolean {
  try {
    return el.matches(':popover-open');
  } catch {
    return false;
  }
}
