// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest';
import { createCardHost } from '@/components/hover-card/card-host';
import { adoptSheet, dropSheet, fallbackStyle, isApplied } from '@/lib/page/marks/adopted-sheets';
import { Highlighter } from '@/lib/page/marks/highlighter';
import { fakeHighlighterEnv } from '../dom-fakes';

/**
 * What a Firefox 140 content script sees of a page's `adoptedStyleSheets` through its Xray
 * wrapper: an array-like with no Array methods, and assignment refused.
 */
function xrayLike(root: Document | ShadowRoot, sheets: CSSStyleSheet[] = []): void {
  Object.defineProperty(root, 'adoptedStyleSheets', {
    configurable: true,
    get: () => Object.assign(Object.create(null), { length: sheets.length }, sheets),
    set: () => {
      throw new Error('Accessing from Xray wrapper is not supported');
    },
  });
}

function shadowRoot(): ShadowRoot {
  const host = document.createElement('div');
  document.body.append(host);
  return host.attachShadow({ mode: 'open' });
}

const restore: (() => void)[] = [];
afterEach(() => {
  restore.splice(0).forEach((f) => f());
  document.body.replaceChildren();
});

describe('adoptSheet', () => {
  it('adopts next to the page’s own sheets, once, and drops only ours', () => {
    const root = shadowRoot();
    const page = new CSSStyleSheet();
    root.adoptedStyleSheets = [page];
    const ours = new CSSStyleSheet();
    expect(adoptSheet(root, ours, 'p {}')).toBe('adopted');
    expect(adoptSheet(root, ours, 'p {}')).toBe('adopted');
    expect([...root.adoptedStyleSheets]).toEqual([page, ours]);
    expect(fallbackStyle(root)).toBeNull();
    dropSheet(root, ours);
    expect([...root.adoptedStyleSheets]).toEqual([page]);
  });

  it('through an Xray-like wrapper: no throw, a <style> with the same rules, updated in place', () => {
    const root = shadowRoot();
    xrayLike(root, [new CSSStyleSheet()]);
    const ours = new CSSStyleSheet();
    expect(adoptSheet(root, ours, '::highlight(a) { color: red; }')).toBe('style-element');
    expect(adoptSheet(root, ours, '::highlight(a) { background-color: red; }')).toBe('style-element');
    expect(root.querySelectorAll('style').length).toBe(1);
    expect(fallbackStyle(root)!.textContent).toBe('::highlight(a) { background-color: red; }');
    expect(isApplied(root, ours)).toBe(true);
    dropSheet(root, ours);
    expect(root.querySelectorAll('style').length).toBe(0);
    expect(isApplied(root, ours)).toBe(false);
  });
});

describe('users of adoptSheet under an Xray wrapper', () => {
  it('the Highlighter marks a wrapped root with a <style> that follows the mark style', () => {
    const root = shadowRoot();
    xrayLike(root);
    const h = new Highlighter(fakeHighlighterEnv(), 'underline');
    h.adoptInto(root);
    expect(fallbackStyle(root)!.textContent).toContain('text-decoration');
    h.setStyle('background');
    expect(fallbackStyle(root)!.textContent).toContain('background-color');
    h.ensureInstalled();
    expect(root.querySelectorAll('style').length).toBe(1);
    h.dispose();
    expect(fallbackStyle(root)).toBeNull();
  });

  it('the card styles its closed root with a <style> when adoption is refused', () => {
    const proto = Object.getPrototypeOf(shadowRoot()) as object;
    let owner: object | null = proto;
    while (owner && !Object.getOwnPropertyDescriptor(owner, 'adoptedStyleSheets')) owner = Object.getPrototypeOf(owner) as object | null;
    const original = Object.getOwnPropertyDescriptor(owner!, 'adoptedStyleSheets')!;
    Object.defineProperty(owner!, 'adoptedStyleSheets', {
      configurable: true,
      get: () => ({ length: 0 }),
      set: () => {
        throw new Error('Accessing from Xray wrapper is not supported');
      },
    });
    restore.push(() => Object.defineProperty(owner!, 'adoptedStyleSheets', original));
    const card = createCardHost(document, ['.extra { color: red; }']);
    const style = fallbackStyle(card.shadow);
    expect(style?.textContent).toContain('.extra { color: red; }');
  });
});
