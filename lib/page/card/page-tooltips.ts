/**
 * The page's own tooltips and popovers, which the hover card must not cover: any
 * visible `role="tooltip"` (ag-grid, MUI, Tippy append one to body on hover), any open popover
 * (`:popover-open`, the Popover API), and what `aria-describedby` on the hovered text's element
 * or its ancestors points at. Only one pointer hovers, so a tooltip shown now is the one for
 * the text under it. Never our own UI, never a container that holds the hovered text (an IP
 * inside a popover keeps its card next to it).
 *
 * Watched only while a card is open: a MutationObserver (tooltips are appended or shown by
 * attribute) plus the popovers' `toggle` event (`showPopover()` changes no attribute), whose
 * callbacks only schedule one check per frame; the listener hears only real changes.
 */

export interface PageTooltips {
  /** The tooltips visible now. */
  elements(): Element[];
  /** Calls `onChange` when the set of visible tooltips or their boxes change; returns the stop. */
  watch(onChange: () => void): () => void;
}

export interface PageTooltipOptions {
  doc: Document;
  /** The hovered text (or the start of the selection). */
  target: Node | null;
  /** Our own card's host. */
  isOwnUi: (element: Element) => boolean;
}

const WATCHED_ATTRIBUTES = ['style', 'class', 'hidden', 'role', 'aria-describedby', 'popover', 'open'];

export function pageTooltipsFor({ doc, target, isOwnUi }: PageTooltipOptions): PageTooltips {
  function elements(): Element[] {
    const found = new Set<Element>();
    for (const el of doc.querySelectorAll('[role~="tooltip"]')) found.add(el);
    for (const el of openPopovers(doc)) found.add(el);
    for (const el of describedBy(target)) found.add(el);
    return [...found].filter((el) => !isOwnUi(el) && !(target && el.contains(target)) && isVisible(el));
  }

  function watch(onChange: () => void): () => void {
    let last = signature(elements());
    let frame = 0;
    const check = () => {
      frame = 0;
      const now = signature(elements());
      if (now === last) return;
      last = now;
      onChange();
    };
    const schedule = () => {
      frame ||= requestAnimationFrame(check);
    };
    const observer = new MutationObserver(schedule);
    observer.observe(doc.body ?? doc.documentElement, {
      childList: true,
      subtree: true,
      attributes: true,
      attributeFilter: WATCHED_ATTRIBUTES,
    });
    // `toggle` does not bubble, but capture on the document still hears it.
    doc.addEventListener('toggle', schedule, true);
    return () => {
      observer.disconnect();
      doc.removeEventListener('toggle', schedule, true);
      if (frame) cancelAnimationFrame(frame);
    };
  }

  return { elements, watch };
}

function openPopovers(doc: Document): Element[] {
  try {
    return [...doc.querySelectorAll(':popover-open')];
  } catch {
    // A browser without the Popover API: nothing can be open.
    return [];
  }
}

/** The elements named by aria-describedby on the target's element and its ancestors. */
function describedBy(target: Node | null): Element[] {
  const out: Element[] = [];
  let el: Element | null = target instanceof Element ? target : (target?.parentElement ?? null);
  for (; el && el !== el.ownerDocument.body; el = el.parentElement) {
    const ids = el.getAttribute('aria-describedby');
    if (!ids) continue;
    const root = el.getRootNode() as Document | ShadowRoot;
    for (const id of ids.split(/\s+/)) {
      const described = id ? root.getElementById(id) : null;
      if (described) out.push(described);
    }
  }
  return out;
}

function isVisible(el: Element): boolean {
  const r = el.getBoundingClientRect();
  if (r.width <= 0 || r.height <= 0) return false;
  // Hidden by `visibility` or a `content-visibility` ancestor still has a box.
  return typeof el.checkVisibility === 'function' ? el.checkVisibility({ visibilityProperty: true }) : true;
}

function signature(elements: Element[]): string {
  return elements
    .map((el) => {
      const r = el.getBoundingClientRect();
      return `${Math.round(r.x)},${Math.round(r.y)},${Math.round(r.width)},${Math.round(r.height)}`;
    })
    .join(';');
}
