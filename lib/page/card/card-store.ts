/**
 * The hover card's state and behaviour, without its markup: hover intent over marked IPs,
 * which IPs the card shows (one hovered, or a selection's), the detailed lookups behind
 * "Details", copy feedback, Escape and outside clicks, and the keyboard shortcut that walks the
 * marks on screen and takes focus into the card. It knows the page only through a
 * `CardLens`, the extension only through the functions it is given, and the card on screen
 * only through a `CardSurface` (components/hover-card/card-mount.tsx: Preact, the shadow
 * host, Floating UI). Loaded with the card's lazily injected bundle, not the content script.
 */
import { API_MAX_BLOCK, blockOf } from '@/lib/ip/cidr-block';
import type { IpMatch } from '@/lib/ip/types';
import type { LookupResult } from '@/lib/lookup/types';
import type { PivotChoice } from '@/lib/pivots';
import { defangIp } from '@/lib/ip/defang';
import type { Reply, ReplyError } from '@/lib/protocol';
import type { SeverityThresholds } from '@/lib/severity';
import { describeSkipped } from '@/lib/format';
import { describeError } from '@/lib/ui/shared/error-messages';
import type { Rect } from './card-placement';
import { createHoverIntent, type HoverTarget } from './hover-intent';
import { liveRange } from './hit-test';
import type { Occurrence } from '../occurrences/occurrence-store';
import { neighbourRects, nextMark, type Placed } from './screen-marks';
import { visibleMarks, type MarkSource } from './visible-marks';

export interface CardLens {
  hitTest(x: number, y: number): Occurrence | undefined;
  resultOf(ip: string): LookupResult | undefined;
  onResults(listener: (ips: ReadonlySet<string>) => void): () => void;
  putResult(result: LookupResult): void;
  askNow(ips: string[]): void;
  readonly thresholds: SeverityThresholds;
  /** Changes when the page's results go stale (see PageLens.resultsStale). */
  readonly resultsGeneration: number;
  /** The occurrences held: where the keyboard finds the marks on screen. */
  readonly store: MarkSource;
}

export interface CardStoreDeps {
  doc?: Document;
  lens: CardLens;
  findIps: (text: string) => IpMatch[];
  /** `cs:lookup-detailed`: one IP with ipInfo. */
  lookupDetailed: (ip: string) => Promise<Reply<LookupResult>>;
  /** `cs:open-subnet-check`: the background opens the popup page, where the analyst confirms the cost. */
  openSubnetCheck?: (cidr: string) => Promise<Reply<{ opened: true }>>;
  /** `cs:get-pivots`: the "Open in …" services, by id and name (asked as each card opens). */
  pivots?: () => Promise<Reply<{ pivots: PivotChoice[] }>>;
  /** `cs:open-pivot`: the background opens the service's page for the IP in a new tab. */
  openPivot?: (ip: string, pivotId: string) => Promise<Reply<{ opened: true }>>;
  /** `cs:copy-stix`: the background builds the IP's STIX 2.1 bundle (the card only copies it). */
  copyStix?: (ip: string) => Promise<Reply<{ text: string; indicators: number }>>;
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
  /** The largest block the API scans that holds the IP (/24, /120), offered as a subnet check. */
  block: string | null;
  /** Why opening the subnet check failed, if it did. */
  blockError: string | null;
  /** "Copy defanged" (`1[.]2[.]3[.]4`) just copied. */
  copiedDefanged: boolean;
  /** "Copy as STIX" just copied. */
  copiedStix: boolean;
  /** Why "Copy as STIX" did not copy, if it did not. */
  stixError: string | null;
  /** "More" is open: the answer's fields beyond the first view (threat level, whitelist, network). */
  more: boolean;
}

/** What the card shows, and what its buttons do. */
export interface CardView {
  /** One entry: a hover card; several: the selection card. */
  entries: CardEntry[];
  title?: string;
  /** What a card without entries says. */
  emptyText?: string;
  thresholds: SeverityThresholds;
  /** "Open in …": the first one is what the O key opens. */
  pivots: PivotChoice[];
  /** Why the last "Open in …" did not open. */
  pivotError: string | null;
  onDetails: (ip: string) => void;
  onCopy: (ip: string) => void;
  /** Opens the subnet check of the entry's block in the extension (nothing is paid from the page). */
  onCheckBlock: (ip: string) => void;
  onCopyDefanged: (ip: string) => void;
  /** Absent: no "Copy as STIX" button. */
  onCopyStix?: (ip: string) => void;
  onPivot: (ip: string, pivotId: string) => void;
  /** Opens or closes the entry's "More". */
  onMore: (ip: string) => void;
  onClose: () => void;
}

export type CardMode =
  | { kind: 'hover'; occ: Occurrence; point: { x: number; y: number } }
  | { kind: 'selection'; ips: string[]; range: Range | null; title?: string; emptyText?: string };

/** The card on screen, as the store drives it. */
export interface CardSurface {
  /** Puts the (empty) card into the page, ready to paint; stops following any previous anchor. */
  attach(): void;
  /** Draws the card. */
  paint(view: CardView): void;
  /**
   * Shows the painted card next to what `mode` points at; `onAnchorLost` when a hovered IP
   * leaves the page. `neighbours`: the marks on the lines around it, which it keeps clear of
   * where it can.
   */
  place(mode: CardMode, onAnchorLost: () => void, neighbours?: readonly Rect[]): void;
  /** Moves the keyboard focus into the card, remembering where it was. */
  focusIn(): void;
  /** Whether the keyboard focus is in the card. */
  hasFocus(): boolean;
  /** Takes the card out of the page, giving focus back where it was if the card took it. */
  detach(mode: CardMode): void;
  /** The card's own host (our UI: never a hover target, never an outside click). */
  contains(target: EventTarget | null): boolean;
  /** Copies to the clipboard; false when it could not. */
  copy(text: string): Promise<boolean>;
}

export interface CardStore {
  /** The context menu's "Look up IP reputation" on selected text. */
  showForSelection(text: string): void;
  /**
   * The keyboard shortcut: into the open card when the focus is elsewhere (a card the pointer
   * opened), else to the next mark on screen in reading order, its card open with the focus.
   */
  keyboard(): void;
  /** For the scanner: our host is never scanned. */
  isOwnUi(element: Element): boolean;
  close(): void;
  readonly open: boolean;
}

export function createCardStore(deps: CardStoreDeps, surface: CardSurface): CardStore {
  const doc = deps.doc ?? document;
  const { lens, signal } = deps;
  let mode: CardMode | null = null;
  /**
   * The keyboard took the card (the shortcut, the selection lookup): while its focus stays in,
   * the card behaves as a dialog, not as a hover. A click on one of its buttons also puts the
   * focus in, and must not make a hover card stay.
   */
  let held = false;
  const keyboardHeld = () => held && surface.hasFocus();
  const details = new Map<string, DetailsState>();
  const copied = new Map<string, 'plain' | 'defanged' | 'stix'>();
  const stixErrors = new Map<string, string>();
  /** The entries whose "More" is open. */
  const moreOpen = new Set<string>();
  let pivots: PivotChoice[] = [];
  let pivotsLoading: Promise<void> | null = null;
  let pivotError: string | null = null;
  const blockErrors = new Map<string, string>();
  const blockOfIp = (ip: string) => {
    if (!deps.openSubnetCheck) return null;
    const block = blockOf(ip, API_MAX_BLOCK[ip.includes(':') ? 6 : 4]);
    return block ? block.cidr : null;
  };

  const intent = createHoverIntent<Occurrence>({
    target: doc,
    hitTest: (x, y): HoverTarget<Occurrence> | undefined => {
      const occ = lens.hitTest(x, y);
      const range = occ && liveRange(occ);
      return occ && range ? { item: occ, rects: [...range.getClientRects()] } : undefined;
    },
    same: sameOccurrence,
    onEnter: (t) => {
      // A card the keyboard is in stays until the analyst leaves it: the pointer resting
      // somewhere must not take it (and the focus) away.
      if (mode?.kind === 'selection' || keyboardHeld()) return;
      held = false;
      lens.askNow([t.item.ip]);
      openMode({ kind: 'hover', occ: t.item, point: centre(t.rects) });
    },
    onLeave: () => {
      if (mode?.kind === 'hover' && !keyboardHeld()) closeCard();
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
      copied: copied.get(ip) === 'plain',
      copiedDefanged: copied.get(ip) === 'defanged',
      copiedStix: copied.get(ip) === 'stix',
      stixError: stixErrors.get(ip) ?? null,
      block: blockOfIp(ip),
      blockError: blockErrors.get(ip) ?? null,
      more: moreOpen.has(ip),
    }));
  }

  function paint(): void {
    if (!mode) return;
    surface.paint({
      entries: entries(),
      ...(mode.kind === 'selection' ? { title: mode.title ?? 'IP addresses in the selection' } : {}),
      ...(mode.kind === 'selection' && mode.emptyText ? { emptyText: mode.emptyText } : {}),
      thresholds: lens.thresholds,
      pivots,
      pivotError,
      onDetails: (ip) => void askDetails(ip),
      onCopy: (ip) => void copy(ip, 'plain'),
      onCopyDefanged: (ip) => void copy(ip, 'defanged'),
      ...(deps.copyStix ? { onCopyStix: (ip: string) => void copyStix(ip) } : {}),
      onPivot: (ip, id) => void openPivot(ip, id),
      onCheckBlock: (ip) => void checkBlock(ip),
      onMore: (ip) => {
        if (!moreOpen.delete(ip)) moreOpen.add(ip);
        paint();
      },
      onClose: () => close(),
    });
  }

  function openMode(next: CardMode, marks?: readonly Placed<Occurrence>[]): void {
    mode = next;
    details.clear();
    copied.clear();
    stixErrors.clear();
    moreOpen.clear();
    blockErrors.clear();
    pivotError = null;
    surface.attach();
    paint();
    loadPivots();
    surface.place(next, () => queueMicrotask(() => mode === next && close()), next.kind === 'hover' ? neighboursOf(next.occ, marks) : undefined);
  }

  function marksOnScreen(uncoveredOnly: boolean): readonly Placed<Occurrence>[] {
    return visibleMarks(lens.store, doc, (el) => surface.contains(el), uncoveredOnly);
  }

  /** The marks on the lines just above and below the occurrence's line, where the card should not go. */
  function neighboursOf(occ: Occurrence, marks = marksOnScreen(false)): Rect[] {
    const box = liveRange(occ)?.getClientRects()[0];
    if (!box) return [];
    const anchor = { x: box.left, y: box.top, width: box.width, height: box.height };
    return neighbourRects(marks, anchor);
  }

  function focusIn(): void {
    surface.focusIn();
    held = true;
  }

  function keyboard(): void {
    if (mode && !keyboardHeld()) {
      focusIn();
      return;
    }
    const marks = marksOnScreen(true);
    const current = mode?.kind === 'hover' ? mode.occ : undefined;
    const box = current && liveRange(current)?.getBoundingClientRect();
    const rect = box ? { x: box.left, y: box.top, width: box.width, height: box.height } : undefined;
    const next = nextMark(marks, current && { item: current, ...(rect ? { rect } : {}) }, sameOccurrence);
    intent.dismiss();
    if (next) {
      const { x, y, width, height } = next.rect;
      lens.askNow([next.item.ip]);
      openMode({ kind: 'hover', occ: next.item, point: { x: x + width / 2, y: y + height / 2 } }, marks);
    } else {
      openMode({ kind: 'selection', ips: [], range: null, title: 'IP reputation', emptyText: 'No marked IP address on screen. Scroll to some, then press the shortcut again.' });
    }
    focusIn();
  }

  function closeCard(): void {
    if (!mode) return;
    const was = mode;
    mode = null;
    held = false;
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
      // The analyst asked for the network details: they show at once, not behind "More".
      moreOpen.add(ip);
      lens.putResult(reply.value);
    }
    paint();
  }

  async function checkBlock(ip: string): Promise<void> {
    const cidr = blockOfIp(ip);
    if (!cidr || !deps.openSubnetCheck) return;
    blockErrors.delete(ip);
    const reply = await deps.openSubnetCheck(cidr);
    if (!reply.ok) blockErrors.set(ip, describeReplyError(reply.error));
    paint();
  }

  /** The bundle comes from the background (the builders and uuid never load in a page). */
  async function copyStix(ip: string): Promise<void> {
    if (!deps.copyStix) return;
    stixErrors.delete(ip);
    const reply = await deps.copyStix(ip);
    if (!reply.ok) {
      stixErrors.set(ip, `Could not copy as STIX: ${reply.error.message}`);
      paint();
      return;
    }
    await copy(ip, 'stix', reply.value.text);
  }

  async function copy(ip: string, form: 'plain' | 'defanged' | 'stix', text?: string): Promise<void> {
    const ok = await surface.copy(text ?? (form === 'plain' ? ip : defangIp(ip)));
    if (!ok) {
      if (form !== 'stix') return;
      stixErrors.set(ip, 'Could not write to the clipboard: click the page, then try again.');
      paint();
      return;
    }
    copied.set(ip, form);
    paint();
    setTimeout(() => {
      if (copied.get(ip) === form) copied.delete(ip);
      paint();
    }, 1500);
  }

  /** Asked at every opening, so a change in the options shows in the next card. */
  function loadPivots(): void {
    if (!deps.pivots) return;
    const loading = deps
      .pivots()
      .then((reply) => {
        // An old answer must not replace a newer one.
        if (pivotsLoading !== loading) return;
        pivots = reply.ok ? reply.value.pivots : [];
        paint();
      })
      .catch(() => undefined);
    pivotsLoading = loading;
  }

  async function openPivot(ip: string, pivotId: string): Promise<void> {
    if (!deps.openPivot) return;
    const reply = await deps.openPivot(ip, pivotId);
    pivotError = reply.ok ? null : `Could not open the link: ${reply.error.message}`;
    paint();
  }

  /** The O key: the first service, for the card's (first) IP, once the services are known. */
  async function openFirstPivot(): Promise<void> {
    const ip = entries()[0]?.ip;
    await pivotsLoading;
    const first = pivots[0];
    if (!mode || !ip) return;
    if (!first) {
      pivotError = 'No "Open in …" service is turned on: add or turn one on in the Options.';
      paint();
      return;
    }
    await openPivot(ip, first.id);
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
      if (mode && isOpenKey(e) && !typingIn(e)) {
        // Ours while a card is open: the page's own O shortcut would act on the same press.
        e.preventDefault();
        e.stopPropagation();
        void openFirstPivot();
      }
    },
    listen,
  );
  doc.addEventListener(
    'pointerdown',
    (e) => {
      // A card the keyboard opened or went into closes like a dialog; one the pointer holds closes as the pointer leaves.
      if ((mode?.kind === 'selection' || keyboardHeld()) && !surface.contains(e.target)) close();
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
      // The analyst asked from the context menu: the keyboard goes to the answer.
      focusIn();
      lens.askNow(ips);
    },
    keyboard,
    isOwnUi: (element) => surface.contains(element),
    close,
    get open() {
      return mode !== null;
    },
  };
}

function sameOccurrence(a: Occurrence, b: Occurrence): boolean {
  return a.node === b.node && a.start === b.start && a.ip === b.ip;
}

function isOpenKey(e: KeyboardEvent): boolean {
  return (e.key === 'o' || e.key === 'O') && !e.ctrlKey && !e.metaKey && !e.altKey && !e.repeat;
}

/** A key typed into the page's own field is the page's, card or not. */
function typingIn(e: KeyboardEvent): boolean {
  const target = e.composedPath()[0] ?? e.target;
  if (!(target instanceof Element)) return false;
  if (target instanceof HTMLElement && target.isContentEditable) return true;
  return ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName);
}

function describeReplyError(error: ReplyError): string {
  const d = describeError(error);
  // A trust rule's refusal says what to do instead (see lib/background/detail-trust.ts).
  if (error.kind === 'forbidden' && error.message) return `${d.title}: ${error.message}`;
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
