/**
 * Everything the extension does on one page (one frame), wired together: scan text into the
 * occurrence store, mark each occurrence by its IP's severity, ask for lookups as IPs near the
 * viewport, follow DOM changes and in-app navigation. It has no extension API in it: lookups,
 * settings and the badge come in as functions, so tests and benchmarks run it on any page.
 */
import type { IpClass, IpMatch } from '../ip/types';
import type { LookupResult } from '../lookup/types';
import type { DisplaySettings, PageIp } from '../protocol';
import type { Severity, SeverityThresholds } from '../severity';
import { browserHighlighterEnv, Highlighter, type HighlighterEnv } from './marks/highlighter';
import { caretLookup, hitTest, type CaretLookup } from './card/hit-test';
import { isRetriable, type LookupSender } from './lookups/lookup-queue';
import { pageAnswers, type PageAnswers } from './lookups/page-answers';
import { frameScheduler, MutationQueue, type FlushScheduler, type MutationBatch } from './changes/mutation-queue';
import { routeTouched } from './changes/mutation-router';
import { watchNavigation, type NavigationWatch } from './changes/navigation-watch';
import { changeSize, emptyChange, OccurrenceStore, type Occurrence, type RangeFactory } from './occurrences/occurrence-store';
import { quietTimer, type QuietTimer } from './changes/quiet-timer';
import { farEviction, type FarEviction } from './nearness/far-eviction';
import { cachedFinder } from './scanning/match-cache';
import { listPageIps, riskyIps, riskyReporter, type RiskyReporter } from './lookups/page-summary';
import { DEFAULT_PAGE_LIMITS, type LimitReached, type PageLimits } from './scanning/page-limits';
import { Scanner } from './scanning/scanner';
import { markDispatch, type MarkDispatch } from './marks/mark-dispatch';
import { couldHoldIp, isInsideSkipped, type SkipOptions } from './scanning/skip-rules';
import { createTimeSlicer, frameWatch, type TimeSlicer } from './scanning/time-slicer';
import { createNearTracker, listItemOf, type NearTracker } from './nearness/near-tracker';
import { sampleViewport } from './nearness/viewport-sample';
import { screenSampler, type ScreenSampler } from './nearness/screen-sampler';

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
  limits?: Partial<PageLimits>;
  /** The rows on screen now (scanned first; past the limits, only these). */
  sampleViewport?: () => Element[];
  /** Runs a task after the frame is painted (the mutation queue's big frames); tests inject. */
  afterPaint?: (task: () => void) => void;
  /** Resolves after the page's next frame (or none comes: see frameWatch); tests inject. */
  nextFrame?: () => Promise<void>;
}

/**
 * How long the page must go without removing nodes before the per-row and per-IP maps are
 * resized and the IPs that left it are forgotten: during a storm the maps are in
 * use, and resizing them on every removal would copy them every frame.
 */
const QUIET_MS = 3_000;


export class PageLens {
  readonly store: OccurrenceStore;
  private readonly doc: Document;
  private readonly win: Window & typeof globalThis;
  private readonly highlighter: Highlighter;
  /** What the marks do as the store, the nearness of its text and the answers change. */
  private readonly marks: MarkDispatch;
  private readonly scanner: Scanner;
  private readonly mutations: MutationQueue;
  private readonly tracker: NearTracker<Occurrence>;
  private readonly answers: PageAnswers;
  private readonly caret: CaretLookup;
  private readonly navigation: NavigationWatch;
  private readonly skip: SkipOptions;
  private readonly shadowRoots = new Set<ShadowRoot>();
  private readonly listeners = new Set<(ips: ReadonlySet<string>) => void>();
  private readonly abort = new AbortController();
  private settings: DisplaySettings;
  /** The badge's report of the page's high and critical IPs. */
  private readonly summary: RiskyReporter;
  private staleCount = 0;
  private readonly limits: PageLimits;
  private limitReached: LimitReached | null = null;
  private readonly eviction: FarEviction;
  /** The popup asked for the page's list: the rows held unread are being read (pageIps). */
  private readingRows = false;
  private readonly scheduleFrame: FlushScheduler;
  private readonly afterPaint: (task: () => void) => void;
  /** The rows on screen at the last viewport sample (start, scroll, resize, page limit). */
  private readonly screen: ScreenSampler;
  /** Resizes the per-row and per-IP maps once the page has stopped removing nodes. */
  private readonly quiet: QuietTimer;
  /** Whether start()'s scan has begun (it waits for the page's next frame). */
  private scanStarted = false;

  constructor(private readonly deps: PageLensDeps) {
    this.doc = deps.doc ?? document;
    this.store = new OccurrenceStore(deps.rangeFactory);
    this.win = deps.win ?? (window as Window & typeof globalThis);
    this.settings = { thresholds: deps.thresholds, markStyle: deps.markStyle, sendPrivate: deps.sendPrivate };
    this.skip = deps.isOwnUi ? { isOwnUi: deps.isOwnUi } : {};
    this.limits = { ...DEFAULT_PAGE_LIMITS, ...deps.limits };
    this.highlighter = new Highlighter(deps.highlighterEnv ?? browserHighlighterEnv(this.win), deps.markStyle);
    this.answers = pageAnswers(deps.classifyIp, () => this.settings, { send: deps.lookup, onResults: (r) => this.marks.applyResults(r) });
    this.quiet = quietTimer(QUIET_MS, () => this.compact());
    this.tracker = (deps.createTracker ?? createNearTracker)({
      onNear: (occs, nearness) => this.marks.showNear(occs, nearness),
      onFar: (occs) => this.marks.hideFar(occs),
      // Rows read far (no occurrences) came near: read again fully, as urgent.
      onRowsNear: (rows) => this.scanRows(rows),
      scrolledAway: (row) => this.screen.scrolledAway(row),
    });
    this.scanner = new Scanner({
      // Re-rendered text (a live tail, a recycled grid row) costs no new finding work.
      findIps: cachedFinder(deps.findIps),
      ...(deps.onText ? { onText: deps.onText } : {}),
      store: this.store,
      farRowOf: (parent) => this.tracker.farRowOf(parent),
      mayHoldRow: (row) => !this.readingRows && this.tracker.farRowOf(row) === row,
      slicer: deps.slicer ?? createTimeSlicer(),
      skip: this.skip,
      onChange: (change) => this.marks.applyChange(change),
      onShadowRoot: (root) => this.addShadowRoot(root),
      onLimit: (limit) => this.onLimit(limit),
      limits: this.limits,
    });
    this.scheduleFrame = deps.scheduleFlush ?? frameScheduler(this.doc);
    this.afterPaint = deps.afterPaint ?? ((task) => setTimeout(task, 0));
    this.mutations = new MutationQueue((batch) => this.onMutations(batch), this.scheduleFrame, {
      onBigFrame: () => this.rescanScreen(),
      afterPaint: this.afterPaint,
      // A live tail is observed by the rows around these (its window): the last sample's, and
      // what the observers report on screen now (new events pushed the sampled rows down).
      screenRows: () => [...this.screen.rows, ...this.tracker.visibleElements()],
      textMatters: (text) => couldHoldIp(text.data) || this.store.hasNode(text),
    });
    this.screen = screenSampler({
      sample: deps.sampleViewport ?? (() => sampleViewport(this.doc, this.win)),
      scheduleFrame: this.scheduleFrame,
      afterPaint: this.afterPaint,
      signal: this.abort.signal,
      onSample: (rows) => {
        this.scanRows(rows);
        this.mutations.moveWindow();
      },
    });
    this.eviction = farEviction(
      this.store,
      (el) => this.tracker.nearnessOf(el),
      deps.slicer ?? createTimeSlicer(),
      (change) => this.marks.applyChange(change),
      this.abort.signal,
      this.limits.maxOccurrences,
    );
    // An IP without an answer is never high or critical: only answered ones still on the page
    // are read. Asking every IP on the page classified them all in the first report's task
    // (2,913 distinct IPs on the 10,000-row page: a 30-40 ms task).
    this.summary = riskyReporter(
      deps.onSummary,
      () => riskyIps({ ips: () => this.answers.queue.answeredIps(), severityOf: (ip) => (this.isOnPage(ip) ? this.answers.answeredSeverityOf(ip) : 'pending') }),
      deps.summaryDelayMs ?? 400,
    );
    // The callbacks above that reach the marks run only once the scan or the observers have begun.
    this.marks = markDispatch(this.store, this.highlighter, this.tracker, this.answers, this.eviction, this.summary, this.listeners, this.doc, deps.staticStyles, deps.markStyle);
    this.caret = deps.caret ?? caretLookup(this.doc, () => [...this.shadowRoots]);
    this.navigation = watchNavigation(this.win, () => this.rescan(), this.abort.signal);
  }

  /**
   * Scans the whole document, then keeps following it. Resolves when the first scan is done.
   * The scan starts after the page's next frame: begun as the script starts (document idle),
   * its viewport sample forced the page's first layout and its first slice and GC ran in the
   * page's first frame, which they made 30-40 ms longer; after that frame
   * the layout is clean and the marks come a frame later, with nothing of the page's in it.
   */
  async start(): Promise<void> {
    this.mutations.observe(this.doc);
    // Rows scrolled to are scanned first, before the rest of the page (and, past the page's
    // limits, they are all that is scanned).
    const signal = this.abort.signal;
    this.screen.follow(this.doc, this.win);
    await (this.deps.nextFrame ?? (() => frameWatch(this.doc)?.next()))();
    this.scanStarted = true;
    if (!signal.aborted) await this.scanPage();
  }

  /** Scans everything again (in-app navigation); unchanged text keeps its marks. */
  rescan(): Promise<void> {
    // The background clears the tab's badge when the URL changes: report again even if equal.
    this.summary.resend();
    const change = emptyChange();
    this.store.sweepDisconnected(change);
    this.marks.applyChange(change);
    return this.scanPage();
  }

  /** The rows on screen first, then the whole page. */
  private scanPage(): Promise<void> {
    this.screen.sampleNow();
    return this.scanner.enqueue(this.doc.body ?? this.doc.documentElement, 'background');
  }

  private scanRows(rows: Iterable<Element>): void {
    void this.scanner.batch(() => {
      for (const element of rows) {
        // A form field or editable region on screen is no row of ours (a walk never skips its root).
        if (!isInsideSkipped(element, this.skip)) void this.scanner.enqueue(element, 'urgent');
      }
    });
  }

  /**
   * A frame brought thousands of mutation records (a live tail's re-render): only the rows on
   * screen are read in it, so a new top row is marked before the frame's layout; the records
   * are read after the paint (mutation-queue.ts). No new sample here: hit tests in an
   * animation frame would force the layout of the page's whole re-render. The last sample
   * can be 250 ms old or more while the analyst scrolls (a busy page delays its timer), so the
   * rows the observers last saw on screen (a frame ago) are read too: rows scrolled onto the
   * screen since the sample would otherwise show their new text unmarked until the frame
   * after the records are read, a long frame later on a live tail.
   */
  private rescanScreen(): void {
    const rows = new Set(this.screen.rows);
    for (const element of this.tracker.visibleElements()) rows.add(listItemOf(element));
    this.scanRows(rows);
  }

  /**
   * Which page limit stopped the whole-page scan ("too many IPs here: marking visible ones
   * only"), or null. The popup shows it.
   */
  get limited(): LimitReached | null {
    return this.limitReached;
  }

  get scanning(): boolean {
    // Also while the first scan waits for its frame: the popup's list is not final yet.
    return !this.scanStarted || this.scanner.busy || this.answers.queue.pending > 0;
  }

  /** Resolves when scanning is done and every lookup asked so far has its answer. */
  async idle(): Promise<void> {
    do {
      this.mutations.flush();
      await this.scanner.drain();
      await this.answers.queue.idle();
    } while (this.scanner.busy);
  }

  update(settings: Partial<DisplaySettings>): void {
    const before = this.settings;
    this.settings = { ...before, ...settings };
    if (settings.markStyle && settings.markStyle !== before.markStyle) this.marks.setStyle(settings.markStyle);
    if (settings.thresholds || settings.sendPrivate !== undefined) this.marks.recolour(this.store.ips());
    if (this.settings.sendPrivate && !before.sendPrivate) {
      // Private addresses may now be sent: ask those already shown (the rest as they come near).
      const shown = [...this.store.ips()].filter((ip) =>
        [...this.store.rangedOccurrencesOfIp(ip)].some((o) => this.highlighter.severityOf(o.range!) !== undefined),
      );
      this.answers.ask(shown, 'visible');
    }
  }

  get thresholds(): SeverityThresholds {
    return this.settings.thresholds;
  }

  severityOfIp(ip: string): Severity {
    return this.answers.severityOf(ip);
  }

  resultOf(ip: string): LookupResult | undefined {
    return this.answers.resultOf(ip);
  }

  /**
   * The background asks another API server now: every answer this page holds is the old one's.
   * Forgets them (the card and the popup's page list follow), puts the marks near the viewport
   * back to pending and asks their IPs again, on-screen first, as when they first came near;
   * the background's rules (automatic lookups, per-page cap) answer them as usual.
   */
  resultsStale(): void {
    this.staleCount++;
    const forgotten = this.answers.queue.forget();
    this.tracker.replay();
    for (const listener of this.listeners) listener(forgotten);
    this.summary.schedule();
  }

  /**
   * Lookups work again after failing: the IPs whose lookup failed (or was skipped for want of
   * a key) are asked again, near ones now and the rest as they come near, through the normal
   * path (the background's automatic-lookup, cap and reserve rules apply). Their marks show
   * "pending" meanwhile; the card and the popup list follow.
   */
  retryFailed(): void {
    const retried = this.answers.queue.forgetWhere(isRetriable);
    if (!retried.size) return;
    this.tracker.replay();
    for (const listener of this.listeners) listener(retried);
    this.summary.schedule();
  }

  /** Changes when the results go stale: an answer to a request made before is the old server's. */
  get resultsGeneration(): number {
    return this.staleCount;
  }

  /** A result obtained outside the page scan (the card's detailed lookup). */
  putResult(result: LookupResult): void {
    this.answers.queue.put(result);
  }

  /** Asks now for IPs the analyst pointed at (hover before the scroll-based ask). */
  askNow(ips: string[]): void {
    this.answers.ask(ips, 'visible');
  }

  hitTest(x: number, y: number): Occurrence | undefined {
    return hitTest(this.store, this.caret, x, y);
  }

  /**
   * The page's IPs for the popup. Rows the page scan held unread (FarText) are read first: the
   * whole page is walked again at background priority, every row read this time (text read
   * before is found in the match cache and keeps its marks; one walk costs less than a walk
   * per row), its first slice in this task (a small page's list is whole at once), the rest
   * in slices: `scanning` says so meanwhile.
   */
  pageIps(): PageIp[] {
    this.mutations.flush();
    if (this.store.unreadRows > 0 && !this.readingRows) {
      this.readingRows = true;
      void this.scanner.enqueue(this.doc.body ?? this.doc.documentElement, 'background').finally(() => {
        this.readingRows = false;
      });
    }
    return listPageIps(this.summarySource());
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
    this.answers.queue.stop();
    this.highlighter.dispose();
    this.summary.stop();
    this.screen.stop();
    this.quiet.stop();
    this.listeners.clear();
  }

  // ----- internals -----

  private summarySource() {
    return {
      ips: () => this.store.ips(),
      countOf: (ip: string) => this.store.countOf(ip),
      // Canonical IPv6 always holds a colon, IPv4 never does.
      versionOf: (ip: string): 4 | 6 => (ip.includes(':') ? 6 : 4),
      resultOf: (ip: string) => this.resultOf(ip),
      severityOf: (ip: string) => this.severityOfIp(ip),
    };
  }

  private readonly isOnPage = (ip: string): boolean => this.store.countOf(ip) > 0;

  /**
   * Once the page has removed nothing for QUIET_MS: the per-row and per-IP maps, sized for the
   * storm's peak, are resized, and what is known of IPs that left the page is trimmed.
   */
  private compact(): void {
    this.answers.compact(this.isOnPage);
    this.store.compact();
    this.tracker.compact();
  }

  /** IPs this page keeps an answer or a class for (tests: bounded on pages that change forever). */
  get rememberedIps(): number {
    return this.answers.remembered;
  }

  private onLimit(limit: LimitReached): void {
    this.limitReached = limit;
    if (limit === 'maxMatchesPerNode') return;
    this.eviction.arm();
    // Only what is on screen is scanned from now on (again each time the page scrolls): the
    // screen may have moved while the whole-page scan ran.
    this.screen.sampleNow();
    this.summary.schedule();
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
      this.store.sweepDisconnected(change, batch.removalsUnseen ? undefined : batch.removedNodes);
      if (changeSize(change)) this.marks.applyChange(change);
      this.tracker.releaseParked();
      this.highlighter.forgetDetachedRoots();
      for (const root of this.shadowRoots) if (!root.host.isConnected) this.shadowRoots.delete(root);
      this.answers.prune(this.isOnPage, this.store.ipCount);
      this.quiet.touch();
    }
    routeTouched(batch, this.tracker, this.screen, this.scanner);
    this.navigation.check();
  }
}
