/**
 * What the marks do when something changes: occurrences the scanner adds or drops are tracked
 * by where they are, those near the viewport are marked (and their IPs asked, on-screen ones
 * first), and an answer recolours the marks of its IP. PageLens hands each change here; the
 * highlighter (highlighter.ts) holds the marks and paints them.
 */
import type { LookupResult } from '../../lookup/types';
import type { PageAnswers } from '../lookups/page-answers';
import type { RiskyReporter } from '../lookups/page-summary';
import type { FarEviction } from '../nearness/far-eviction';
import type { Nearness, NearTracker } from '../nearness/near-tracker';
import type { FarText, Occurrence, OccurrenceStore, StoreChange } from '../occurrences/occurrence-store';
import { ELEMENT_NODE } from '../scanning/dom-constants';
import type { MarkStyle } from './highlight-styles';
import type { Highlighter } from './highlighter';
import { hasStaticMarkStyles } from './static-styles';

export interface MarkDispatch {
  /** The scanner (or far eviction, or a removal sweep) changed the store. */
  applyChange(change: StoreChange): void;
  /** Text came near the viewport: it gets its mark, and its IPs are asked. */
  showNear(occs: Occurrence[], nearness: Nearness): void;
  /** Text went far: its marks leave the highlights (see near-tracker.ts for why). */
  hideFar(occs: Occurrence[]): void;
  /** The marks of these IPs shown now take their current severity. */
  recolour(ips: Iterable<string>): void;
  /** Answers came: their marks are recoloured and the listeners told. */
  applyResults(results: LookupResult[]): void;
  /** The analyst chose another mark style. */
  setStyle(style: MarkStyle): void;
}

/**
 * Where an occurrence is tracked: its node's parent when it was read, so the element is told
 * when the occurrence leaves even if the node left it first (a cell whose text node a page
 * replaced kept every occurrence it ever showed, and their nodes).
 */
function elementOf(occ: Occurrence): Element | null {
  const parent = occ.parent;
  if (!parent) return null;
  if (parent.nodeType === ELEMENT_NODE) return parent as Element;
  return (parent as ShadowRoot).host ?? null;
}

/**
 * A closure, not a class: its state's names are minified in the content script. Positional
 * parameters for the same reason: a parameter's name is minified where an object's keys are not.
 * `staticStyles` says whether the page has marks.css (detected at the first mark when undefined).
 */
export function markDispatch(
  store: OccurrenceStore,
  highlighter: Highlighter,
  tracker: NearTracker<Occurrence>,
  answers: PageAnswers,
  eviction: Pick<FarEviction, 'check'>,
  summary: Pick<RiskyReporter, 'schedule'>,
  listeners: ReadonlySet<(ips: ReadonlySet<string>) => void>,
  doc: Document,
  staticStyles: boolean | undefined,
  style: MarkStyle,
): MarkDispatch {
  /** Whether marks.css is in the document; asked when the first mark is shown. */
  let staticUnderline: boolean | undefined;

  /** Document styles do not reach shadow roots, so those always adopt the sheet. */
  const adoptDocumentSheetIfNeeded = (): void => {
    if (!staticUnderline || style !== 'underline') highlighter.adoptInto(doc);
  };

  /** One call per row for its far texts: a scan reads a row's texts one after another. */
  const trackFarRows = (added: readonly FarText[]): void => {
    let row: Element | null = null;
    let texts = 0;
    for (const far of added) {
      if (far.row !== row) {
        if (row) tracker.trackRow(row, texts);
        row = far.row;
        texts = 0;
      }
      texts++;
    }
    if (row) tracker.trackRow(row, texts);
  };

  /**
   * Text near the viewport gets its mark, and its IPs are asked (on-screen ones first). Marks
   * far away are left out of the highlights: see near-tracker.ts for why.
   */
  const showNear = (occs: Occurrence[], nearness: Nearness): void => {
    if (staticUnderline === undefined) {
      // Asked here, not at start: this runs from observer callbacks, after the page's layout,
      // so reading a computed style cannot force a restyle of a page that is still rendering.
      staticUnderline = staticStyles ?? hasStaticMarkStyles(doc);
      adoptDocumentSheetIfNeeded();
    }
    const ask = new Set<string>();
    const visible = nearness === 'visible';
    const priority = visible ? 'visible' : 'background';
    for (const occ of occs) {
      // Marks on screen are painted in the frame their text is, not in the next paint batch: a
      // virtualised grid that replaces its cells' text on every scroll step (every ~50 ms) would
      // otherwise show each mark for a frame or two before its text is gone, if at all (bench
      // page, grid: addresses new to the screen marked within 500 ms fell from 100 % to 46-65 %
      // with the 100 ms batching). Only a mark not painted yet sets a paint off: one painted
      // while near costs nothing as it scrolls on screen (paint-throttle.ts says why it must not).
      highlighter.set(store.rangeOf(occ), answers.severityOf(occ.ip), visible);
      if (answers.queue.wouldAsk(occ.ip, priority) && answers.shouldAsk(occ.ip)) ask.add(occ.ip);
    }
    if (ask.size) answers.queue.request(ask, priority);
  };

  const recolour = (ips: Iterable<string>): void => {
    for (const ip of ips) {
      const severity = answers.severityOf(ip);
      for (const occ of store.rangedOccurrencesOfIp(ip)) {
        // Only marks near the viewport are in the highlights; the rest take it when they come.
        // An answer on screen is painted when it comes, one near but hidden with the next batch.
        if (occ.range && highlighter.severityOf(occ.range) !== undefined) {
          const el = elementOf(occ);
          highlighter.set(occ.range, severity, !!el && tracker.nearnessOf(el) == 'visible');
        }
      }
    }
    summary.schedule();
  };

  return {
    applyChange(change) {
      // Added first: when a node's text is replaced, its element keeps being tracked (and known
      // to be near) instead of being dropped and observed again a frame later.
      const visible: Occurrence[] = [];
      const near: Occurrence[] = [];
      for (const occ of change.added) {
        const el = elementOf(occ);
        const nearness = el ? tracker.track(el, occ) : null;
        if (nearness === 'visible') visible.push(occ);
        else if (nearness === 'near') near.push(occ);
      }
      for (const occ of change.removed) {
        if (occ.range) highlighter.remove(occ.range);
        const el = elementOf(occ);
        if (el) tracker.untrack(el, occ);
      }
      // Rows of texts read far; after the added ones, so a row read again fully keeps its chunk.
      trackFarRows(change.farAdded);
      for (const far of change.farRemoved) tracker.untrackRow(far.row);
      if (visible.length) showNear(visible, 'visible');
      if (near.length) showNear(near, 'near');
      eviction.check();
      summary.schedule();
    },
    showNear,
    hideFar(occs) {
      for (const occ of occs) if (occ.range) highlighter.remove(occ.range);
    },
    recolour,
    applyResults(results) {
      // One set serves both: recolour takes any iterable, the listeners want a set.
      const ips = new Set(results.map((r) => r.ip));
      recolour(ips);
      for (const listener of listeners) listener(ips);
    },
    setStyle(next) {
      style = next;
      highlighter.setStyle(next);
      if (staticUnderline !== undefined) adoptDocumentSheetIfNeeded();
    },
  };
}
