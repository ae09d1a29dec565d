/**
 * Marks IPs with the CSS Custom Highlight API: one `Highlight` per severity, registered as
 * `ip-rep-<severity>`. Nothing is inserted into the page's DOM, so React/Angular consoles that
 * reconcile their own nodes never see ours.
 *
 * The `::highlight()` rules live in a constructed stylesheet adopted by the document (and by
 * every open shadow root we scan: document styles do not cross shadow boundaries). Adoption is
 * visible to page scripts as an extra entry in `adoptedStyleSheets`, but it adds no node, and
 * unlike a `<style>` element it cannot be removed by a framework re-rendering `<head>`. If the
 * page reassigns `adoptedStyleSheets` or clears `CSS.highlights`, `ensureInstalled()` puts ours
 * back (it runs on every batch of work).
 *
 * Mark changes are not applied as they are made: `set` and `remove` change what the highlighter
 * holds at once (severityOf answers from it), and the highlights follow in one batch per paint
 * (paint-throttle.ts: at most once every 3 s, in a task of their own, unless a mark set on
 * screen calls for it sooner). A frame in which a highlight changes costs the browser work in
 * proportion to the page, so a scan must not change them in every one of its slices.
 */
import { highlightName, SEVERITIES, type Severity } from '../../severity';
import { adoptSheet, dropSheet, fallbackStyle, isApplied } from './adopted-sheets';
import { highlightCss, type MarkStyle } from './highlight-styles';
import { browserPaintEnv, paintThrottle, type PaintScheduler } from './paint-throttle';

/** Higher paints on top when marks overlap; riskier wins. */
const PRIORITY: Record<Severity, number> = Object.fromEntries(
  SEVERITIES.map((s, i) => [s, SEVERITIES.length - i]),
) as Record<Severity, number>;

type StyleRoot = Document | ShadowRoot;

/** Shadow roots whose sheet is checked per ensureInstalled call (see there). */
const ROOTS_PER_CHECK = 32;

export interface HighlighterEnv {
  registry: HighlightRegistry;
  createHighlight: () => Highlight;
  createSheet: () => CSSStyleSheet;
  /** When queued mark changes reach the highlights; without it, at once (tests of the logic). */
  schedulePaint?: PaintScheduler;
}

export function browserHighlighterEnv(win: Window & typeof globalThis = window): HighlighterEnv {
  return {
    registry: win.CSS.highlights,
    createHighlight: () => new win.Highlight(),
    createSheet: () => new win.CSSStyleSheet(),
    schedulePaint: paintThrottle(browserPaintEnv(win)),
  };
}

export class Highlighter {
  private readonly highlights = new Map<Severity, Highlight>();
  /** Each range's mark as the lens set it; the highlights catch up at the next paint. */
  private readonly current = new Map<AbstractRange, Severity>();
  /**
   * Ranges changed since the last paint, with the severity the highlights hold them under
   * (undefined: in none). Only the difference is applied: a range set and removed between two
   * paints costs the highlights nothing.
   */
  private readonly unpainted = new Map<AbstractRange, Severity | undefined>();
  private paintDue = false;
  private disposed = false;
  /** Whether the highlights are in the registry: from the first paint on (see paint). */
  private registered = false;
  private readonly roots = new Set<StyleRoot>();
  /** Where ensureInstalled's round of shadow roots resumes. */
  private nextRoot = 0;
  private readonly sheet: CSSStyleSheet;
  private style: MarkStyle;
  /** The sheet's text, made once per style: a 1,000-deep shadow page adopts it 1,000 times. */
  private css: string;

  constructor(
    private readonly env: HighlighterEnv,
    style: MarkStyle = 'underline',
  ) {
    this.style = style;
    this.css = highlightCss(SEVERITIES, style);
    this.sheet = env.createSheet();
    this.sheet.replaceSync(this.css);
    for (const severity of SEVERITIES) {
      const h = env.createHighlight();
      h.priority = PRIORITY[severity];
      this.highlights.set(severity, h);
    }
  }

  /**
   * Puts one range under a severity (moving it out of the one it had). `now`: the range is on
   * screen, so it is painted at once if it is not yet, and with it every change waiting.
   */
  set(range: AbstractRange, severity: Severity, now?: boolean): void {
    const before = this.current.get(range);
    if (before !== severity) {
      this.noteUnpainted(range, before);
      this.current.set(range, severity);
      this.requestPaint();
    }
    if (now && this.unpainted.has(range)) this.paint();
  }

  remove(range: AbstractRange): void {
    const before = this.current.get(range);
    if (!before) return;
    this.noteUnpainted(range, before);
    this.current.delete(range);
    this.requestPaint();
  }

  /** Applies every queued change to the highlights now (the paint scheduler calls it). */
  paint(): void {
    this.paintDue = false;
    if (this.disposed) return;
    // Registered with the first marks, not as the script starts: registering a highlight
    // repaints the whole document (PrePaint 17 ms on the 10,000-row page with marks.css), and
    // at start that landed in the page's own first frame.
    if (!this.registered) {
      this.registered = true;
      this.ensureInstalled();
    }
    for (const [range, painted] of this.unpainted) {
      const now = this.current.get(range);
      if (now === painted) continue;
      if (painted) this.highlights.get(painted)!.delete(range);
      if (now) this.highlights.get(now)!.add(range);
    }
    this.unpainted.clear();
  }

  /** The first change since the last paint tells what the highlights hold. */
  private noteUnpainted(range: AbstractRange, before: Severity | undefined): void {
    if (!this.unpainted.has(range)) this.unpainted.set(range, before);
  }

  private requestPaint(): void {
    if (!this.env.schedulePaint) return this.paint();
    if (this.paintDue) return;
    this.paintDue = true;
    this.env.schedulePaint(() => this.paint());
  }

  severityOf(range: AbstractRange): Severity | undefined {
    return this.current.get(range);
  }

  setStyle(style: MarkStyle): void {
    if (style === this.style) return;
    this.style = style;
    const css = (this.css = highlightCss(SEVERITIES, style));
    this.sheet.replaceSync(css);
    // Roots that got a <style> fallback (Firefox Xray) need the new text too.
    for (const root of this.roots) if (fallbackStyle(root)) adoptSheet(root, this.sheet, css);
  }

  /** Adopts the mark styles into a document or an open shadow root we scan. */
  adoptInto(root: StyleRoot): void {
    this.roots.add(root);
    if (!isApplied(root, this.sheet)) adoptSheet(root, this.sheet, this.css);
  }

  /**
   * Re-registers highlights (once painted) and re-adopts the sheet if the page removed them. It runs on every
   * batch of work, so it looks at the document every time but at only ROOTS_PER_CHECK shadow
   * roots, in turn: reading `adoptedStyleSheets` of all 1,000 roots of a 1,000-deep shadow page
   * on every mutation batch was the largest cost there (bench page-profile). A root
   * the page stripped gets its marks back within roots / ROOTS_PER_CHECK batches.
   */
  ensureInstalled(): void {
    for (const [severity, h] of this.highlights) {
      const name = highlightName(severity);
      if (this.registered && this.env.registry.get(name) !== h) this.env.registry.set(name, h);
    }
    const shadows: StyleRoot[] = [];
    for (const root of this.roots) {
      if (root.nodeType === Node.DOCUMENT_NODE) {
        if (!isApplied(root, this.sheet)) this.adoptInto(root);
      } else shadows.push(root);
    }
    const count = Math.min(shadows.length, ROOTS_PER_CHECK);
    for (let i = 0; i < count; i++) {
      const root = shadows[(this.nextRoot + i) % shadows.length]!;
      if (!isApplied(root, this.sheet)) this.adoptInto(root);
    }
    this.nextRoot = shadows.length ? (this.nextRoot + count) % shadows.length : 0;
  }

  /** Shadow roots whose host left the page: stop tracking them. */
  forgetDetachedRoots(): void {
    for (const root of this.roots) {
      if (root.nodeType === Node.DOCUMENT_FRAGMENT_NODE && !(root as ShadowRoot).host.isConnected) {
        this.roots.delete(root);
      }
    }
  }

  dispose(): void {
    this.disposed = true;
    this.unpainted.clear();
    for (const [severity, h] of this.highlights) {
      const name = highlightName(severity);
      if (this.env.registry.get(name) === h) this.env.registry.delete(name);
      h.clear();
    }
    for (const root of this.roots) {
      dropSheet(root, this.sheet);
    }
    this.roots.clear();
    this.current.clear();
  }
}
