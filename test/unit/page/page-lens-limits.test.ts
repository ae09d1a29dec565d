// @vitest-environment happy-dom
/**
 * Hostile and live pages: a huge text node is read across slices, page
 * limits degrade to marking what is on screen, work added by the page goes before the rest of
 * the initial scan, and nodes that left the page are not kept.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { classifyIp, findIps } from '@/lib/ip';
import type { LookupSender } from '@/lib/page/lookups/lookup-queue';
import type { Occurrence } from '@/lib/page/occurrences/occurrence-store';
import { PageLens } from '@/lib/page/page-lens';
import type { PageLimits } from '@/lib/page/scanning/page-limits';
import type { TimeSlicer } from '@/lib/page/scanning/time-slicer';
import { DEFAULT_THRESHOLDS } from '@/lib/severity';
import { eagerSlicer, fakeHighlighterEnv, fakeRangeFactory, fakeTracker, tinySlicer } from './dom-fakes';

/** Expires after every `every` looks at the clock; counts its pauses and lets the test act in them. */
function countingSlicer(every: number) {
  let calls = 0;
  const s: TimeSlicer & { pauses: number; onPause?: () => void } = {
    pauses: 0,
    begin() {
      calls = 0;
    },
    expired: () => ++calls >= every,
    async pause() {
      s.pauses++;
      calls = 0;
      s.onPause?.();
      await new Promise((r) => setTimeout(r, 0));
    },
  };
  return s;
}

interface SetupOptions {
  slicer?: TimeSlicer;
  limits?: Partial<PageLimits>;
  visible?: () => Element[];
  findIps?: typeof findIps;
  classifyIp?: typeof classifyIp;
  /** A document of its own (lenses of other tests listen to the shared one). */
  doc?: Document;
  /** Tasks run after the paint (the mutation queue's big frames). */
  afterPaint?: (task: () => void) => void;
  /** The whole-page scan holds text of rows not near without occurrences (fakeTracker). */
  farRows?: boolean;
}

/**
 * Every lens a test made is disposed after it: a lens left running keeps its timers (the
 * mutation queue's task after the paint), and on a loaded machine one fired after the test file
 * had torn its window down, an unhandled error that fails the whole run.
 */
const made: PageLens[] = [];
afterEach(() => {
  for (const lens of made.splice(0)) lens.dispose();
});

function setup(html: string, opts: SetupOptions = {}) {
  const doc = opts.doc ?? document;
  doc.body.innerHTML = html;
  const vis = fakeTracker<Occurrence>({ farRows: opts.farRows ?? false });
  const lookup: LookupSender = async (ips) => ({ ok: true, value: ips.map((ip) => ({ ip, status: 'not-found' as const, fetchedAt: 1 })) });
  let flushes: (() => void)[] = [];
  const lens = new PageLens({
    ...(opts.doc ? { doc: opts.doc } : {}),
    findIps: opts.findIps ?? findIps,
    classifyIp: opts.classifyIp ?? classifyIp,
    lookup,
    thresholds: DEFAULT_THRESHOLDS,
    markStyle: 'underline',
    sendPrivate: false,
    highlighterEnv: fakeHighlighterEnv(),
    rangeFactory: fakeRangeFactory,
    slicer: opts.slicer ?? eagerSlicer,
    scheduleFlush: (f) => flushes.push(f),
    createTracker: vis.create,
    caret: () => null,
    sampleViewport: opts.visible ?? (() => []),
    nextFrame: () => Promise.resolve(),
    ...(opts.afterPaint ? { afterPaint: opts.afterPaint } : {}),
    ...(opts.limits ? { limits: opts.limits } : {}),
  });
  made.push(lens);
  const runFlushes = () => {
    const f = flushes;
    flushes = [];
    f.forEach((x) => x());
  };
  return { lens, vis, runFlushes };
}

const ipAt = (n: number) => `11.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;

describe('PageLens on hostile pages', () => {
  afterEach(() => {
    document.body.replaceChildren();
  });

  it('reads one huge text node across many slices, keeping at most the per-node limit', async () => {
    const blob = Array.from({ length: 30_000 }, (_, i) => ipAt(i)).join(' ');
    const slicer = countingSlicer(200);
    const { lens } = setup(`<p>1.2.3.4</p><div id="blob">${blob}</div>`, { slicer, limits: { maxMatchesPerNode: 5_000 } });
    await lens.start();
    // One slice reads a bounded piece of the node, so the node alone took many slices.
    expect(slicer.pauses).toBeGreaterThan(10);
    const blobText = document.getElementById('blob')!.firstChild as Text;
    expect(lens.store.occurrencesOfNode(blobText)).toHaveLength(5_000);
    expect(lens.store.occurrencesOfNode(blobText)[4_999]!.ip).toBe(ipAt(4_999));
    expect(lens.limited).toBe('maxMatchesPerNode');
    expect(lens.store.countOf('1.2.3.4')).toBe(1);
  });

  it('past the page limit on addresses stops the whole-page scan and scans what is on screen only', async () => {
    const rows = Array.from({ length: 400 }, (_, i) => `<div class="row">${ipAt(i)} ${ipAt(i + 1000)}</div>`).join('');
    const { lens } = setup(`<div id="list">${rows}</div>`, { limits: { maxOccurrences: 100 } });
    await lens.start();
    expect(lens.limited).toBe('maxOccurrences');
    // The scan stopped soon after the limit instead of reading all 800 addresses.
    expect(lens.store.occurrenceCount).toBeLessThan(400);
  });

  // The cells page: dropping the 50,000 held addresses far from the screen was one 133 ms task.
  // Texts held far (no occurrences) count against the limit and are dropped alike.
  it('holds far plain rows unread as text nodes, not addresses: a big table without IPs reaches no limit', async () => {
    const rows = (n: number, text: (i: number) => string) => Array.from({ length: n }, (_, i) => `<tr><td>${text(i)}</td><td>x</td></tr>`).join('');
    const noIps = setup(`<table><tbody>${rows(300, (i) => `row ${i}`)}</tbody></table>`, { farRows: true, limits: { maxOccurrences: 100, maxTextNodes: 1_000 } });
    await noIps.lens.start();
    expect(noIps.lens.store.unreadRows).toBe(300);
    expect(noIps.lens.limited).toBeNull();
    noIps.lens.dispose();
    // Held rows count against the text-node limit: the whole-page scan stops there.
    const many = setup(`<table><tbody>${rows(300, (i) => `10.3.${i >> 8}.${i & 255}`)}</tbody></table>`, { farRows: true, slicer: tinySlicer(), limits: { maxTextNodes: 100 } });
    await many.lens.start();
    expect(many.lens.limited).toBe('maxTextNodes');
    expect(many.lens.store.unreadRows).toBeLessThan(300);
  });

  it.each([false, true])('past the page limit, drops the far addresses in time slices, not in one go (far rows: %s)', async (farRows) => {
    const rows = Array.from({ length: 3_000 }, (_, i) => `<div class="row">${ipAt(i)}</div>`).join('');
    const slicer = countingSlicer(4);
    // At the limit the screen is sampled again, and shows a row far down the list (the analyst
    // scrolled): reading it grows the store past the limit.
    let samples = 0;
    const { lens } = setup(`<div id="list">${rows}</div>`, {
      slicer,
      farRows,
      limits: { maxOccurrences: 1_000 },
      visible: () => (samples++ === 0 ? [] : [document.querySelectorAll('.row')[2_999]!]),
    });
    const dropped: number[] = [0];
    const forget = lens.store.forgetNode.bind(lens.store);
    vi.spyOn(lens.store, 'forgetNode').mockImplementation((node, change) => {
      dropped[dropped.length - 1]!++;
      forget(node, change);
    });
    slicer.onPause = () => dropped.push(0);
    await lens.start();
    await lens.idle();
    // The eviction runs in background-priority slices after the scan: wait for it, not for a
    // fixed time (50 ms was not enough on a loaded machine).
    // Nothing is near (the fake tracker places every tracked row far): all of it went ...
    await vi.waitFor(() => expect(lens.store.occurrenceCount).toBe(0), { timeout: 10_000, interval: 5 });
    expect(lens.limited).toBe('maxOccurrences');
    expect(lens.store.countOf(ipAt(2_999))).toBe(0);
    expect(dropped.reduce((a, b) => a + b, 0)).toBeGreaterThan(1_000);
    // ... a slice's worth at a time (4 looks at the clock, 32 texts each), not 1,000 at once.
    expect(Math.max(...dropped)).toBeLessThanOrEqual(4 * 32);
  });

  it('puts nodes the page adds, and rows on screen, before the rest of the initial scan', async () => {
    const rows = Array.from({ length: 3_000 }, (_, i) => `<div class="row">${ipAt(i)}</div>`).join('');
    document.body.innerHTML = '';
    const slicer = countingSlicer(2);
    const { lens, runFlushes } = setup(`<div id="list">${rows}</div>`, {
      slicer,
      visible: () => [document.querySelectorAll('.row')[2_500]!],
    });
    const list = document.getElementById('list')!;
    let checked = false;
    slicer.onPause = () => {
      if (slicer.pauses === 2) {
        // The screen's row was scanned first, far down the list.
        expect(lens.store.countOf(ipAt(2_500))).toBe(1);
        const fresh = document.createElement('div');
        fresh.className = 'row';
        fresh.textContent = '185.220.101.1';
        list.prepend(fresh);
      }
      if (slicer.pauses === 4 && !checked) {
        checked = true;
        runFlushes();
      }
    };
    let seenEarly = false;
    const onPause = slicer.onPause;
    slicer.onPause = () => {
      onPause();
      if (slicer.pauses === 6) {
        seenEarly = lens.store.countOf('185.220.101.1') === 1 && lens.store.countOf(ipAt(2_999)) === 0;
      }
    };
    const started = lens.start();
    await new Promise((r) => setTimeout(r, 0));
    await started;
    expect(checked).toBe(true);
    expect(seenEarly).toBe(true);
    expect(lens.store.countOf(ipAt(2_999))).toBe(1);
  });
});

// A live tail re-renders every row each second, also rows no observer has placed yet
// (not read so far). Taken as urgent, they were the whole page again, each second, ahead of
// the rows on screen and of the whole-page scan, which never got past the first screens.
describe('PageLens on a list re-rendered before it was read', () => {
  afterEach(() => {
    document.body.replaceChildren();
  });

  it('reads replaced text in the rows on screen and rows the page adds first, the rest with the page scan', async () => {
    const row = (i: number, text: string) => `<li><span>${text}</span><span>row ${i}</span></li>`;
    const find = (text: string) => {
      read.push(text);
      return findIps(text);
    };
    const read: string[] = [];
    const rows = () => [...document.querySelectorAll('li')];
    const list = `<ul id="list">${Array.from({ length: 40 }, (_, i) => row(i, `12:00:${10 + i}`)).join('')}</ul>`;
    const { lens, runFlushes } = setup(list, { findIps: find, visible: () => [rows()[30]!] });
    await lens.start();
    read.length = 0;
    // The page re-renders every row (new text nodes, IPs now) and adds one at the top.
    rows().forEach((li, i) => (li.firstElementChild!.textContent = `from 45.33.1.${i + 1}`));
    document.getElementById('list')!.insertAdjacentHTML('afterbegin', row(99, 'new 185.220.101.1'));
    runFlushes();
    await lens.idle();
    // The row on screen and the added row first, then the rest in page order.
    expect(read.slice(0, 2).sort()).toEqual(['from 45.33.1.31', 'new 185.220.101.1']);
    expect(read[2]).toBe('from 45.33.1.1');
    expect(lens.store.ipCount).toBe(41);
  });
});

/** A live tail's rows (test/fixtures/consoles/live-tail.html's shape) and the ones in the page. */
const row = (i: number) => `<li><span>12:00:${i}</span><span>${ipAt(i)}</span><span>msg</span></li>`;
const rows = () => [...document.querySelectorAll('li')];
/** A re-render of those rows (every cell's text replaced: a big frame of records), and its frame. */
async function rerender(runFlushes: () => void): Promise<void> {
  rows().forEach((li, i) => {
    li.children[0]!.textContent = `12:01:${i}`;
    li.children[1]!.textContent = ipAt(i + 1_000);
    li.children[2]!.textContent = 'msg again';
  });
  await new Promise((r) => setTimeout(r, 0));
  runFlushes();
}

// The live tail's re-render is 20,000 mutation records in one frame, and
// reading them all in that frame put the new top row's mark after the frame painting its text.
describe('PageLens on a frame with thousands of mutation records', () => {
  afterEach(() => {
    document.body.replaceChildren();
  });

  it('reads only the rows on screen in that frame, and the rest in a task after the paint', async () => {
    const afterPaint: (() => void)[] = [];
    const { lens, runFlushes } = setup(`<ul>${Array.from({ length: 400 }, (_, i) => row(i)).join('')}</ul>`, {
      visible: () => rows().slice(0, 3),
      afterPaint: (t) => afterPaint.push(t),
    });
    await lens.start();
    // A re-render: every row's text replaced (at least 1,200 records), a new event at the top.
    rows().forEach((li, i) => {
      li.children[0]!.textContent = `12:01:${i}`;
      li.children[1]!.textContent = i === 0 ? '185.220.101.7' : ipAt(i + 1_000);
      li.children[2]!.textContent = 'msg again';
    });
    await new Promise((r) => setTimeout(r, 0));
    runFlushes();
    // In the frame: the new top event is in the store (so marked), far rows are not read yet.
    expect(lens.store.countOf('185.220.101.7')).toBe(1);
    expect(lens.store.countOf(ipAt(1_000 + 399))).toBe(0);
    expect(afterPaint).toHaveLength(1);
    afterPaint.shift()!();
    await lens.idle();
    expect(lens.store.countOf(ipAt(1_000 + 399))).toBe(1);
    // The replaced text left the store; each new address once.
    expect(lens.store.countOf(ipAt(399))).toBe(0);
    expect(lens.store.countOf('185.220.101.7')).toBe(1);
    expect(lens.store.occurrenceCount).toBe(400);
  });

  // The last sample is stale while the analyst scrolls (taken at most every 250 ms,
  // later on a busy page); a row scrolled on screen since showed its new text unmarked until
  // the frame after the records were read.
  it('in that frame, also reads the rows the observers last saw on screen, not only the last sample', async () => {
    const afterPaint: (() => void)[] = [];
    const { lens, vis, runFlushes } = setup(`<ul>${Array.from({ length: 400 }, (_, i) => row(i)).join('')}</ul>`, {
      visible: () => rows().slice(0, 3),
      afterPaint: (t) => afterPaint.push(t),
    });
    await lens.start();
    // Scrolled since the sample: the observers report row 200's address cell on screen.
    vis.reveal([rows()[200]!.children[1]!]);
    // A re-render: every cell's text replaced (1,200 records: a big frame).
    await rerender(runFlushes);
    expect(afterPaint).toHaveLength(1);
    // In the frame: the sampled rows and row 200; far rows wait for the task after the paint.
    expect(lens.store.countOf(ipAt(1_000))).toBe(1);
    expect(lens.store.countOf(ipAt(1_200))).toBe(1);
    expect(lens.store.countOf(ipAt(1_300))).toBe(0);
  });
});

// The scanner was idle when the task after the paint queued the render's
// text, and an idle scanner's enqueue read each root at once with a fresh slice: all 20,000
// text nodes were read in that one task (110-200 ms a render, a long task of ours each second).
describe('PageLens reading a re-render after the paint', () => {
  afterEach(() => {
    document.body.replaceChildren();
  });

  it('reads one slice of the queued text in that task, the rest after a yield', async () => {
    const afterPaint: (() => void)[] = [];
    let reads = 0;
    const find = (text: string) => {
      reads++;
      return findIps(text);
    };
    const { lens, runFlushes } = setup(`<ul>${Array.from({ length: 400 }, (_, i) => row(i)).join('')}</ul>`, {
      visible: () => rows().slice(0, 3),
      afterPaint: (t) => afterPaint.push(t),
      slicer: countingSlicer(50),
      findIps: find,
    });
    await lens.start();
    await rerender(runFlushes);
    reads = 0;
    afterPaint.shift()!();
    // 800 texts could hold an address (times, addresses): at most a slice of them read here.
    expect(reads).toBeGreaterThan(0);
    expect(reads).toBeLessThanOrEqual(50);
    await lens.idle();
    expect(lens.store.countOf(ipAt(1_000 + 399))).toBe(1);
    expect(lens.store.occurrenceCount).toBe(400);
  });
});

describe('PageLens while the analyst scrolls', () => {
  afterEach(() => {
    vi.useRealTimers();
    document.body.replaceChildren();
  });

  /** A started lens on a document of its own (lenses of other tests listen to the shared one), counting screen samples. */
  async function scrolledLens() {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    let count = 0;
    const doc = document.implementation.createHTMLDocument('scrolled');
    const afterPaint: (() => void)[] = [];
    const { lens, runFlushes } = setup('<p>10.0.0.1</p>', {
      doc,
      visible: () => {
        count++;
        return [];
      },
      afterPaint: (t) => afterPaint.push(t),
    });
    await lens.start();
    return { doc, lens, runFlushes, afterPaint, samples: () => count };
  }

  // Text replaced in rows not read yet waits for the page scan unless a sample saw
  // its row on screen, and the sample came only 120 ms after the scroll stopped: never, on a
  // live tail scrolled slowly all the time (bench page scrolls 12 px every 50 ms).
  it('samples the screen again during a long scroll, not only once it stops', async () => {
    const { doc, lens, runFlushes, afterPaint, samples } = await scrolledLens();
    expect(samples()).toBe(1);
    // A frame, and the task after its paint (where the sample is taken: sampleAfterPaint).
    const frame = () => {
      runFlushes();
      afterPaint.splice(0).forEach((t) => t());
    };
    for (let t = 0; t < 1_000; t += 50) {
      doc.dispatchEvent(new Event('scroll'));
      vi.advanceTimersByTime(50);
      frame();
    }
    expect(samples()).toBeGreaterThanOrEqual(3);
    // And once more after the scroll stopped.
    const during = samples();
    vi.advanceTimersByTime(200);
    frame();
    expect(samples()).toBe(during + 1);
    lens.dispose();
  });

  // Hit tests in the timer's task forced the layout of what the page changed since its
  // last frame (a live tail's re-render, a scroll step): 55-180 ms tasks of ours.
  it('takes the sample after the next frame is painted, not in the timer', async () => {
    const { doc, lens, runFlushes, afterPaint, samples } = await scrolledLens();
    doc.dispatchEvent(new Event('scroll'));
    vi.advanceTimersByTime(200);
    expect(samples()).toBe(1);
    runFlushes();
    expect(samples()).toBe(1);
    expect(afterPaint).toHaveLength(1);
    afterPaint.shift()!();
    expect(samples()).toBe(2);
    // Scrolls while it waits ask for no second one.
    doc.dispatchEvent(new Event('scroll'));
    vi.advanceTimersByTime(200);
    doc.dispatchEvent(new Event('scroll'));
    vi.advanceTimersByTime(300);
    runFlushes();
    afterPaint.splice(0).forEach((t) => t());
    expect(samples()).toBe(3);
    lens.dispose();
  });
});

describe('PageLens memory on a page that changes for ever', () => {
  it('keeps answers and classes for IPs that left the page only up to a bound', async () => {
    const { lens, runFlushes } = setup('<div id="live"></div>', { visible: () => [] });
    await lens.start();
    const live = document.getElementById('live')!;
    // 40 rounds of 500 new addresses replacing the previous ones: 20,000 distinct IPs seen.
    for (let round = 0; round < 40; round++) {
      live.innerHTML = Array.from({ length: 500 }, (_, i) => `<div>${ipAt(round * 500 + i)}</div>`).join('');
      await new Promise((r) => setTimeout(r, 0));
      runFlushes();
      await lens.idle();
      // Everything on the page was asked (the fake tracker reports nothing near: ask by hand).
      lens.askNow(Array.from({ length: 500 }, (_, i) => ipAt(round * 500 + i)));
      await lens.idle();
    }
    expect(lens.store.ipCount).toBe(500);
    expect(lens.rememberedIps).toBeLessThanOrEqual(500 + 5_000 + 500);
  });
});

describe('PageLens once a page that removed rows goes quiet', () => {
  afterEach(() => {
    vi.useRealTimers();
    document.body.replaceChildren();
  });

  // Classes of IPs that left were kept up to 5,000 beyond those on the page, and the
  // maps' tables stayed sized for the storm's peak.
  it('forgets the classes of IPs that left and resizes its maps, 3 s after the last removal', async () => {
    const classify = vi.fn(classifyIp);
    const { lens, vis, runFlushes } = setup('<div id="live"></div>', { visible: () => [], classifyIp: classify });
    await lens.start();
    const live = document.getElementById('live')!;
    const show = async (from: number, beforeFlush = () => {}, ask = true) => {
      live.innerHTML = Array.from({ length: 50 }, (_, i) => `<div>${ipAt(from + i)}</div>`).join('');
      await new Promise((r) => setTimeout(r, 0));
      beforeFlush();
      runFlushes();
      await lens.idle();
      if (ask) lens.askNow(Array.from({ length: 50 }, (_, i) => ipAt(from + i)));
      await lens.idle();
    };
    // Never answered (the fake tracker reports nothing near): their class is what is kept.
    await show(0, () => {}, false);
    for (let i = 0; i < 50; i++) lens.severityOfIp(ipAt(i));
    expect(classify).toHaveBeenCalledTimes(50);
    // The page's removal is seen (flushed) on the fake clock.
    await show(1_000, () => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] }));
    expect(lens.store.ipCount).toBe(50);
    // Not while the page may still be removing nodes.
    vi.advanceTimersByTime(2_000);
    expect(vis.compactions).toBe(0);
    vi.advanceTimersByTime(1_000);
    expect(vis.compactions).toBe(1);
    // The first 50 left: asked about again, they are classified again (their class was
    // dropped); the 50 on the page, answered, are not.
    classify.mockClear();
    for (let i = 0; i < 50; i++) lens.severityOfIp(ipAt(i));
    for (let i = 0; i < 50; i++) lens.severityOfIp(ipAt(1_000 + i));
    expect(classify).toHaveBeenCalledTimes(50);
    // Answers are kept (up to the usual bound): a returning IP keeps its colour.
    expect(lens.severityOfIp(ipAt(1_000))).not.toBe('pending');
    lens.dispose();
  });
});

// live12: a subtree observer over a live tail made Blink build the render's 20,000
// records inside the page's render task (render CPU 28 ms alone, 48-52 ms observed); after two
// re-renders the list is observed by its window around the screen, the rest read every 5 s.
describe('PageLens on a live tail observed by its window', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('reads the window’s re-rendered rows in the frame, the others at the re-read; the window follows the screen', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const doc = document.implementation.createHTMLDocument('tail');
    const afterPaint: (() => void)[] = [];
    const list = () => [...doc.querySelectorAll('li')];
    let screen = [100, 101, 102];
    const { lens, runFlushes } = setup(`<ul>${Array.from({ length: 400 }, (_, i) => row(i)).join('')}</ul>`, {
      doc,
      visible: () => screen.map((i) => list()[i]!),
      afterPaint: (t) => afterPaint.push(t),
    });
    await lens.start();
    /** A render a second later (1,200 records): row i's address is `ipAt(i + 1,000 k)`; its frame and the tasks after it. */
    const render = async (k: number) => {
      vi.advanceTimersByTime(1_000);
      list().forEach((li, i) => {
        li.children[0]!.textContent = `12:0${k}:${i}`;
        li.children[1]!.textContent = ipAt(i + 1_000 * k);
        li.children[2]!.textContent = `msg ${k}`;
      });
      await Promise.resolve();
      runFlushes();
      while (afterPaint.length) afterPaint.shift()!();
      await lens.idle();
    };
    await render(1);
    await render(2);
    expect(lens.store.countOf(ipAt(2_399))).toBe(1);
    // From the third render on, the rows far from the screen are not read in it.
    await render(3);
    expect(lens.store.countOf(ipAt(3_101))).toBe(1);
    expect(lens.store.countOf(ipAt(3_399))).toBe(0);
    // The re-read: every row, and what the rows held before swept.
    vi.advanceTimersByTime(5_000);
    await lens.idle();
    expect(lens.store.countOf(ipAt(3_399))).toBe(1);
    expect(lens.store.countOf(ipAt(2_399))).toBe(0);
    expect(lens.store.occurrenceCount).toBe(400);
    // The analyst scrolls to row 300: its rows are observed from the next sample on.
    screen = [300, 301, 302];
    doc.dispatchEvent(new Event('scroll'));
    vi.advanceTimersByTime(300);
    runFlushes();
    while (afterPaint.length) afterPaint.shift()!();
    await render(4);
    expect(lens.store.countOf(ipAt(4_301))).toBe(1);
    expect(lens.store.countOf(ipAt(4_101))).toBe(0);
    lens.dispose();
  });
});
