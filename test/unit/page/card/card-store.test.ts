// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createCardStore, detailsFailure, type CardLens, type CardMode, type CardStoreDeps, type CardSurface, type CardView } from '@/lib/page/card/card-store';
import { findIps } from '@/lib/ip';
import type { LookupResult } from '@/lib/lookup/types';
import type { Reply } from '@/lib/protocol';
import { DEFAULT_THRESHOLDS } from '@/lib/severity';
import type { Occurrence } from '@/lib/page/occurrences/occurrence-store';

const found = { ip: '8.8.8.8', status: 'found', fetchedAt: 1, data: { ip: '8.8.8.8', score: 0, threatLevel: 'LOW', reputation: 'clean', totalHits: 0, lastAttack: null, whitelisted: false, whitelist: null, description: null } } as const;

function fakeLens(results: Map<string, LookupResult> = new Map()): CardLens & { asked: string[][]; put: LookupResult[]; generation: number } {
  const asked: string[][] = [];
  const put: LookupResult[] = [];
  return {
    asked,
    put,
    generation: 0,
    hitTest: () => undefined,
    resultOf: (ip) => results.get(ip),
    onResults: () => () => {},
    putResult: (r) => void put.push(r),
    askNow: (ips) => void asked.push(ips),
    thresholds: DEFAULT_THRESHOLDS,
    store: { nodes: () => [], occurrencesOfNode: () => [] },
    get resultsGeneration() {
      return this.generation;
    },
  };
}

/** A surface that records what the store asks of it: the store runs without Preact or a shadow host. */
function fakeSurface(copyWorks = true): CardSurface & { views: CardView[]; detached: CardMode[]; placed: CardMode[]; own: Element; focused: boolean; focusIns: number } {
  const own = document.createElement('div');
  const views: CardView[] = [];
  const detached: CardMode[] = [];
  const placed: CardMode[] = [];
  return {
    own,
    views,
    detached,
    placed,
    attach: () => {},
    paint: (view) => void views.push(view),
    place: (mode) => void placed.push(mode),
    detach(mode) {
      detached.push(mode);
      this.focused = false;
    },
    focused: false,
    focusIns: 0,
    focusIn() {
      this.focused = true;
      this.focusIns++;
    },
    hasFocus() {
      return this.focused;
    },
    contains: (target) => target === own,
    copy: async () => copyWorks,
  };
}

const last = <T>(xs: T[]): T => xs[xs.length - 1]!;

describe('card store', () => {
  const aborts: AbortController[] = [];
  function start(lens: CardLens, surface: CardSurface, lookupDetailed: (ip: string) => Promise<Reply<LookupResult>> = vi.fn()) {
    const abort = new AbortController();
    aborts.push(abort);
    return createCardStore({ lens, findIps, lookupDetailed, signal: abort.signal }, surface);
  }
  afterEach(() => {
    aborts.splice(0).forEach((a) => a.abort());
    vi.useRealTimers();
  });

  it('shows the unique IPs of a selection under a title, asks them, and closes on Escape', () => {
    const lens = fakeLens();
    const surface = fakeSurface();
    const card = start(lens, surface);
    card.showForSelection('from 185.220.101.1 to 10.0.0.1 and 185.220.101.1 again');
    expect(card.open).toBe(true);
    expect(lens.asked).toEqual([['185.220.101.1', '10.0.0.1']]);
    expect(last(surface.views).title).toBe('IP addresses in the selection');
    expect(last(surface.views).entries.map((e) => e.ip)).toEqual(['185.220.101.1', '10.0.0.1']);
    expect(last(surface.placed).kind).toBe('selection');
    document.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape' }));
    expect(card.open).toBe(false);
    expect(surface.detached.map((m) => m.kind)).toEqual(['selection']);
  });

  it('keeps the selection card on a click inside it, closes it on a click elsewhere', () => {
    const surface = fakeSurface();
    const card = start(fakeLens(), surface);
    card.showForSelection('8.8.8.8');
    expect(card.isOwnUi(surface.own)).toBe(true);
    expect(card.isOwnUi(document.body)).toBe(false);
    document.body.append(surface.own);
    surface.own.dispatchEvent(new PointerEvent('pointerdown', { bubbles: true }));
    expect(card.open).toBe(true);
    document.body.dispatchEvent(new PointerEvent('pointerdown', { bubbles: true }));
    expect(card.open).toBe(false);
    surface.own.remove();
  });

  it('puts a detailed answer into the page, and reports a failed one next to a good answer', async () => {
    const lens = fakeLens(new Map([['8.8.8.8', found]]));
    const surface = fakeSurface();
    const detailed = { ...found, data: { ...found.data, ipInfo: { asn: 'AS15169' } } };
    const lookup = vi
      .fn<(ip: string) => Promise<Reply<LookupResult>>>()
      .mockResolvedValueOnce({ ok: true, value: detailed })
      .mockResolvedValueOnce({ ok: true, value: { ip: '8.8.8.8', status: 'skipped', reason: 'quota-exhausted' } });
    const card = start(lens, surface, lookup);
    card.showForSelection('8.8.8.8');
    const asking = last(surface.views);
    asking.onDetails('8.8.8.8');
    expect(last(surface.views).entries[0]!.details).toEqual({ state: 'loading' });
    expect(last(surface.views).entries[0]!.more).toBe(false);
    await vi.waitFor(() => expect(lens.put).toEqual([detailed]));
    expect(last(surface.views).entries[0]!.details).toEqual({ state: 'idle' });
    // Asked for: the network details show at once, not behind "More".
    expect(last(surface.views).entries[0]!.more).toBe(true);
    last(surface.views).onDetails('8.8.8.8');
    await vi.waitFor(() => expect(last(surface.views).entries[0]!.details.state).toBe('error'));
    expect(lens.put).toHaveLength(1);
  });

  it('shows the background refusal of Details in its own words (what to do instead)', async () => {
    const surface = fakeSurface();
    const message = 'Details are only looked up from the tab in front: click the card again in this tab.';
    const card = start(fakeLens(), surface, async () => ({ ok: false, error: { kind: 'forbidden', message } }));
    card.showForSelection('8.8.8.8');
    last(surface.views).onDetails('8.8.8.8');
    await vi.waitFor(() => expect(last(surface.views).entries[0]!.details).toEqual({ state: 'error', message: `Request refused: ${message}` }));
  });

  it('offers the /24 (/120) of each IP as a subnet check opened in the extension, and shows a refusal', async () => {
    const surface = fakeSurface();
    const openSubnetCheck = vi
      .fn<(cidr: string) => Promise<Reply<{ opened: true }>>>()
      .mockResolvedValueOnce({ ok: true, value: { opened: true } })
      .mockResolvedValueOnce({ ok: false, error: { kind: 'rate-limited', message: 'Too many subnet checks opened from this tab.' } });
    const abort = new AbortController();
    aborts.push(abort);
    const card = createCardStore({ lens: fakeLens(), findIps, lookupDetailed: vi.fn(), openSubnetCheck, signal: abort.signal }, surface);
    card.showForSelection('185.220.101.7 and 2001:db8::42');
    expect(last(surface.views).entries.map((e) => e.block)).toEqual(['185.220.101.0/24', '2001:db8::/120']);
    last(surface.views).onCheckBlock('185.220.101.7');
    await vi.waitFor(() => expect(openSubnetCheck).toHaveBeenCalledWith('185.220.101.0/24'));
    expect(last(surface.views).entries[0]!.blockError).toBeNull();
    last(surface.views).onCheckBlock('2001:db8::42');
    await vi.waitFor(() => expect(last(surface.views).entries[1]!.blockError).toMatch(/^Too many requests/));
    // Without the means to open it (no sender given), nothing is offered.
    const plainSurface = fakeSurface();
    start(fakeLens(), plainSurface).showForSelection('185.220.101.7');
    expect(last(plainSurface.views).entries[0]!.block).toBeNull();
  });

  it('drops a detailed answer asked of the previous API server', async () => {
    const lens = fakeLens();
    const surface = fakeSurface();
    let answer: (r: Reply<LookupResult>) => void = () => {};
    const card = start(lens, surface, () => new Promise((resolve) => (answer = resolve)));
    card.showForSelection('8.8.8.8');
    last(surface.views).onDetails('8.8.8.8');
    lens.generation = 1;
    answer({ ok: true, value: found });
    await vi.waitFor(() => expect(last(surface.views).entries[0]!.details).toEqual({ state: 'idle' }));
    expect(lens.put).toEqual([]);
  });

  it('marks an IP copied for a moment, and not at all when the copy failed', async () => {
    vi.useFakeTimers();
    const surface = fakeSurface();
    const card = start(fakeLens(), surface);
    card.showForSelection('8.8.8.8');
    last(surface.views).onCopy('8.8.8.8');
    await vi.advanceTimersByTimeAsync(0);
    expect(last(surface.views).entries[0]!.copied).toBe(true);
    await vi.advanceTimersByTimeAsync(1500);
    expect(last(surface.views).entries[0]!.copied).toBe(false);

    const failing = fakeSurface(false);
    const other = start(fakeLens(), failing);
    other.showForSelection('8.8.8.8');
    const painted = failing.views.length;
    last(failing.views).onCopy('8.8.8.8');
    await vi.advanceTimersByTimeAsync(0);
    expect(failing.views.length).toBe(painted);
  });

  it('copies the STIX bundle the background built, and says why when it cannot', async () => {
    const surface = fakeSurface();
    const copied: string[] = [];
    surface.copy = async (text) => (copied.push(text), true);
    const abort = new AbortController();
    aborts.push(abort);
    const copyStix = vi.fn(async (ip: string): Promise<Reply<{ text: string; indicators: number }>> =>
      ip === '8.8.8.8' ? { ok: true, value: { text: '{"type":"bundle"}', indicators: 0 } } : { ok: false, error: { kind: 'internal', message: 'This page did not ask about that IP.' } },
    );
    const card = createCardStore({ lens: fakeLens(), findIps, lookupDetailed: vi.fn(), copyStix, signal: abort.signal }, surface);
    card.showForSelection('8.8.8.8 and 1.1.1.1');
    last(surface.views).onCopyStix!('8.8.8.8');
    await vi.waitFor(() => expect(copied).toEqual(['{"type":"bundle"}']));
    expect(last(surface.views).entries[0]).toMatchObject({ ip: '8.8.8.8', copiedStix: true, stixError: null });
    last(surface.views).onCopyStix!('1.1.1.1');
    await vi.waitFor(() => expect(last(surface.views).entries[1]!.stixError).toBe('Could not copy as STIX: This page did not ask about that IP.'));
    expect(copied).toHaveLength(1);
  });

  it('offers no "Copy as STIX" without the background\'s builder', () => {
    const surface = fakeSurface();
    start(fakeLens(), surface).showForSelection('8.8.8.8');
    expect(last(surface.views).onCopyStix).toBeUndefined();
  });

  it('closes when stopped', () => {
    const surface = fakeSurface();
    const abort = new AbortController();
    const card = createCardStore({ lens: fakeLens(), findIps, lookupDetailed: vi.fn(), signal: abort.signal }, surface);
    card.showForSelection('8.8.8.8');
    abort.abort();
    expect(card.open).toBe(false);
    expect(surface.detached).toHaveLength(1);
  });
});

describe('detailsFailure', () => {

  it('keeps a good answer when the detailed lookup could not be made', () => {
    expect(detailsFailure({ ip: '8.8.8.8', status: 'skipped', reason: 'quota-exhausted' }, found)).toMatch(/^No details: The API usage limit/);
    expect(detailsFailure({ ip: '8.8.8.8', status: 'error', error: { kind: 'rate-limited', message: '429' } }, found)).toMatch(/^Too many requests/);
    expect(detailsFailure({ ...found, data: { ...found.data, ipInfo: { asn: 'AS15169' } } }, found)).toBeNull();
    // Nothing good to keep: the answer is shown as it is.
    expect(detailsFailure({ ip: '8.8.8.8', status: 'not-found', fetchedAt: 2 }, undefined)).toBeNull();
  });
});

/**
 * A page laid out by hand: happy-dom has no layout, so each text's box is given, and what the
 * page draws at a point is the text's parent.
 */
function laidOutPage(boxes: { ip: string; x: number; y: number }[]) {
  const occs: Occurrence[] = [];
  const rectOf = new Map<Node, DOMRect>();
  vi.spyOn(document.documentElement, 'clientWidth', 'get').mockReturnValue(1280);
  vi.spyOn(document.documentElement, 'clientHeight', 'get').mockReturnValue(800);
  for (const b of boxes) {
    const span = document.createElement('span');
    span.textContent = b.ip;
    document.body.append(span);
    const node = span.firstChild as Text;
    occs.push({ node, ip: b.ip, version: 4, start: 0, end: b.ip.length, parent: span, range: {} as AbstractRange });
    rectOf.set(node, new DOMRect(b.x, b.y, 90, 16));
  }
  vi.spyOn(Range.prototype, 'getClientRects').mockImplementation(function (this: Range) {
    const r = rectOf.get(this.startContainer);
    return (r ? [r] : []) as unknown as DOMRectList;
  });
  vi.spyOn(Range.prototype, 'getBoundingClientRect').mockImplementation(function (this: Range) {
    return rectOf.get(this.startContainer) ?? new DOMRect();
  });
  document.elementFromPoint = (x: number, y: number) => {
    for (const [node, r] of rectOf) if (x >= r.left && x <= r.right && y >= r.top && y <= r.bottom) return node.parentElement;
    return document.body;
  };
  const store = { nodes: () => occs.map((o) => o.node), occurrencesOfNode: (n: Text) => occs.filter((o) => o.node === n) };
  return { occs, store };
}

describe('card store from the keyboard', () => {
  const aborts: AbortController[] = [];
  afterEach(() => {
    aborts.splice(0).forEach((a) => a.abort());
    vi.restoreAllMocks();
    vi.useRealTimers();
    document.body.replaceChildren();
  });
  function start(lens: CardLens, surface: CardSurface, extra: Partial<CardStoreDeps> = {}) {
    const abort = new AbortController();
    aborts.push(abort);
    return createCardStore({ lens, findIps, lookupDetailed: vi.fn(), signal: abort.signal, ...extra }, surface);
  }
  const hoverIp = (mode: CardMode | undefined) => (mode?.kind === 'hover' ? mode.occ.ip : mode?.kind);

  it('walks the marks on screen in reading order, each card with the focus in, and wraps', () => {
    const { store } = laidOutPage([
      { ip: '2.2.2.2', x: 400, y: 100 },
      { ip: '1.1.1.1', x: 100, y: 101 },
      { ip: '3.3.3.3', x: 100, y: 130 },
      { ip: '9.9.9.9', x: 100, y: 5000 }, // far below the viewport
    ]);
    const lens = { ...fakeLens(), store };
    const surface = fakeSurface();
    const card = start(lens, surface);
    const opened: unknown[] = [];
    for (let i = 0; i < 4; i++) {
      card.keyboard();
      opened.push(hoverIp(last(surface.placed)));
      expect(surface.focused).toBe(true);
    }
    expect(opened).toEqual(['1.1.1.1', '2.2.2.2', '3.3.3.3', '1.1.1.1']);
    expect(lens.asked).toEqual([['1.1.1.1'], ['2.2.2.2'], ['3.3.3.3'], ['1.1.1.1']]);
    document.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape' }));
    expect(card.open).toBe(false);
    expect(surface.focused).toBe(false);
  });

  it('gives the card the marks on the lines around it to keep clear of', () => {
    const { store } = laidOutPage([
      { ip: '1.1.1.1', x: 100, y: 100 },
      { ip: '2.2.2.2', x: 100, y: 130 },
      { ip: '3.3.3.3', x: 100, y: 160 },
      { ip: '4.4.4.4', x: 100, y: 190 },
    ]);
    const neighbours: unknown[] = [];
    const surface = { ...fakeSurface(), place: (_m: CardMode, _l: () => void, n?: readonly unknown[]) => void neighbours.push(n) };
    const card = start({ ...fakeLens(), store }, surface);
    card.keyboard();
    card.keyboard();
    expect(neighbours[1]).toEqual([
      { x: 100, y: 100, width: 90, height: 16 },
      { x: 100, y: 160, width: 90, height: 16 },
    ]);
  });

  it('says so in a card with the focus when no mark is on screen', () => {
    const surface = fakeSurface();
    const card = start(fakeLens(), surface);
    card.keyboard();
    expect(card.open).toBe(true);
    expect(last(surface.views).entries).toEqual([]);
    expect(last(surface.views).emptyText).toMatch(/No marked IP address on screen/);
    expect(surface.focused).toBe(true);
  });

  it('takes the focus into a card the pointer opened, which then stays when the pointer leaves', async () => {
    vi.useFakeTimers();
    const { occs, store } = laidOutPage([
      { ip: '1.1.1.1', x: 100, y: 100 },
      { ip: '2.2.2.2', x: 100, y: 130 },
    ]);
    const lens = { ...fakeLens(), store, hitTest: (x: number, y: number) => occs.find((o) => Math.abs(y - 108 - (o.ip === '1.1.1.1' ? 0 : 30)) < 8 && x > 100 && x < 190) };
    const surface = fakeSurface();
    const card = start(lens, surface, { hoverTiming: { restMs: 10, openDelayMs: 20, closeDelayMs: 30 }, initialPointer: { x: 140, y: 138 } });
    await vi.advanceTimersByTimeAsync(50);
    expect(hoverIp(last(surface.placed))).toBe('2.2.2.2');
    expect(surface.focused).toBe(false);
    card.keyboard();
    // Into the same card, not on to the next IP.
    expect(surface.focusIns).toBe(1);
    expect(surface.placed).toHaveLength(1);
    document.dispatchEvent(new PointerEvent('pointermove', { clientX: 600, clientY: 600, pointerType: 'mouse' }));
    await vi.advanceTimersByTimeAsync(100);
    expect(card.open).toBe(true);
    // Resting on another IP does not take the card (and the focus) away either.
    document.dispatchEvent(new PointerEvent('pointermove', { clientX: 140, clientY: 108, pointerType: 'mouse' }));
    await vi.advanceTimersByTimeAsync(100);
    expect(hoverIp(last(surface.placed))).toBe('2.2.2.2');
    // The next press goes on, in reading order, after the card's IP (and wraps).
    card.keyboard();
    expect(hoverIp(last(surface.placed))).toBe('1.1.1.1');
  });

  it('lets a hover card close as the pointer leaves after a click put the focus on one of its buttons', async () => {
    vi.useFakeTimers();
    const { occs, store } = laidOutPage([{ ip: '1.1.1.1', x: 100, y: 100 }]);
    const lens = { ...fakeLens(), store, hitTest: (x: number, y: number) => (x > 100 && x < 190 && y > 100 && y < 116 ? occs[0] : undefined) };
    const surface = fakeSurface();
    const card = start(lens, surface, { hoverTiming: { restMs: 10, openDelayMs: 20, closeDelayMs: 30 }, initialPointer: { x: 140, y: 108 } });
    await vi.advanceTimersByTimeAsync(50);
    expect(card.open).toBe(true);
    surface.focused = true; // a click on "Copy IP"
    document.dispatchEvent(new PointerEvent('pointermove', { clientX: 600, clientY: 600, pointerType: 'mouse' }));
    await vi.advanceTimersByTimeAsync(100);
    expect(card.open).toBe(false);
  });
});
