// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createHoverCard } from '@/components/hover-card/card-mount';
import type { CardLens } from '@/lib/page/card/card-store';
import { createCardHost, HOST_TAG } from '@/components/hover-card/card-host';
import { findIps } from '@/lib/ip';
import { DEFAULT_THRESHOLDS } from '@/lib/severity';

function fakeLens(): CardLens & { asked: string[][] } {
  const asked: string[][] = [];
  return {
    asked,
    hitTest: () => undefined,
    resultOf: () => undefined,
    onResults: () => () => {},
    putResult: () => {},
    askNow: (ips) => void asked.push(ips),
    thresholds: DEFAULT_THRESHOLDS,
    resultsGeneration: 0,
    store: { nodes: () => [], occurrencesOfNode: () => [] },
  };
}

describe('card host', () => {
  it('is one element outside <body> with a closed shadow root and its own styles', () => {
    const host = createCardHost(document, ['.x { color: red }']);
    expect(host.host.tagName).toBe(HOST_TAG.toUpperCase());
    // Closed: the page cannot reach in.
    expect(host.host.shadowRoot).toBeNull();
    expect(host.shadow.adoptedStyleSheets.length).toBe(1);
    expect(host.host.getAttribute('style')).toContain('all: initial !important');
    host.attach();
    expect(document.documentElement.lastElementChild).toBe(host.host);
    host.attach();
    expect(document.querySelectorAll(HOST_TAG).length).toBe(1);
    host.detach();
    expect(host.host.isConnected).toBe(false);
  });
});

describe('hover card on the page', () => {
  afterEach(() => {
    document.body.replaceChildren();
    document.querySelectorAll(HOST_TAG).forEach((n) => n.remove());
  });

  it('opens a card for the IPs of a selection, asks them, and closes on Escape', () => {
    const lens = fakeLens();
    const abort = new AbortController();
    const card = createHoverCard({ lens, findIps, lookupDetailed: vi.fn(), signal: abort.signal });
    card.showForSelection('from 185.220.101.1 to 10.0.0.1 and 185.220.101.1 again');
    expect(card.open).toBe(true);
    expect(lens.asked).toEqual([['185.220.101.1', '10.0.0.1']]);
    const host = document.querySelector(HOST_TAG)!;
    expect(host).not.toBeNull();
    expect(card.isOwnUi(host)).toBe(true);
    expect(card.isOwnUi(document.body)).toBe(false);
    document.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape' }));
    expect(card.open).toBe(false);
    expect(document.querySelector(HOST_TAG)).toBeNull();
    abort.abort();
  });

  it('closes the selection card on a click elsewhere and when stopped', () => {
    const lens = fakeLens();
    const abort = new AbortController();
    const card = createHoverCard({ lens, findIps, lookupDetailed: vi.fn(), signal: abort.signal });
    card.showForSelection('8.8.8.8');
    document.body.dispatchEvent(new PointerEvent('pointerdown', { bubbles: true }));
    expect(card.open).toBe(false);
    card.showForSelection('8.8.8.8');
    abort.abort();
    expect(card.open).toBe(false);
    expect(document.querySelector(HOST_TAG)).toBeNull();
  });
});
