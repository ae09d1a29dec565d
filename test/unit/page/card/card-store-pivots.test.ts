// @vitest-environment happy-dom
/** The card's "Open in …", its O key and "Copy defanged" (lib/page/card/card-store.ts). */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createCardStore, type CardLens, type CardStoreDeps, type CardSurface, type CardView } from '@/lib/page/card/card-store';
import { findIps } from '@/lib/ip';
import type { PivotChoice } from '@/lib/pivots';
import type { Reply } from '@/lib/protocol';
import { DEFAULT_THRESHOLDS } from '@/lib/severity';

const lens: CardLens = {
  hitTest: () => undefined,
  resultOf: () => undefined,
  onResults: () => () => {},
  putResult: () => {},
  askNow: () => {},
  thresholds: DEFAULT_THRESHOLDS,
  resultsGeneration: 0,
  store: { nodes: () => [], occurrencesOfNode: () => [] },
};

function surface(): CardSurface & { views: CardView[]; copies: string[] } {
  const views: CardView[] = [];
  const copies: string[] = [];
  return {
    views,
    copies,
    attach: () => {},
    paint: (view) => void views.push(view),
    place: () => {},
    detach: () => {},
    contains: () => false,
    focusIn: () => {},
    hasFocus: () => false,
    copy: async (text) => {
      copies.push(text);
      return true;
    },
  };
}

const last = (s: { views: CardView[] }) => s.views[s.views.length - 1]!;
const SERVICES: PivotChoice[] = [
  { id: 'shodan', name: 'Shodan' },
  { id: 'ipinfo', name: 'ipinfo' },
];
const key = (init: KeyboardEventInit, target: EventTarget = document.body) =>
  target.dispatchEvent(new KeyboardEvent('keydown', { bubbles: true, composed: true, cancelable: true, ...init }));

describe('card: open in, O key, copy defanged', () => {
  const aborts: AbortController[] = [];
  afterEach(() => {
    aborts.splice(0).forEach((a) => a.abort());
    document.body.replaceChildren();
  });

  function start(extra: Partial<CardStoreDeps> = {}) {
    const abort = new AbortController();
    aborts.push(abort);
    const opened: [string, string][] = [];
    const s = surface();
    const deps: CardStoreDeps = {
      lens,
      findIps,
      lookupDetailed: vi.fn(),
      signal: abort.signal,
      pivots: vi.fn(async (): Promise<Reply<{ pivots: PivotChoice[] }>> => ({ ok: true, value: { pivots: SERVICES } })),
      openPivot: vi.fn(async (ip: string, id: string): Promise<Reply<{ opened: true }>> => {
        opened.push([ip, id]);
        return { ok: true, value: { opened: true } };
      }),
      ...extra,
    };
    return { card: createCardStore(deps, s), s, opened, deps };
  }

  it('asks the services as each card opens and offers them, and a button opens its own', async () => {
    const { card, s, opened, deps } = start();
    card.showForSelection('2001:db8::1');
    await vi.waitFor(() => expect(last(s).pivots).toEqual(SERVICES));
    last(s).onPivot('2001:db8::1', 'ipinfo');
    await vi.waitFor(() => expect(opened).toEqual([['2001:db8::1', 'ipinfo']]));
    card.close();
    card.showForSelection('8.8.8.8');
    expect(deps.pivots).toHaveBeenCalledTimes(2);
  });

  it('O opens the first service for the card\'s IP, waiting for the services if needed', async () => {
    let answer!: (r: Reply<{ pivots: PivotChoice[] }>) => void;
    const { card, opened } = start({ pivots: () => new Promise((r) => (answer = r)) });
    card.showForSelection('src 185.220.101.1 dst 8.8.8.8');
    expect(key({ key: 'o' })).toBe(false);
    expect(opened).toEqual([]);
    answer({ ok: true, value: { pivots: SERVICES } });
    await vi.waitFor(() => expect(opened).toEqual([['185.220.101.1', 'shodan']]));
  });

  it('leaves O to the page when no card is open, when typing in its field, or with a modifier', async () => {
    const { card, opened } = start();
    expect(key({ key: 'o' })).toBe(true);
    card.showForSelection('8.8.8.8');
    const input = document.createElement('input');
    document.body.append(input);
    expect(key({ key: 'o' }, input)).toBe(true);
    expect(key({ key: 'o', ctrlKey: true })).toBe(true);
    await new Promise((r) => setTimeout(r, 10));
    expect(opened).toEqual([]);
    expect(key({ key: 'O', shiftKey: true })).toBe(false);
    await vi.waitFor(() => expect(opened).toEqual([['8.8.8.8', 'shodan']]));
  });

  it('says why nothing opened: no service on, or the background refused', async () => {
    const none = start({ pivots: async () => ({ ok: true, value: { pivots: [] } }) });
    none.card.showForSelection('8.8.8.8');
    key({ key: 'o' });
    await vi.waitFor(() => expect(last(none.s).pivotError).toMatch(/No "Open in …" service is turned on/));
    expect(none.opened).toEqual([]);

    const refused = start({ openPivot: async () => ({ ok: false, error: { kind: 'internal', message: 'Too many links opened from this tab: try again in 2 s.' } }) });
    refused.card.showForSelection('8.8.8.8');
    await vi.waitFor(() => expect(last(refused.s).pivots).toHaveLength(2));
    last(refused.s).onPivot('8.8.8.8', 'shodan');
    await vi.waitFor(() => expect(last(refused.s).pivotError).toBe('Could not open the link: Too many links opened from this tab: try again in 2 s.'));
  });

  it('copies the IP plain or defanged, and says which', async () => {
    const { card, s } = start();
    card.showForSelection('185.220.101.1 and 2001:db8::1');
    last(s).onCopyDefanged('185.220.101.1');
    await vi.waitFor(() => expect(last(s).entries[0]).toMatchObject({ copiedDefanged: true, copied: false }));
    last(s).onCopyDefanged('2001:db8::1');
    last(s).onCopy('185.220.101.1');
    await vi.waitFor(() => expect(s.copies).toEqual(['185[.]220[.]101[.]1', '2001[:]db8[:][:]1', '185.220.101.1']));
    await vi.waitFor(() => expect(last(s).entries[0]).toMatchObject({ copiedDefanged: false, copied: true }));
  });
});
