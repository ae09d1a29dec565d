/**
 * The hover card (Preact, Floating UI, the card's styles and texts: more than half of the
 * content script) loads at the first hover, not with the content script: most pages are
 * scanned and never hovered, and every page pays for the script's size as it parses it.
 *
 * How the code arrives: the background injects `hover-card.js` (entrypoints/hover-card.ts)
 * with `scripting.executeScript` into the same frame, and it runs in the same isolated world
 * as this script, where it publishes its factory on the world's global object. This works the
 * same in Chromium and Firefox MV3, where a content script is a classic script: an `import()`
 * of an extension file would need that file listed in web_accessible_resources, which lets
 * every page load it (and so detect the extension), and WXT bundles a content script into one
 * file, so a plain dynamic import would be inlined, not split.
 *
 * Until the card has loaded, this module watches the pointer the cheap way the hover intent
 * does (a hit-test only once the pointer rests) and starts loading when it rests on an IP; the
 * card's store then starts from where the pointer is, so a pointer that stays still still opens
 * the card.
 */
import type { CardStore, CardStoreDeps } from '@/lib/page/card/card-store';

/** The property of the isolated world's global object that carries the card's factory. */
export const CARD_FACTORY_KEY = '__iplensCard';

/**
 * Where the keyboard shortcut comes in: a browser command reaches the background only, which
 * runs a function in this world (lib/background/keyboard-command.ts, pressKey). This property
 * holds what brings the card (loading its code first if need be), `(fromHover: false) =>
 * Promise<CardStore | null>`, and that function calls the card's `keyboard()`: the content
 * script carries nothing more for it. The page's own scripts live in another world and cannot
 * reach it.
 */
export const CARD_KEYBOARD_KEY = '__iplensKey';

export type CardFactory = (deps: CardStoreDeps) => CardStore;

type CardGlobal = { [CARD_FACTORY_KEY]?: CardFactory };

/** Called by hover-card.js as it runs. */
export function publishCardFactory(factory: CardFactory): void {
  (globalThis as CardGlobal)[CARD_FACTORY_KEY] = factory;
}

export function publishedCardFactory(): CardFactory | undefined {
  const factory = (globalThis as CardGlobal)[CARD_FACTORY_KEY];
  return typeof factory === 'function' ? factory : undefined;
}

export interface LazyCardDeps extends Omit<CardStoreDeps, 'initialPointer'> {
  /** Brings the card code into this world; rejects when it cannot (tried again next hover). */
  load: () => Promise<CardFactory>;
  /** How long the pointer rests before the hit-test (the hover intent's default). */
  restMs?: number;
}

/**
 * What the content script holds of the card: the selection lookup and the scanner's "ours?"
 * check. The keyboard comes in through CARD_KEYBOARD_KEY; the rest is the card's own.
 */
export type PageCard = Pick<CardStore, 'showForSelection' | 'isOwnUi'>;

export function createLazyCard(deps: LazyCardDeps): PageCard {
  const doc = deps.doc ?? document;
  const { signal } = deps;
  const restMs = deps.restMs ?? deps.hoverTiming?.restMs ?? 80;
  let card: CardStore | null = null;
  let loading: Promise<CardStore | null> | null = null;
  let pointer: { x: number; y: number } | null = null;
  let restTimer: ReturnType<typeof setTimeout> | undefined;
  const watching = new AbortController();
  signal.addEventListener('abort', () => watching.abort());

  function ensure(fromHover: boolean): Promise<CardStore | null> {
    loading ??= deps
      .load()
      .then((factory) => {
        if (signal.aborted) return null;
        // The pointer may have moved on while the code loaded: start from where it is now.
        const at = fromHover && pointer ? { initialPointer: pointer } : {};
        const { load: _load, restMs: _rest, ...storeDeps } = deps;
        card = factory({ ...storeDeps, ...at });
        watching.abort();
        clearTimeout(restTimer);
        return card;
      })
      .catch(() => {
        // Not loaded (the extension was updated, the frame is going away): no card this time.
        loading = null;
        return null;
      });
    return loading;
  }

  doc.addEventListener(
    'pointermove',
    (event) => {
      const e = event as PointerEvent;
      if (e.pointerType === 'touch') return;
      pointer = { x: e.clientX, y: e.clientY };
      clearTimeout(restTimer);
      restTimer = setTimeout(() => {
        if (pointer && !loading && deps.lens.hitTest(pointer.x, pointer.y)) void ensure(true);
      }, restMs);
    },
    { capture: true, passive: true, signal: watching.signal },
  );
  watching.signal.addEventListener('abort', () => clearTimeout(restTimer));
  (globalThis as Record<string, unknown>)[CARD_KEYBOARD_KEY] = ensure;

  return {
    // Once loaded, ensure() gives the same card at once (a resolved promise).
    showForSelection: (text) => void ensure(false).then((c) => c?.showForSelection(text)),
    isOwnUi: (element) => card?.isOwnUi(element) ?? false,
  };
}
