/**
 * Styles of the card's frame. They live only inside the card's closed shadow root: nothing of
 * ours reaches the page's styles, and the page's styles reach nothing of ours (the host resets
 * inheritance with `all: initial`).
 */
export const CARD_CSS = `
:host { all: initial; }
.card {
  /* A popover in the top layer: above the console's own modals and z-indexes. */
  position: fixed; inset: auto; margin: 0; top: 0; left: 0;
  box-sizing: border-box; width: max-content; max-width: min(380px, calc(100vw - 16px));
  max-height: calc(100vh - 16px); overflow: auto;
  padding: 10px 12px; border-radius: 8px;
  border: 1px solid color-mix(in srgb, CanvasText 22%, transparent);
  background: Canvas; color: CanvasText; color-scheme: light dark;
  box-shadow: 0 6px 24px rgb(0 0 0 / 0.28);
  font: 13px/1.4 system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif;
  z-index: 2147483647;
}
.card:focus { outline: none; }
.card:focus-visible { outline: 2px solid Highlight; outline-offset: 2px; }
/* The keyboard's way in (the shortcut, the selection card): the dialog takes the focus, and shows it. */
.card-body:focus { outline: 2px solid Highlight; outline-offset: 3px; border-radius: 4px; }
.card-body:focus:not(:focus-visible) { outline: none; }
.rep-more { margin-top: 6px; }
.card-top { display: flex; justify-content: flex-end; margin: -4px -6px 0 0; float: right; }
.card button {
  font: 12px/1.2 system-ui, sans-serif; color: CanvasText; background: transparent;
  border: 1px solid color-mix(in srgb, CanvasText 30%, transparent); border-radius: 5px;
  padding: 4px 8px; cursor: pointer;
}
.card button:hover { background: color-mix(in srgb, CanvasText 8%, transparent); }
.card button:focus-visible { outline: 2px solid Highlight; outline-offset: 1px; }
.card button[disabled] { opacity: .6; cursor: progress; }
.card .close { border: none; font-size: 16px; line-height: 1; padding: 2px 6px; }
.cost { color: color-mix(in srgb, CanvasText 62%, transparent); font-size: 11px; align-self: center; }
.status { min-height: 1em; font-size: 12px; color: color-mix(in srgb, CanvasText 70%, transparent); }
.error { color: #b3261e; }
@media (prefers-color-scheme: dark) { .error { color: #ffb4ab; } }
.list { display: grid; gap: 10px; }
.list > section + section { border-top: 1px solid color-mix(in srgb, CanvasText 15%, transparent); padding-top: 8px; }
.title { font: 600 12px/1.3 system-ui, sans-serif; margin: 0 0 8px; }
.pivots { display: flex; flex-wrap: wrap; gap: 4px; align-items: center; flex-basis: 100%; margin-top: 2px; }
.pivots-label { font-size: 11px; color: color-mix(in srgb, CanvasText 62%, transparent); margin-right: 2px; }
.sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
`;

/** Inline style of the host element: `!important` inline wins over any page rule. */
export const HOST_STYLE = [
  'all: initial !important',
  'position: fixed !important',
  'top: 0 !important',
  'left: 0 !important',
  'width: 0 !important',
  'height: 0 !important',
  'overflow: visible !important',
  'z-index: 2147483647 !important',
  'display: block !important',
  'pointer-events: auto !important',
].join('; ');
