/**
 * The hover card's state and behaviour, without its markup: hover intent over marked IPs,
 * which IPs the card shows (one hovered, or a selection's), the detailed lookups behind
 * "Details", copy feedback, Escape and outside clicks. It knows the page only through a
 * `CardLens`, the extension only through the functions it is given, and the card on screen
 * only through a `CardSurface` (components/hover-card/card-mount.tsx: Preact, the shadow
 * host, Floating UI). Loaded with the card's lazily injected bundle, not the content script.
 */
import type { IpMatch } from '@/lib/ip/types';
import type { LookupResult } from '@/lib/lookup/types';
import type { Reply, ReplyError } from '@/lib/protocol';
import type { SeverityThresholds } from '@/lib/severity';
import { describeSkipped } from '@/lib/format';
import { describeError } from '@/lib/ui/shared/error-messages';
import { createHoverIntent, type HoverTarget } from './hover-intent';
import { liveRange } from './hit-test';
import type { Occurrence } from './occurrence-store';

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

export interface CardStoreDeps {
  doc?: Document;
  lens: CardLens;
  findIps: (text: string) => IpMatch[];
  /** `cs:lookup-detailed`: one IP with ipInfo. */
  lookupDetailed: (ip: string) => Promise<Reply<LookupResult>>;
  signal: AbortSignal;
  hoverTiming?: { restMs?: number; openDelayMs?: number; closeDelayMs?: number };
  /** Where the pointer rests as the card starts (see createLazyCard). */
  initialPointer?: { x: number; y: number };
}

export type DetailsState = { state: 'idle' } | { state: 'loading' } | { state: 'error'; message: string };

export interface CardEntry {
  ip: string;
  result: LookupResult | undefined;
  details: DetailsState;
  copied: boolean;
}

/** What the card shows, and what its buttons do. */
export interface CardView {
  /** One entry: a hover card; several: the selection card. */
  entries: CardEntry[];
  title?: string;
  thresholds: SeverityThresholds;
  onDetails: (ip: string) => void;
  onCopy: (ip: string) => void;
  onClose: () => void;
}

export type CardMode =
  | { kind: 'hover'; occ: Occurrence; point: { x: number; y: number } }
  | { kind: 'selection'; ips: string[]; range: Range | null };

/** The card on screen, as the store drives it. */
export interface CardSurface {
  /** Puts the (empty) card into the page, ready to paint; stops following any previous anchor. */
  attach(): void;
  /** Draws the card. */
  paint(view: CardView): void;
  /** Shows the painted card next to what `mode` points at (focusing a selection card); `onAnchorLost` when a hovered IP leaves the page. */
  place(mode: CardMode, onAnchorLost: () => void): void;
  /** Takes the card out of the page; `mode` is the one it showed (a selection card gives focus back). */
  detach(mode: CardMode): void;
  /** The card's own host (our UI: never a hover target, never an outside click). */
  contains(target: EventTarget | null): boolean;
  /** Copies to the clipboard; false when it could not. */
  copy(text: string): Promise<boolean>;
}

export interface CardStore {
  /** The context menu's "Look up IP reputation" on selected text. */
  showForSelection(text: string): void;
  /** For the scanner: our host is never scanned. */
  isOwnUi(element: Element): boolean;
  close(): void;
  readonly open: boolean;
}

export function createCardStore(deps: CardStoreDeps, surface: CardSurface): CardStore {
  const doc = deps.doc ?? document;
  const { lens, signal } = deps;
  let mode: CardMode | null = null;
  const details = new Map<string, DetailsState>();
  const copied = new Set<string>();

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
    isOverCard: (e) => surface.contains(e.target),
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
    if (!mode) return;
    surface.paint({
      entries: entries(),
      ...(mode.kind === 'selection' ? { title: 'IP addresses in the selection' } : {}),
      thresholds: lens.thresholds,
      onDetails: (ip) => void askDetails(ip),
      onCopy: (ip) => void copy(ip),
      onClose: () => close(),
    });
  }

  function openMode(next: CardMode): void {
    mode = next;
    details.clear();
    copied.clear();
    surface.attach();
    paint();
    surface.place(next, () => queueMicrotask(() => mode === next && close()));
  }

  function closeCard(): void {
    if (!mode) return;
    const was = mode;
    mode = null;
    surface.detach(was);
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
    const ok = await surface.copy(ip);
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
      if (mode?.kind === 'selection' && !surface.contains(e.target)) close();
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
    isOwnUi: (element) => surface.contains(element),
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
  if (answer.status === 'skipped') return `No details: ${describeSkipped(answer)}`;
  return 'No details: the address is no longer in the threat database.';
}

function centre(rects: DOMRectReadOnly[]): { x: number; y: number } {
  const r = rects[0];
  return r ? { x: r.left + r.width / 2, y: r.top + r.height / 2 } : { x: 0, y: 0 };
}
