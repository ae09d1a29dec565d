// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { screenSampler } from '@/lib/page/nearness/screen-sampler';

function sampler() {
  const samples: number[] = [];
  const frames: (() => void)[] = [];
  const abort = new AbortController();
  let row = 0;
  const screen = screenSampler({
    sample: () => [document.createElement(`row-${row++}`)],
    scheduleFrame: (task) => frames.push(task),
    afterPaint: (task) => setTimeout(task, 0),
    onSample: () => samples.push(Date.now()),
    signal: abort.signal,
  });
  screen.follow(document, window);
  /** The page draws a frame: tasks waiting for it run. */
  const frame = () => frames.splice(0).forEach((task) => task());
  const scroll = () => document.dispatchEvent(new Event('scroll'));
  return { screen, samples, frame, scroll, abort };
}

describe('screenSampler', () => {
  beforeEach(() => vi.useFakeTimers({ now: 0 }));
  afterEach(() => vi.useRealTimers());

  it('samples once a scroll has stopped for 120 ms, after the next frame is painted', () => {
    const { screen, samples, frame, scroll } = sampler();
    screen.sampleNow();
    vi.advanceTimersByTime(10);
    scroll();
    vi.advanceTimersByTime(90);
    scroll(); // the scroll goes on: the sample is put off
    vi.advanceTimersByTime(119);
    frame();
    vi.advanceTimersByTime(0);
    expect(samples).toEqual([0]);
    vi.advanceTimersByTime(1);
    expect(samples).toEqual([0]); // waits for the frame: hit tests now would force a layout
    frame();
    vi.advanceTimersByTime(0);
    expect(samples).toEqual([0, 220]);
  });

  it('does not put a sample off past 250 ms after the last during a scroll that never stops', () => {
    const { screen, samples, frame, scroll } = sampler();
    screen.sampleNow();
    for (let t = 0; t < 1_000; t += 16) {
      scroll();
      vi.advanceTimersByTime(16);
      frame();
      vi.advanceTimersByTime(0);
    }
    expect(samples.length).toBeGreaterThanOrEqual(3);
    const gaps = samples.slice(1).map((t, i) => t - samples[i]!);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(250 + 120 + 16);
  });

  // Rows a page inserts above the screen stay above it once the view is scrolled (scroll
  // anchoring): the tracker guesses new rows on screen only where no scroller is away from its top.
  it('knows which scrollers are away from their top: a scroll moves one, a sample after paint finds it back at 0', () => {
    const { screen, frame } = sampler();
    document.body.innerHTML = '<div id="list"><div id="row">1.2.3.4</div></div><p id="other">x</p>';
    const list = document.getElementById('list')!;
    const row = document.getElementById('row')!;
    const other = document.getElementById('other')!;
    const root = document.scrollingElement!;
    let listTop = 40;
    Object.defineProperty(list, 'scrollTop', { configurable: true, get: () => listTop });
    expect(screen.scrolledAway(row)).toBe(false);
    // A scroll counts at once, before any read: reading offsets in the event could force a layout.
    list.dispatchEvent(new Event('scroll'));
    expect(screen.scrolledAway(row)).toBe(true);
    expect(screen.scrolledAway(other)).toBe(false);
    screen.sampleNow();
    expect(screen.scrolledAway(row)).toBe(true);
    listTop = 0;
    list.dispatchEvent(new Event('scroll'));
    vi.advanceTimersByTime(120);
    frame();
    vi.advanceTimersByTime(0);
    expect(screen.scrolledAway(row)).toBe(false);
    // The page's own scroller, read at every sample (a page restored scrolled has had no scroll event).
    let rootTop = 300;
    Object.defineProperty(root, 'scrollTop', { configurable: true, get: () => rootTop });
    screen.sampleNow();
    expect(screen.scrolledAway(other)).toBe(true);
    expect(screen.scrolledAway(row)).toBe(true);
    rootTop = 0;
    screen.sampleNow();
    expect(screen.scrolledAway(row)).toBe(false);
    // A window scroll's target is the document: its scroller is the root.
    rootTop = 10;
    document.dispatchEvent(new Event('scroll'));
    expect(screen.scrolledAway(other)).toBe(true);
    // Inside a shadow root, the host's scrollers count.
    const host = document.createElement('div');
    other.append(host);
    const inner = host.attachShadow({ mode: 'open' }).appendChild(document.createElement('span'));
    expect(screen.scrolledAway(inner)).toBe(true);
  });

  it('remembers the last sample\'s rows, and samples no more once its signal aborts', () => {
    const { screen, samples, frame, scroll, abort } = sampler();
    screen.sampleNow();
    const [first] = [...screen.rows];
    expect(first?.localName).toBe('row-0');
    abort.abort();
    scroll();
    vi.advanceTimersByTime(200);
    frame();
    vi.advanceTimersByTime(0);
    expect(samples).toHaveLength(1);
  });
});
