/**
 * The card's single element in the page: a host with a closed shadow root, so page scripts
 * cannot reach into the card (and its API text) and page CSS cannot restyle it. It is attached
 * to `<html>` only while a card is open, outside `<body>`, so frameworks that own body's
 * children never meet it.
 */
import { adoptSheet } from '@/lib/page/marks/adopted-sheets';
import { CARD_CSS, HOST_STYLE } from './card-styles';

export const HOST_TAG = 'ip-reputation-lens';

export interface CardHost {
  readonly host: HTMLElement;
  /** Where the card's Preact tree renders. */
  readonly mount: HTMLElement;
  /** Our shadow root: closed, kept only here. */
  readonly shadow: ShadowRoot;
  attach(): void;
  detach(): void;
  isHost(node: unknown): boolean;
}

export function createCardHost(doc: Document, extraCss: readonly string[] = []): CardHost {
  const host = doc.createElement(HOST_TAG);
  host.setAttribute('style', HOST_STYLE);
  const shadow = host.attachShadow({ mode: 'closed' });
  const css = [...extraCss, CARD_CSS].join('\n');
  const sheet = new (doc.defaultView ?? window).CSSStyleSheet();
  sheet.replaceSync(css);
  // A <style> in our own closed root where Firefox's Xray wrapper refuses adoption.
  adoptSheet(shadow, sheet, css);
  const mount = doc.createElement('div');
  shadow.append(mount);
  return {
    host,
    mount,
    shadow,
    attach() {
      if (!host.isConnected) doc.documentElement.append(host);
    },
    detach() {
      host.remove();
    },
    isHost: (node) => node === host,
  };
}
