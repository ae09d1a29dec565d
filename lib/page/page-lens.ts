/**
 * Everything the extension does on one page (one frame), wired together: scan text into the
 * occurrence store, mark each occurrence by its IP's severity, ask for lookups as IPs near the
 * viewport, follow DOM changes and in-app navigation. It has no extension API in it: lookups,
 * settings and the badge come in as functions, so tests and benchmarks run it on any page.
 */
import type { IpClass, IpMatch } from '../ip/types';
import type { LookupResult } from '../lookup/types';
import type { PageIp } from '../messaging';
import { severityOf, type Severity, type SeverityThresholds } from '../severity';
import type { MarkStyle } from './highlight-styles';
import { browserHighlighterEnv, Highlighter, type HighlighterEnv } from './highlighter';
import { caretLookup, hitTest, type CaretLookup } from './hit-test';
import { LookupQueue, type LookupSender } from './lookup-queue';
import { frameScheduler, MutationQueue, type FlushScheduler, type MutationBatch } from './mutation-queue';
import { watchNavigation, type NavigationWatch } from './navigation-watch';
import { emptyChange, OccurrenceStore, type Occurrence, type RangeFactory, type StoreChange } from './occurrence-store';
import { listPageIps, riskyIps, sameList } from './page-summary';
import { Scanner } from './scanner';
import { hasStaticMarkStyles } from './static-styles';
import { isInsideSkipped, type SkipOptions } from './skip-rules';
import { createTimeSlicer, type TimeSlicer } from './time-slicer';
import { createNearTracker, type Nearness, type NearTracker } from './near-tracker';

export interface DisplaySettings {
  thresholds: SeverityThresholds;
  markStyle: MarkStyle;
  /** Ask for private/reserved addresses too (off by default: they are marked "skipped"). */
  sendPrivate: boolean;
}

export interface PageLensDeps extends DisplaySettings {
  doc?: Document;
  win?: Window & typeof globalThis;
  findIps: (text: string) => IpMatch[];
  /** Sees each text node the scanner reads (the CIDR block marks). */
  onText?: (node: Text, data: string) => void;
  classifyIp: (ip: string) => IpClass;
  lookup: LookupSender;
  /** The distinct high and critical IPs (sorted, bounded), sent when they change (throttled). */
  onSummary?: (riskyIps: string[]) => void;
  /** Our own UI (the card host): never scanned. */
  isOwnUi?: (element: Element) => boolean;
  // Injectable for tests and benchmarks.
  highlighterEnv?: HighlighterEnv;
  rangeFactory?: RangeFactory;
  slicer?: TimeSlicer;
  scheduleFlush?: FlushScheduler;
  createTracker?: typeof createNearTracker<Occurrence>;
  caret?: CaretLookup;
  summaryDelayMs?: number;
  /** Whether the page has marks.css (registered sites); detected when not given. */
  staticStyles?: boolean;
}

export class PageLens {
  readonly store: OccurrenceStore;
  private readonly doc: Document;
  private readonly win: Window & typeof globalThis;
  private readonly highlighter: Highlighter;
  private readonly scanner: Scanner;
  private readonly mutations: MutationQueue;
  private readonly tracker: NearTracker<Occurrence>;
  private readonly lookups: LookupQueue;
  private readonly caret: CaretLookup;
  private readonly navigation: NavigationWatch;
  private readonly skip: SkipOptions;
  private readonly shadowRoots = new Set<ShadowRoot>();
  private readonly classes = new Map<string, IpClass>();
  private readonly listeners = new Set<(ips: ReadonlySet<string>) => void>();
  private readonly abort = new AbortController();
  private settings: DisplaySettings;
  private lastSummary: string[] | null = null;
  /** Whether marks.css is in the document; asked when the first mark is shown. */
  private staticUnderline: boolean | undefined;
  private summaryTimer: ReturnType<typeof setTimeout> | undefined;
  private staleCount = 0;

  constructor(private readonly deps: PageLensDeps) {
    this.doc = deps.doc ?? document;
    this.store = new OccurrenceStore(deps.rangeFactory);
    this.win = deps.win ?? (window as Window & typeof globalThis);
    this.settings = { thresholds: deps.thresholds, markStyle: deps.markStyle, sendPrivate: deps.sendPrivate };
    this.skip = deps.isOwnUi ? { isOwnUi: deps.isOwnUi } : {};
    this.highlighter = new Highlighter(deps.highlighterEnv ?? browserHighlighterEnv(this.win), deps.markStyle);
    this.lookups = new LookupQueue({ send: deps.lookup, onResults: (r) => this.applyResults(r) });
    this.tracker = (deps.createTracker ?? createNearTracker)({
      onNear: (occs, nearness) => this.showNear(occs, nearness),
      onFar: (occs) => occs.forEach((occ) => occ.range && this.highlighter.remove(occ.range)),
    });
    this.scanner = new Scanner({
      findIps: deps.findIps,
      ...(deps.onText ? { onText: deps.onText } : {}),
      store: this.store,
      slicer: deps.slicer ?? createTimeSlicer(),
      skip: this.skip,
      onChange: (change) => this.applyChange(change),
      onShadowRoot: (root) => this.addShadowRoot(root),
    });
    this.mutations = new MutationQueue((batch) => this.onMutations(batch), deps.scheduleFlush ?? frameScheduler(this.doc));
    this.caret = deps.caret ?? caretLookup(this.doc, () => [...this.shadowRoots]);
    this.navigation = watchNavigation(this.win, () => this.rescan(), this.abort.signal);
  }

  /** Scans the whole document, then keeps following it. Resolves when the first scan is done. */
  start(): Promise<void> {
    this.mutations.observe(this.doc);
    return this.scanner.enqueue(this.doc.body ?? this.doc.documentElement);
  }

  /** Scans everything again (in-app navigation); unchanged text keeps its marks. */
  rescan(): Promise<void> {
    // The background clears the tab's badge when the URL changes: report again even if equal.
    this.lastSummary = null;
    const change = emptyChange();
    this.store.sweepDisconnected(change);
    this.applyChange(change);
    return this.scanner.enqueue(this.doc.body ?? this.doc.documentElement);
  }

  get scanning(): boolean {
    return this.scanner.busy || this.lookups.pending > 0;
  }

  /** Resolves when scanning is done and every lookup asked so far has its answer. */
  async idle(): Promise<void> {
    do {
      this.mutations.flush();
      await this.scanner.drain();
      await this.lookups.idle();
    } while (this.scanner.busy);
  }

  update(settings: Partial<DisplaySettings>): void {
    const before = this.settings;
    this.settings = { ...before, ...settings };
    if (settings.markStyle && settings.markStyle !== before.markStyle) {
      this.highlighter.setStyle(settings.markStyle);
      if (this.staticUnderline !== undefined) this.adoptDocumentSheetIfNeeded();
    }
    if (settings.thresholds || settings.sendPrivate !== undefined) this.recolour(this.store.ips());
    if (this.settings.sendPrivate && !before.sendPrivate) {
      // Private addresses may now be sent: ask those already shown (the rest as they come near).
      const shown = [...this.store.ips()].filter((ip) =>
        [...this.store.occurrencesOfIp(ip)].some((o) => o.range && this.highlighter.severityOf(o.range) !== undefined),
      );
      this.lookups.request(shown.filter((ip) => this.shouldAsk(ip)), 'visible');
    }
  }

  get thresholds(): SeverityThresholds {
    return this.settings.thresholds;
  }

  severityOfIp(ip: string): Severity {
    const result = this.lookups.resultOf(ip);
    if (result) return severityOf(result, this.settings.thresholds);
    return this.shouldAsk(ip) ? 'pending' : 'skipped';
  }

  resultOf(ip: string): LookupResult | undefined {
    const result = this.lookups.resultOf(ip);
    if (result) return result;
    const cls = this.classOf(ip);
    if (!this.shouldAsk(ip) && cls !== 'public') return { ip, status: 'skipped', reason: cls };
    return undefined;
  }

  /**
   * The background asks another API server now: every answer this page holds is the old one's.
   * Forgets them (the card and the popup's page list follow), puts the marks near the viewport
   * back to pending and asks their IPs again, on-screen first, as when they first came near;
   * the background's rules (automatic lookups, per-page cap) answer them as usual.
   */
  resultsStale(): void {
    this.staleCount++;
    const forgotten = this.lookups.forget();
    this.tracker.replay();
    for (const listener of this.listeners) listener(forgotten);
    this.scheduleSummary();
  }

  /** Changes when the results go stale: an answer to a request made before is the old server's. */
  get resultsGeneration(): number {
    return this.staleCount;
  }

  /** A result obtained outside the page scan (the card's detailed lookup). */
  putResult(result: LookupResult): void {
    this.lookups.put(result);
  }

  /** Asks now for IPs the analyst pointed at (hover before the scroll-based ask). */
  askNow(ips: string[]): void {
    this.lookups.request(ips.filter((ip) => this.shouldAsk(ip)), 'visible');
  }

  hitTest(x: number, y: number): Occurrence | undefined {
    return hitTest(this.store, this.caret, x, y);
  }

  pageIps(): PageIp[] {
    this.mutations.flush();
    return listPageIps(this.summarySource());
  }

  highlightSize(severity: Severity): number {
    return this.highlighter.size(severity);
  }

  /** Called with the IPs whose answer changed (the card refreshes if it shows one of them). */
  onResults(listener: (ips: ReadonlySet<string>) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  dispose(): void {
    this.abort.abort();
    this.scanner.stop();
    this.mutations.disconnect();
    this.tracker.disconnect();
    this.lookups.stop();
    this.highlighter.dispose();
    clearTimeout(this.summaryTimer);
    this.listeners.clear();
  }

  // ----- internals -----

  private summarySource() {
    return {
      ips: () => this.store.ips(),
      countOf: (ip: string) => this.store.countOf(ip),
      versionOf: (ip: string): 4 | 6 => this.store.occurrencesOfIp(ip).values().next().value?.version ?? 4,
      resultOf: (ip: string) => this.resultOf(ip),
      severityOf: (ip: string) => this.severityOfIp(ip),
    };
  }

  private classOf(ip: string): IpClass {
    let cls = this.classes.get(ip);
    if (cls === undefined) {
      cls = this.deps.classifyIp(ip);
      this.classes.set(ip, cls);
    }
    return cls;
  }

  /** Private and reserved addresses are never sent unless the user asked for it. */
  private shouldAsk(ip: string): boolean {
    return this.settings.sendPrivate || this.classOf(ip) === 'public';
  }

  private elementOf(occ: Occurrence): Element | null {
    const parent = occ.node.parentNode;
    if (!parent) return null;
    if (parent.nodeType === Node.ELEMENT_NODE) return parent as Element;
    return (parent as ShadowRoot).host ?? null;
  }

  private applyChange(change: StoreChange): void {
    // Added first: when a node's text is replaced, its element keeps being tracked (and known
    // to be near) instead of being dropped and observed again a frame later.
    const visible: Occurrence[] = [];
    const near: Occurrence[] = [];
    for (const occ of change.added) {
      const el = this.elementOf(occ);
      const nearness = el ? this.tracker.track(el, occ) : null;
      if (nearness === 'visible') visible.push(occ);
      else if (nearness === 'near') near.push(occ);
    }
    for (const occ of change.removed) {
      if (occ.range) this.highlighter.remove(occ.range);
      const el = this.elementOf(occ);
      if (el) this.tracker.untrack(el, occ);
    }
    if (visible.length) this.showNear(visible, 'visible');
    if (near.length) this.showNear(near, 'near');
    this.scheduleSummary();
  }

  /**
   * Text near the viewport gets its mark, and its IPs are asked (on-screen ones first). Marks
   * far away are left out of the highlights: see near-tracker.ts for why.
   */
  private showNear(occs: Occurrence[], nearness: Nearness): void {
    if (this.staticUnderline === undefined) {
      // Asked here, not at start: this runs from observer callbacks, after the page's layout,
      // so reading a computed style cannot force a restyle of a page that is still rendering.
      this.staticUnderline = this.deps.staticStyles ?? hasStaticMarkStyles(this.doc);
      this.adoptDocumentSheetIfNeeded();
    }
    const ask = new Set<string>();
    for (const occ of occs) {
      this.highlighter.set(this.store.rangeOf(occ), this.severityOfIp(occ.ip));
      if (!this.lookups.wasAsked(occ.ip) && this.shouldAsk(occ.ip)) ask.add(occ.ip);
    }
    if (ask.size) this.lookups.request(ask, nearness === 'visible' ? 'visible' : 'background');
  }

  private applyResults(results: LookupResult[]): void {
    this.recolour(results.map((r) => r.ip));
    const ips = new Set(results.map((r) => r.ip));
    for (const listener of this.listeners) listener(ips);
  }

  private recolour(ips: Iterable<string>): void {
    for (const ip of ips) {
      const severity = this.severityOfIp(ip);
      for (const occ of this.store.occurrencesOfIp(ip)) {
        // Only marks near the viewport are in the highlights; the rest take it when they come.
        if (occ.range && this.highlighter.severityOf(occ.range) !== undefined) this.highlighter.set(occ.range, severity);
      }
    }
    this.scheduleSummary();
  }

  /** Document styles do not reach shadow roots, so those always adopt the sheet. */
  private adoptDocumentSheetIfNeeded(): void {
    if (!this.staticUnderline || this.settings.markStyle !== 'underline') this.highlighter.adoptInto(this.doc);
  }

  private addShadowRoot(root: ShadowRoot): void {
    this.shadowRoots.add(root);
    this.highlighter.adoptInto(root);
    this.mutations.observe(root);
  }

  private onMutations(batch: MutationBatch): void {
    this.highlighter.ensureInstalled();
    if (batch.removed) {
      const change = emptyChange();
      this.store.sweepDisconnected(change);
      if (change.removed.length) this.applyChange(change);
      this.highlighter.forgetDetachedRoots();
      for (const root of this.shadowRoots) if (!root.host.isConnected) this.shadowRoots.delete(root);
    }
    for (const node of batch.touched) {
      if (isInsideSkipped(node, this.skip)) continue;
      void this.scanner.enqueue(node);
    }
    this.navigation.check();
  }

  private scheduleSummary(): void {
    const send = this.deps.onSummary;
    if (!send || this.summaryTimer !== undefined) return;
    this.summaryTimer = setTimeout(() => {
      this.summaryTimer = undefined;
      const risky = riskyIps(this.summarySource());
      if (sameList(this.lastSummary, risky)) return;
      this.lastSummary = risky;
      send(risky);
    }, this.deps.summaryDelayMs ?? 400);
  }
}
