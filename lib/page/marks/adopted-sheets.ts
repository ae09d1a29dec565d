/**
 * Adding our constructed stylesheet to a document or shadow root in a way that also works from
 * a Firefox content script. There the page's `adoptedStyleSheets` is seen through an Xray
 * wrapper: Firefox 140 gives an array-like without Array methods (`includes` is not a
 * function) and refuses assignment ("Accessing from Xray wrapper is not supported"). So read it
 * by index only, and when assignment fails, fall back to a `<style>` element holding the same
 * rules (in our own card root, or in a scanned shadow root as a last resort).
 */

type StyleRoot = Document | ShadowRoot;

/** Marks the fallback element as ours, so it is found again and never mistaken for the page's. */
export const FALLBACK_ATTRIBUTE = 'data-ip-reputation-lens';

/** The root's sheets, read by index: no Array method is assumed. */
export function adoptedSheets(root: StyleRoot): CSSStyleSheet[] {
  const list = root.adoptedStyleSheets as ArrayLike<CSSStyleSheet> | undefined;
  const out: CSSStyleSheet[] = [];
  for (let i = 0; i < (list?.length ?? 0); i++) out.push(list![i]!);
  return out;
}

export function hasAdopted(root: StyleRoot, sheet: CSSStyleSheet): boolean {
  return adoptedSheets(root).some((s) => s === sheet);
}

function fallbackParent(root: StyleRoot): ParentNode | null {
  return root.nodeType === Node.DOCUMENT_NODE ? ((root as Document).head ?? (root as Document).documentElement) : root;
}

export function fallbackStyle(root: StyleRoot): HTMLStyleElement | null {
  return fallbackParent(root)?.querySelector<HTMLStyleElement>(`style[${FALLBACK_ATTRIBUTE}]`) ?? null;
}

/**
 * Makes `css` (the text of `sheet`) apply in `root`: adopted when the browser lets us, else a
 * `<style>` element. Returns how.
 */
export function adoptSheet(root: StyleRoot, sheet: CSSStyleSheet, css: string): 'adopted' | 'style-element' {
  try {
    if (!hasAdopted(root, sheet)) root.adoptedStyleSheets = [...adoptedSheets(root), sheet];
    if (hasAdopted(root, sheet)) {
      fallbackStyle(root)?.remove();
      return 'adopted';
    }
  } catch {
    // Xray wrapper (Firefox content script): fall through to a <style> element.
  }
  const doc = root.nodeType === Node.DOCUMENT_NODE ? (root as Document) : root.ownerDocument!;
  let style = fallbackStyle(root);
  if (!style) {
    style = doc.createElement('style');
    style.setAttribute(FALLBACK_ATTRIBUTE, '');
    fallbackParent(root)?.append(style);
  }
  if (style.textContent !== css) style.textContent = css;
  return 'style-element';
}

/** Whether `root` currently gets our rules, either way. */
export function isApplied(root: StyleRoot, sheet: CSSStyleSheet): boolean {
  return hasAdopted(root, sheet) || (fallbackStyle(root)?.isConnected ?? false);
}

/** Removes our rules from `root`, whichever way they were applied. */
export function dropSheet(root: StyleRoot, sheet: CSSStyleSheet): void {
  try {
    if (hasAdopted(root, sheet)) root.adoptedStyleSheets = adoptedSheets(root).filter((s) => s !== sheet);
  } catch {
    // Could not have been adopted through this wrapper either.
  }
  fallbackStyle(root)?.remove();
}
