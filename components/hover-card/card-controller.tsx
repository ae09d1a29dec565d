/**
 * Runs the hover card on a page: hover intent over marked IPs, the card's state (result,
 * detailed lookup, copy feedback), Escape and outside clicks, and the selection card the
 * context menu asks for. It knows the page only through a `CardLens` and talks to the
 * extension only through the functions it is given.
 */
import { render } from 'preact';
import type { IpMatch } from '@/lib/ip/types';
import type { LookupResult } from '@/lib/lookup/types';
import type { Reply, ReplyError } from '@/lib/protocol';
import { createHoverIntent, type HoverTarget } from '@/lib/page/hover-intent';
import { liveRange } from '@/lib/page/hit-test';
import type { Occurrence } from '@/lib/page/occurrence-store';
import type { SeverityThresholds } from '@/lib/severity';
import { describeSkip } from '@/lib/format';
import { describeError } from '@/lib/ui/shared/error-messages';
import detailsCss from '@/components/reputation-details.css?inline';
import type { DetailsState } from './card-actions';
import { createCardHost, type CardHost } from './card-host';
import { followAnchor, rangeAnchor } from './card-position';
import { copyText } from './copy-text';
import { HoverCard, type CardEntry } from './hover-card';

export interface CardLens {
  hitTest(x: number, y: number): Occurrence | undefined;
  resultOf(ip: string): LookupResult | undefined;
  onResults(listener: (ips: ReadonlySet<string>) => void): () => void;
  putResult(result: LookupResult): void;
  askNow(ips: string[]): void;
  readonly thresholds: SeverityThresholds;
  /** Changes when the page's results go stale (see PageLens.resultsStale). */
  readonly resultsGeneration: number;
}

export interface CardControllerDeps {
  doc?: Document;
  lens: CardLens;
  findIps: (text: string) => IpMatch[];
  /** `cs:lookup-detailed`: one IP with ipInfo. */
  lookupDetailed: (ip: string) => Promise<Reply<LookupResult>>;
  signal: AbortSignal;
  hoverTiming?: { restMs?: number; openDelayMs?: number; closeDelayMs?: number };
  /** Where the pointer rests as the controller starts (see createLazyCard). */
  initialPointer?: { x: number; y: number };
}

type Mode =
  | { kind: 'hover'; occ: Occurrence; point: { x: number; y: number } }
  | { kind: 'selection'; ips: string[]; range: Range | null };

export interface CardController {
  /** The context menu's "Look up IP reputation" on selected text. */
  showForSelection(text: string): void;
  /** For the scanner: our host is never scanned. */
  isOwnUi(element: Element): boolean;
  close(): void;
  readonly open: boolean;
}

export function createCardController(deps: CardControllerDeps): CardController {
  const doc = deps.doc ?? document;
  const { lens, signal } = deps;
  let host: CardHost | null = null;
  let card: HTMLElement | null = null;
  let mode: Mode | null = null;
  let stopFollowing: (() => void) | null = null;
  let focusBefore: Element | null = null;
  const details = new Map<string, DetailsState>();
  const copied = new Set<string>();

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

  const intent = createHoverIntent<Occurrence>({
    target: doc,
    hitTest: (x, y): HoverTarget<Occurrence> | undefined => {
      const occ = lens.hitTest(x, y);
      const range = occ && liveRange(occ);
      return occ && range ? { item: occ, rects: [...range.getClientRects()] } : undefined;
    },
    same: (a, b) => a.node === b.node && a.start === b.start && a.ip === b.ip,
    onEnter: (t) => {
      if (mode?.kind === 'selection') return;
      lens.askNow([t.item.ip]);
      openMode({ kind: 'hover', occ: t.item, point: centre(t.rects) });
    },
    onLeave: () => {
      if (mode?.kind === 'hover') closeCard();
    },
    isOverCard: (e) => !!host && host.isHost(e.target),
    signal,
    ...deps.hoverTiming,
    ...(deps.initialPointer ? { initialPointer: deps.initialPointer } : {}),
  });

  function entries(): CardEntry[] {
    const ips = mode?.kind === 'hover' ? [mode.occ.ip] : (mode?.ips ?? []);
    return ips.map((ip) => ({
      ip,
      result: lens.resultOf(ip),
      details: details.get(ip) ?? { state: 'idle' },
      copied: copied.has(ip),
    }));
  }

  function paint(): void {
    if (!mode || !card) return;
    render(
      <HoverCard
        entries={entries()}
        {...(mode.kind === 'selection' ? { title: 'IP addresses in the selection' } : {})}
        thresholds={lens.thresholds}
        onDetails={(ip) => void askDetails(ip)}
        onCopy={(ip) => void copy(ip)}
        onClose={() => close()}
      />,
      card,
    );
  }

  function openMode(next: Mode): void {
    stopFollowing?.();
    stopFollowing = null;
    const { host: h, card: c } = ensureHost();
    mode = next;
    details.clear();
    copied.clear();
    h.attach();
    paint();
    if (c.hasAttribute('popover') && !isPopoverOpen(c)) c.showPopover();
    const anchor = anchorOf(next);
    if (anchor) {
      const lost =
        next.kind === 'hover'
          ? { isAlive: () => next.occ.node.isConnected, onLost: () => queueMicrotask(() => mode === next && close()) }
          : undefined;
      stopFollowing = followAnchor(anchor, c, lost);
    } else {
      // Nothing to point at (selection gone): top right, inside the viewport.
      c.style.left = `${Math.max(8, doc.documentElement.clientWidth - 400)}px`;
      c.style.top = '8px';
    }
    if (next.kind === 'selection') {
      focusBefore = doc.activeElement;
      c.focus({ preventScroll: true });
    }
  }

  function anchorOf(m: Mode) {
    if (m.kind === 'hover') {
      const range = liveRange(m.occ);
      return range ? rangeAnchor(range, m.point) : null;
    }
    return m.range ? rangeAnchor(m.range) : null;
  }

  function closeCard(): void {
    if (!mode) return;
    const wasSelection = mode.kind === 'selection';
    mode = null;
    stopFollowing?.();
    stopFollowing = null;
    if (card) {
      if (card.hasAttribute('popover') && isPopoverOpen(card)) card.hidePopover();
      render(null, card);
    }
    host?.detach();
    if (wasSelection && focusBefore instanceof HTMLElement && focusBefore.isConnected) {
      focusBefore.focus({ preventScroll: true });
    }
    focusBefore = null;
  }

  function close(): void {
    if (mode?.kind === 'hover') intent.dismiss();
    closeCard();
  }

  async function askDetails(ip: string): Promise<void> {
    details.set(ip, { state: 'loading' });
    paint();
    const generation = lens.resultsGeneration;
    const reply = await deps.lookupDetailed(ip);
    if (lens.resultsGeneration !== generation) {
      // Asked of the previous API server: its answer must not come back as the new one's.
      details.set(ip, { state: 'idle' });
      paint();
      return;
    }
    const failure = reply.ok ? detailsFailure(reply.value, lens.resultOf(ip)) : describeReplyError(reply.error);
    if (failure) {
      details.set(ip, { state: 'error', message: failure });
    } else if (reply.ok) {
      details.set(ip, { state: 'idle' });
      lens.putResult(reply.value);
    }
    paint();
  }

  async function copy(ip: string): Promise<void> {
    if (!host) return;
    const ok = await copyText(ip, host.shadow);
    if (!ok) return;
    copied.add(ip);
    paint();
    setTimeout(() => {
      copied.delete(ip);
      paint();
    }, 1500);
  }

  const unsubscribe = lens.onResults((ips) => {
    if (entries().some((e) => ips.has(e.ip))) paint();
  });

  const listen = { capture: true, signal };
  doc.addEventListener(
    'keydown',
    (e) => {
      // Close only; the page still sees its Escape (its own dialogs may want it too).
      if (mode && e.key === 'Escape') close();
    },
    listen,
  );
  doc.addEventListener(
    'pointerdown',
    (e) => {
      if (mode?.kind === 'selection' && !(host && host.isHost(e.target))) close();
    },
    listen,
  );
  signal.addEventListener('abort', () => {
    unsubscribe();
    closeCard();
  });

  return {
    showForSelection(text) {
      const ips = [...new Set(deps.findIps(text).map((m) => m.ip))];
      const sel = doc.getSelection();
      const range = sel && sel.rangeCount > 0 && !sel.getRangeAt(0).collapsed ? sel.getRangeAt(0).cloneRange() : null;
      intent.dismiss();
      openMode({ kind: 'selection', ips, range });
      lens.askNow(ips);
    },
    isOwnUi: (element) => !!host && host.isHost(element),
    close,
    get open() {
      return mode !== null;
    },
  };
}

function describeReplyError(error: ReplyError): string {
  const d = describeError(error);
  return `${d.title}: ${d.message}`;
}

/**
 * A detailed lookup that did not find the IP must not replace a good answer the card already
 * shows (the mark would turn grey because the quota reserve was reached, say): it is reported
 * next to the button instead. With nothing to replace, the answer is simply shown.
 */
export function detailsFailure(answer: LookupResult, current: LookupResult | undefined): string | null {
  if (answer.status === 'found' || !current || current.status !== 'found') return null;
  if (answer.status === 'error') return describeReplyError(answer.error);
  if (answer.status === 'skipped') return `No details: ${describeSkip(answer.reason)}`;
  return 'No details: the address is no longer in the threat database.';
}

function isPopoverOpen(el: HTMLElement): boolean {
  try {
    return el.matches(':popover-open');
  } catch {
    return false;
  }
}

function centre(rects: DOMRectReadOnly[]): { x: number; y: number } {
  const r = rects[0];
  return r ? { x: r.left + r.width / 2, y: r.top + r.height / 2 } : { x: 0, y: 0 };
}
