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

export class ScreenSampler {
  /** The rows on screen at the last sample. */
  rows: ReadonlySet<Element> = new Set();
  private sampledAt = -Infinity;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** A sample waits for the next frame's paint (sampleAfterPaint). */
  private pending = false;

  constructor(private readonly deps: ScreenSamplerDeps) {}

  /** Samples again after the page's scrolls and resizes (until the signal aborts). */
  follow(doc: Document, win: Window): void {
    const options = { capture: true, passive: true, signal: this.deps.signal };
    doc.addEventListener('scroll', () => this.scheduleResample(), options);
    win.addEventListener('resize', () => this.scheduleResample(), { passive: true, signal: this.deps.signal });
  }

  /** Samples now (the layout is known to be clean, or forcing it is the point). */
  sampleNow(): void {
    const rows = this.deps.sample();
    this.rows = new Set(rows);
    this.sampledAt = performance.now();
    this.deps.onSample(rows);
  }

  stop(): void {
    clearTimeout(this.timer);
  }

  private scheduleResample(): void {
    // Overdue: the sample already asked for is not put off again.
    if (this.timer !== undefined && performance.now() - this.sampledAt >= RESAMPLE_MAX_WAIT_MS) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.sampleAfterPaint();
    }, RESAMPLE_MS);
  }

  /**
   * Hit tests need an up-to-date layout: taken in a task right after a frame's paint, the
   * browser has it. Taken when the timer fires, they forced the layout of whatever the page
   * had changed since its last frame, inside our task: after a live tail's re-render or a
   * scroll step, 55-180 ms tasks of ours (bench page-profile, live tail), work the page's
   * next frame did again once the scroll moved on.
   */
  private sampleAfterPaint(): void {
    if (this.pending) return;
    this.pending = true;
    this.deps.scheduleFrame(() =>
      this.deps.afterPaint(() => {
        this.pending = false;
        if (!this.deps.signal.aborted) this.sampleNow();
      }),
    );
  }
}
