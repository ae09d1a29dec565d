/**
 * The live tail's goal as the analyst sees it: a new event at the top of a live list re-rendered
 * every second (test/fixtures/consoles/live-tail.html) is marked in the frame that first
 * paints its text. `bench page` runs it with and without the extension (the page's own time to
 * paint the new text is the floor any mark can reach).
 *
 * "Mark ready": the new event's IP has a mark (pending counts) before the layout of the frame
 * that first paints the new text. Read in the page, without forcing layout:
 *   - after each render the fixture pushes { at: end of the render, node: the new IP's text };
 *   - a MutationObserver of ours on the top row (created after the content script's, and a
 *     microtask later still) asks for an animation frame: that callback runs after the content
 *     script's mutation flush in the first frame after the render, just before style and
 *     layout, and looks whether the node is in a highlight (CSS.highlights, no layout read);
 *   - that frame's end (paint included) is when the page showed the new text: from its Long
 *     Animation Frame entry (frames over 50 ms; the 5,000-row layout always is), else from a
 *     task posted in that callback (MessageChannel), which runs after the paint but may wait
 *     behind other tasks (the content script's after-paint read, mutation-queue.ts);
 *   - while the event is not marked, later frames are looked at from their first animation
 *     frame callback (a mark set by the content script's own callback in that frame is seen
 *     a frame late), until the next render replaces the text ("never").
 */

/** One new top event, ms after the end of the render that put it there. */
export interface InsertionSample {
  /** The first frame after the render: its animation frame callback, and its paint done. */
  firstFrameMs: number | null;
  firstPaintMs: number | null;
  /** Whether firstPaintMs is the frame's end from its LoAF entry (else the task after it). */
  paintFromLoaf?: boolean;
  /** The frame whose layout had the mark: its callback (null: never), and its index (0 = first). */
  readyMs: number | null;
  readyFrame: number | null;
}

/** What `bench page` prints for one side (with or without the extension). */
export interface InsertionSummary {
  count: number;
  /** Never marked before the next render replaced the text (or the session ended). */
  never: number;
  /** Marked before the layout of the frame that first painted the text. */
  readyInFirstFrame: number;
  /** Render end → frame whose layout had the mark (never = Infinity, over any target). */
  ready: { p50: number; p95: number };
  /** Render end → the first frame's animation frame callbacks (no mark can be ready sooner). */
  firstFrame: { p50: number; p95: number };
  /** Render end → first frame after it painted (the page's own cost of the new text). */
  firstPaint: { p50: number; p95: number };
  /** Of those, how many frame ends came from a Long Animation Frame entry. */
  paintFromLoaf: number;
}

/** Nearest-rank percentile of values sorted ascending; Infinity when there are none. */
export function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Infinity;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

export function summarizeInsertions(samples: readonly InsertionSample[]): InsertionSummary {
  const ready = samples.map((s) => s.readyMs ?? Infinity).sort((a, b) => a - b);
  const frames = samples.flatMap((s) => (s.firstFrameMs === null ? [] : [s.firstFrameMs])).sort((a, b) => a - b);
  const paints = samples.flatMap((s) => (s.firstPaintMs === null ? [] : [s.firstPaintMs])).sort((a, b) => a - b);
  return {
    count: samples.length,
    never: samples.filter((s) => s.readyMs === null).length,
    readyInFirstFrame: samples.filter((s) => s.readyFrame === 0).length,
    ready: { p50: percentile(ready, 0.5), p95: percentile(ready, 0.95) },
    firstFrame: { p50: percentile(frames, 0.5), p95: percentile(frames, 0.95) },
    firstPaint: { p50: percentile(paints, 0.5), p95: percentile(paints, 0.95) },
    paintFromLoaf: samples.filter((s) => s.paintFromLoaf && s.firstPaintMs !== null).length,
  };
}

type InsertionWindow = Window & {
  benchTopInsertions?: { at: number; node: Text | null }[];
  /** The list's first row (the one whose text each render replaces with the newest event). */
  benchTopRow?: Element;
};

/**
 * In the page (passed to page.evaluate, so self-contained): watches the new top events for
 * `sessionMs`, then `settleMs` more for the last one, and returns one sample per event.
 */
export function watchInsertions([sessionMs, settleMs]: [number, number]): Promise<InsertionSample[]> {
  const w = window as InsertionWindow;
  interface Open {
    at: number;
    node: Text;
    frames: number;
    /** The first frame's callback, and the task after its paint (performance.now()). */
    frameAt?: number;
    sample: InsertionSample;
  }
  return new Promise((resolve, reject) => {
    const top = w.benchTopRow;
    if (!top || !w.benchTopInsertions) {
      reject(new Error('The page exposes no benchTopRow / benchTopInsertions'));
      return;
    }
    const started = performance.now();
    const samples: InsertionSample[] = [];
    const opened: Open[] = [];
    const frames: { start: number; end: number }[] = [];
    let loaf: PerformanceObserver | null = null;
    try {
      loaf = new PerformanceObserver((list) => {
        for (const e of list.getEntries()) frames.push({ start: e.startTime, end: e.startTime + e.duration });
      });
      loaf.observe({ type: 'long-animation-frame' });
    } catch {
      // No LoAF here: the task after the paint stands for it.
    }
    let open: Open | null = null;
    let stopped = false;
    const painted = new MessageChannel();
    // One message per frame looked at, answered in order.
    const afterPaint: (() => void)[] = [];
    painted.port1.onmessage = () => afterPaint.shift()?.();
    const marked = (node: Node): boolean => {
      for (const [name, h] of CSS.highlights) {
        if (!name.startsWith('ip-rep-')) continue;
        for (const r of h) if ((r as AbstractRange).startContainer === node) return true;
      }
      return false;
    };
    // Each look belongs to one event: one asked for an event the next render replaced does nothing.
    const look = (o: Open) => {
      if (o !== open || stopped) return;
      const now = performance.now();
      const frame = o.frames++;
      if (frame === 0) {
        o.sample.firstFrameMs = now - o.at;
        o.frameAt = now;
      }
      if (o.sample.readyMs === null && marked(o.node)) {
        o.sample.readyMs = now - o.at;
        o.sample.readyFrame = frame;
      }
      if (frame === 0) {
        afterPaint.push(() => {
          o.sample.firstPaintMs = performance.now() - o.at;
          // Not marked yet: the next frames, until the next render replaces the text.
          if (o.sample.readyMs === null) requestAnimationFrame(() => look(o));
        });
        painted.port2.postMessage(0);
      } else if (o.sample.readyMs === null) {
        requestAnimationFrame(() => look(o));
      }
    };
    const observer = new MutationObserver(() => {
      const list = w.benchTopInsertions!;
      const latest = list[list.length - 1];
      if (!latest?.node || latest.at < started || open?.node === latest.node) return;
      const o: Open = { at: latest.at, node: latest.node, frames: 0, sample: { firstFrameMs: null, firstPaintMs: null, readyMs: null, readyFrame: null } };
      open = o;
      samples.push(o.sample);
      opened.push(o);
      // A microtask later: the content script's own observer has asked for its frame by then,
      // so this frame callback runs after its flush (callbacks run in the order asked).
      queueMicrotask(() => requestAnimationFrame(() => look(o)));
    });
    observer.observe(top, { childList: true, subtree: true, characterData: true });
    setTimeout(() => {
      // No new event from now on; the last one has settleMs to be marked.
      observer.disconnect();
      setTimeout(() => {
        stopped = true;
        // LoAF entries come in a later task: by now they have.
        for (const e of loaf?.takeRecords() ?? []) frames.push({ start: e.startTime, end: e.startTime + e.duration });
        loaf?.disconnect();
        painted.port1.close();
        for (const o of opened) {
          const f = o.frameAt === undefined ? undefined : frames.find((x) => x.start <= o.frameAt! && o.frameAt! <= x.end);
          if (f) o.sample.firstPaintMs = f.end - o.at;
          o.sample.paintFromLoaf = !!f;
        }
        resolve(samples);
      }, settleMs);
    }, sessionMs);
  });
}
