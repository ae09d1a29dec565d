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

  const sampleNow = (): void => {
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
    follow(doc, win) {
      doc.addEventListener('scroll', scheduleResample, { capture: true, passive: true, signal });
      win.addEventListener('resize', scheduleResample, { passive: true, signal });
    },
    sampleNow,
    stop: () => clearTimeout(timer),
  };
}
