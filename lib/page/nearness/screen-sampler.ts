/**
 * Which rows are on screen, sampled by hit tests (viewport-sample.ts): at start, when a scroll
 * or resize stops, at least every RESAMPLE_MAX_WAIT_MS during one that does not, and when a
 * page limit is reached. Each sample's rows are handed on to be read first; the last sample
 * also tells the mutation handling which replaced text the analyst may be watching.
 */
import type { FlushScheduler } from '../changes/mutation-queue';

/** After a scroll stops, how long before the screen is sampled again. */
const RESAMPLE_MS = 120;
/**
 * During a scroll that does not stop, the screen is still sampled this often: text the page
 * replaces in rows not read yet waits for the whole-page scan unless a sample saw its row on
 * screen, and an analyst scrolling a live tail slowly never stops for 120 ms.
 */
const RESAMPLE_MAX_WAIT_MS = 250;

export interface ScreenSamplerDeps {
  /** The rows on screen now (hit tests). */
  sample: () => Element[];
  /** Runs a task in the page's next frame. */
  scheduleFrame: FlushScheduler;
  /** Runs a task after the frame is painted. */
  afterPaint: (task: () => void) => void;
  /** Each sample's rows. */
  onSample: (rows: Element[]) => void;
  signal: AbortSignal;
}

export interface ScreenSampler {
  /** The rows on screen at the last sample. */
  readonly rows: ReadonlySet<Element>;
  /**
   * Whether a scroller around the element (the page's own included) is away from its top: moved
   * by a scroll since the last sample, or found there by it. Rows a page inserts above the rows
   * on screen then stay above the screen: the browser's scroll anchoring keeps the view still,
   * except at offset 0, where the rows below are pushed down instead.
   */
  scrolledAway(element: Element): boolean;
  /** Samples again after the page's scrolls and resizes (until the signal aborts). */
  follow(doc: Document, win: Window): void;
  /** Samples now (the layout is known to be clean, or forcing it is the point). */
  sampleNow(): void;
  stop(): void;
}

/** A closure, not a class: its state's names are minified in the content script. */
export function screenSampler(deps: ScreenSamplerDeps): ScreenSampler {
  let rows: ReadonlySet<Element> = new Set();
  let sampledAt = -Infinity;
  let timer: ReturnType<typeof setTimeout> | undefined;
  /** A sample waits for the next frame's paint (sampleAfterPaint). */
  let pending = false;
  const { signal } = deps;
  let doc: Document | undefined;
  /** Scrollers away from their top, as far as known: a scroll adds its target, a sample drops those back at 0. */
  const away = new Set<Element>();

  const sampleNow = (): void => {
    const root = doc?.scrollingElement;
    if (root) away.add(root);
    // Read where the layout is clean (after a paint): a scroll event's own read could force one.
    for (const el of away) if (!el.scrollTop) away.delete(el);
    const sampled = deps.sample();
    rows = new Set(sampled);
    sampledAt = performance.now();
    deps.onSample(sampled);
  };

  /**
   * Hit tests need an up-to-date layout: taken in a task right after a frame's paint, the
   * browser has it. Taken when the timer fires, they forced the layout of whatever the page
   * had changed since its last frame, inside our task: after a live tail's re-render or a
   * scroll step, 55-180 ms tasks of ours (bench page-profile, live tail), work the page's
   * next frame did again once the scroll moved on.
   */
  const sampleAfterPaint = (): void => {
    if (pending) return;
    pending = true;
    deps.scheduleFrame(() =>
      deps.afterPaint(() => {
        pending = false;
        if (!signal.aborted) sampleNow();
      }),
    );
  };

  const scheduleResample = (): void => {
    // Overdue: the sample already asked for is not put off again.
    if (timer !== undefined && performance.now() - sampledAt >= RESAMPLE_MAX_WAIT_MS) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      sampleAfterPaint();
    }, RESAMPLE_MS);
  };

  return {
    get rows() {
      return rows;
    },
    scrolledAway(element) {
      for (let node: Node | null = element; node; node = node.parentNode ?? (node as ShadowRoot).host) if (away.has(node as Element)) return true;
      return false;
    },
    follow(d, win) {
      doc = d;
      const onScroll = (event: Event): void => {
        const target = event.target as Node;
        const scroller = target.nodeType == 1 ? (target as Element) : d.scrollingElement;
        if (scroller) away.add(scroller);
        scheduleResample();
      };
      d.addEventListener('scroll', onScroll, { capture: true, passive: true, signal });
      win.addEventListener('resize', scheduleResample, { passive: true, signal });
    },
    sampleNow,
    stop: () => clearTimeout(timer),
  };
}
