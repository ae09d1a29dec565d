// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { classifyIp, findIps } from '@/lib/ip';
import type { LookupResult } from '@/lib/lookup/types';
import type { LookupSender } from '@/lib/page/lookups/lookup-queue';
import { PageLens } from '@/lib/page/page-lens';
import { DEFAULT_THRESHOLDS, type Severity } from '@/lib/severity';
import { eagerSlicer, fakeHighlighterEnv, fakeRangeFactory, fakeTracker, tinySlicer } from './dom-fakes';
import type { Occurrence } from '@/lib/page/occurrences/occurrence-store';
import type { PaintScheduler } from '@/lib/page/marks/paint-throttle';
import type { CaretLookup } from '@/lib/page/card/hit-test';

const found = (ip: string, score: number, extra: Partial<{ whitelisted: boolean; threatLevel: 'CRITICAL' | 'LOW' }> = {}): LookupResult => ({
  ip,
  status: 'found',
  fetchedAt: 1,
  data: {
    ip,
    score,
    threatLevel: extra.threatLevel ?? null,
    reputation: 'malicious',
    totalHits: 3,
    lastAttack: null,
    whitelisted: extra.whitelisted ?? false,
    whitelist: null,
    description: null,
  },
});

const DATA: Record<string, LookupResult> = {
  '185.220.101.1': found('185.220.101.1', 95),
  '45.33.32.156': found('45.33.32.156', 60),
  '8.8.8.8': found('8.8.8.8', 0),
  '1.1.1.1': found('1.1.1.1', 0, { whitelisted: true }),
};

/** Every lens a test made is disposed after it, so none of its timers fires into a torn-down window. */
const made: PageLens[] = [];
afterEach(() => {
  for (const lens of made.splice(0)) lens.dispose();
});

function setup(
  html: string,
  opts: {
    findIps?: typeof findIps;
    classifyIp?: typeof classifyIp;
    slicer?: typeof eagerSlicer;
    isOwnUi?: (el: Element) => boolean;
    staticStyles?: boolean;
    data?: () => Record<string, LookupResult>;
    schedulePaint?: PaintScheduler;
    /** The whole-page scan holds text of rows not near without occurrences (fakeTracker). */
    farRows?: boolean;
    caret?: CaretLookup;
    nextFrame?: () => Promise<void>;
  } = {},
) {
  document.body.innerHTML = html;
  const env = { ...fakeHighlighterEnv(), ...(opts.schedulePaint ? { schedulePaint: opts.schedulePaint } : {}) };
  const vis = fakeTracker<Occurrence>({ farRows: opts.farRows ?? false });
  const sent: { ips: string[]; priority: string }[] = [];
  const lookup: LookupSender = async (ips, priority) => {
    sent.push({ ips, priority });
    const data = opts.data?.() ?? DATA;
    return { ok: true, value: ips.map((ip) => data[ip] ?? { ip, status: 'not-found', fetchedAt: 1 }) };
  };
  let flushes: (() => void)[] = [];
  const summaries: string[][] = [];
  const lens = new PageLens({
    findIps: opts.findIps ?? findIps,
    classifyIp: opts.classifyIp ?? classifyIp,
    lookup,
    thresholds: DEFAULT_THRESHOLDS,
    markStyle: 'underline',
    sendPrivate: false,
    highlighterEnv: env,
    rangeFactory: fakeRangeFactory,
    slicer: opts.slicer ?? eagerSlicer,
    scheduleFlush: (f) => flushes.push(f),
    createTracker: vis.create,
    caret: opts.caret ?? (() => null),
    nextFrame: opts.nextFrame ?? (() => Promise.resolve()),
    onSummary: (c) => summaries.push(c),
    summaryDelayMs: 0,
    ...(opts.isOwnUi ? { isOwnUi: opts.isOwnUi } : {}),
    ...(opts.staticStyles !== undefined ? { staticStyles: opts.staticStyles } : {}),
  });
  made.push(lens);
  const names = (severity: Severity) =>
    // A highlight is registered with the first marks (highlighter.ts).
    [...(env.names.get(`ip-rep-${severity}`) ?? [])].map((r) => (r.startContainer as Text).data.slice(r.startOffset, r.endOffset)).sort();
  const runFlushes = () => {
    const f = flushes;
    flushes = [];
    f.forEach((x) => x());
  };
  const settle = async () => {
    await new Promise((r) => setTimeout(r, 0));
    runFlushes();
    await lens.idle();
  };
  return { lens, env, vis, sent, names, settle, summaries, runFlushes };
}

describe('PageLens', () => {
  afterEach(() => {
    document.body.replaceChildren();
  });

  it('marks text as it nears the viewport, asks public IPs only, on-screen ones first', async () => {
    const { lens, vis, sent, names } = setup(
      '<table><tr><td id="a">185.220.101.1</td><td id="p">10.1.2.3</td></tr><tr><td id="b">8.8.8.8 and 185.220.101.1</td></tr></table>',
    );
    await lens.start();
    // Scanned, but nothing near the viewport yet: no marks, no lookups.
    expect(lens.store.ipCount).toBe(3);
    expect(names('pending')).toEqual([]);
    vis.reveal([document.getElementById('p')!], 'visible');
    expect(names('skipped')).toEqual(['10.1.2.3']);
    expect(sent).toEqual([]);
    vis.reveal([document.getElementById('a')!], 'visible');
    expect(names('pending')).toEqual(['185.220.101.1']);
    await lens.idle();
    expect(sent).toEqual([{ ips: ['185.220.101.1'], priority: 'visible' }]);
    expect(names('critical')).toEqual(['185.220.101.1']);
    // The other row comes near later: the known IP is marked at once, the new one is asked.
    vis.reveal([document.getElementById('b')!], 'near');
    expect(names('critical')).toEqual(['185.220.101.1', '185.220.101.1']);
    await lens.idle();
    expect(sent[1]).toEqual({ ips: ['8.8.8.8'], priority: 'background' });
    expect(names('clean')).toEqual(['8.8.8.8']);
    // Scrolled far away: out of the highlights (they stay small), still known to the page list.
    vis.hide([document.getElementById('b')!]);
    expect(names('critical')).toEqual(['185.220.101.1']);
    expect(names('clean')).toEqual([]);
    expect(lens.pageIps().map((p) => p.ip)).toContain('8.8.8.8');
  });

  it("reads nothing before the page's next frame: its first layout and paint are the page's own", async () => {
    let frame!: () => void;
    const { lens } = setup('<p>185.220.101.1</p>', { nextFrame: () => new Promise<void>((r) => (frame = r)) });
    const started = lens.start();
    await new Promise((r) => setTimeout(r, 0));
    expect(lens.store.ipCount).toBe(0);
    // The popup asking meanwhile is told the list is not final.
    expect(lens.scanning).toBe(true);
    frame();
    await started;
    expect(lens.store.ipCount).toBe(1);
  });

  it('follows added rows, changed text and removed rows', async () => {
    const { lens, vis, names, settle } = setup('<ul id="list"><li>45.33.32.156</li></ul>');
    await lens.start();
    vis.reveal(vis.tracked.keys());
    await lens.idle();
    expect(names('high')).toEqual(['45.33.32.156']);

    const list = document.getElementById('list')!;
    const li = document.createElement('li');
    li.textContent = 'login from 1.1.1.1';
    list.append(li);
    await settle();
    vis.reveal(vis.tracked.keys());
    expect(names('pending')).toEqual(['1.1.1.1']);
    await lens.idle();
    expect(names('whitelisted')).toEqual(['1.1.1.1']);

    (li.firstChild as Text).data = 'login from 185.220.101.1';
    await settle();
    expect(names('whitelisted')).toEqual([]);
    // The element stayed near: its new IP was marked and asked straight away.
    expect(names('critical')).toEqual(['185.220.101.1']);

    list.firstElementChild!.remove();
    await settle();
    expect(names('high')).toEqual([]);
    expect(lens.store.countOf('45.33.32.156')).toBe(0);
    expect(lens.pageIps().map((p) => p.ip)).toEqual(['185.220.101.1']);
  });

  it('reads no rewritten relative age, and still drops an address a rewrite took away', async () => {
    const { lens, vis, settle, names } = setup('<table><tr><td id="age">5s ago</td><td id="src">10.1.2.3</td></tr></table>');
    await lens.start();
    vis.reveal(vis.tracked.keys(), 'visible');
    expect(names('skipped')).toEqual(['10.1.2.3']);
    const scanner = (lens as unknown as { scanner: { enqueue(node: Node): unknown } }).scanner;
    const enqueue = vi.spyOn(scanner, 'enqueue');
    const text = (id: string) => document.getElementById(id)!.firstChild as Text;
    text('age').data = '6s ago';
    await settle();
    text('src').data = '-';
    await settle();
    // The age was never queued to be read; the source, which held an address, was.
    expect(enqueue.mock.calls.map(([node]) => (node as Text).data)).toEqual(['-']);
    expect(names('skipped')).toEqual([]);
    expect(lens.store.ipCount).toBe(0);
  });

  it('text the page replaces far from the screen is read after the text on screen', async () => {
    const find = vi.fn(findIps);
    const { lens, vis, settle } = setup('<p id="far">at 8.8.8.8</p><p id="near">at 1.1.1.1</p>', { findIps: find, slicer: tinySlicer() });
    await lens.start();
    vis.reveal([document.getElementById('near')!]);
    await lens.idle();
    find.mockClear();
    document.getElementById('far')!.replaceChildren(document.createTextNode('at 8.8.4.4'));
    document.getElementById('near')!.replaceChildren(document.createTextNode('at 1.0.0.1'));
    await settle();
    expect(find.mock.calls.map(([text]) => text)).toEqual(['at 1.0.0.1', 'at 8.8.4.4']);
  });

  // A live tail re-renders every cell of every row, the IP-less ones too (its time
  // column). Those of rows far from the screen waited ahead of the rows on screen (they were
  // never tracked, so "unknown", so urgent): on a 5,000-event list, 5,000 of them a second.
  it('a re-rendered list reads the cells on screen first, also before the IP-less cells of far rows', async () => {
    const row = (i: number, minute: number) => `<li><span>12:${minute}:${10 + i}</span><span>45.33.${minute}.${i + 1}</span></li>`;
    const find = vi.fn(findIps);
    const { lens, vis, settle } = setup(`<ul id="list">${Array.from({ length: 12 }, (_, i) => row(i, 10)).join('')}</ul>`, {
      findIps: find,
      slicer: tinySlicer(),
    });
    await lens.start();
    const ipCells = [...document.querySelectorAll('li > span:last-child')];
    // The last row is on screen, the others far (tracked, known far).
    vis.reveal([ipCells[11]!]);
    await lens.idle();
    find.mockClear();
    // Rows keyed by position (React): every cell's text node is replaced, the elements stay.
    document.querySelectorAll('li').forEach((li, i) => {
      li.children[0]!.textContent = `12:11:${10 + i}`;
      li.children[1]!.textContent = `45.33.11.${i + 1}`;
    });
    await settle();
    const texts = find.mock.calls.map(([text]) => text);
    expect(texts[0]).toBe('45.33.11.12');
    // Then the rest of the row on screen, and only then the far rows' cells.
    expect(texts[1]).toBe('12:11:21');
    expect(texts).toHaveLength(24);
  });

  it('a list re-rendered with the same text costs no new finding work', async () => {
    const rows = '<li>login from 45.33.32.156</li><li>blocked 185.220.101.1</li><li>at 12:30:05</li>';
    const find = vi.fn(findIps);
    const { lens, vis, names, settle } = setup(`<ul id="list">${rows}</ul>`, { findIps: find });
    await lens.start();
    vis.reveal(vis.tracked.keys());
    await lens.idle();
    const calls = find.mock.calls.length;
    expect(calls).toBeGreaterThan(0);
    // A framework re-renders the whole list: new nodes, the same text.
    document.getElementById('list')!.innerHTML = rows;
    await settle();
    vis.reveal(vis.tracked.keys());
    await lens.idle();
    expect(find.mock.calls.length).toBe(calls);
    expect(names('high')).toEqual(['45.33.32.156']);
    expect(names('critical')).toEqual(['185.220.101.1']);
    // New text is still read.
    document.getElementById('list')!.insertAdjacentHTML('beforeend', '<li>from 8.8.8.8</li>');
    await settle();
    expect(find.mock.calls.length).toBe(calls + 1);
  });

  // A console re-renders a visible row, replacing its text nodes (React's
  // `textContent`). The cell never moved, so its new text is marked as soon as it is read,
  // with no new word from the observer; the old node's sweep must not make it unknown first.
  it('a re-render replacing the text nodes of a visible row keeps its marks without waiting for the observer', async () => {
    const { lens, vis, names, settle } = setup('<ul id="list"><li><span>185.220.101.1</span> <span>45.33.32.156</span></li></ul>');
    await lens.start();
    vis.reveal(vis.tracked.keys());
    await lens.idle();
    expect(names('critical')).toEqual(['185.220.101.1']);
    for (const span of document.querySelectorAll('span')) span.textContent = span.textContent!;
    await settle();
    expect(names('critical')).toEqual(['185.220.101.1']);
    expect(names('high')).toEqual(['45.33.32.156']);
    // The old nodes' ranges are gone: every mark is on text in the page.
    const all = ['critical', 'high'].flatMap((s) => [...lens.store.rangedOccurrencesOfIp(s === 'critical' ? '185.220.101.1' : '45.33.32.156')]);
    expect(all.every((o) => o.node.isConnected)).toBe(true);
  });

  // An element whose text node is replaced (textContent, a recycled
  // grid cell) was never told the old node's occurrences left (the old node has no parent then,
  // so its element was not known): it kept every occurrence it ever showed, and their nodes.
  it('a cell whose text node is replaced again and again keeps only its current occurrence', async () => {
    const { lens, vis, settle } = setup('<ul id="list"><li><span>185.220.101.1</span></li></ul>');
    await lens.start();
    const span = document.querySelector('span')!;
    for (const ip of ['45.33.32.156', '8.8.8.8', '1.1.1.1']) {
      span.textContent = ip;
      await settle();
    }
    expect([...vis.tracked.get(span)!].map((o) => o.ip)).toEqual(['1.1.1.1']);
    expect(lens.store.occurrenceCount).toBe(1);
  });

  // Bench page, grid: with every mark change waiting for the 100 ms paint batch, a
  // grid replacing its cells' text every scroll step showed marks in a fraction of its frames.
  it('paints marks on screen and their answers at once; marks near but off screen, and their answers, wait for the paint batch', async () => {
    const batches: (() => void)[] = [];
    const { lens, vis, env, names } = setup('<p id="a">185.220.101.1</p><p id="b">45.33.32.156</p>', {
      schedulePaint: (apply) => batches.push(apply),
    });
    await lens.start();
    const painted = () => [...env.names.values()].reduce((n, h) => n + h.size, 0);
    vis.reveal([document.getElementById('b')!], 'near');
    expect(painted()).toBe(0);
    // Its answer comes: no one can see it, so it waits for the batch with the near mark (every
    // frame that changes a highlight costs the browser work in proportion to the page).
    await lens.idle();
    expect(painted()).toBe(0);
    for (const batch of batches.splice(0)) batch();
    expect(names('high')).toEqual(['45.33.32.156']);
    // On screen: in the highlights at once, no batch run, and so is its answer.
    vis.reveal([document.getElementById('a')!], 'visible');
    expect(painted()).toBe(2);
    await lens.idle();
    expect(names('critical')).toEqual(['185.220.101.1']);
  });

  // The first badge summary classified every IP of the page in one task (30-40 ms on
  // the 10,000-row page). IPs without an answer cannot be risky; they are classified when they
  // come near, in the scan's slices.
  it('reports its risky IPs without classifying the IPs that have no answer yet', async () => {
    const classify = vi.fn(classifyIp);
    const rows = Array.from({ length: 50 }, (_, i) => `<p>from 198.51.${i}.7</p>`).join('');
    const { lens, vis, summaries } = setup(`<p id="a">185.220.101.1</p>${rows}`, { classifyIp: classify });
    await lens.start();
    vis.reveal([document.getElementById('a')!]);
    await lens.idle();
    await new Promise((r) => setTimeout(r, 5));
    expect(summaries.at(-1)).toEqual(['185.220.101.1']);
    expect(new Set(classify.mock.calls.map(([ip]) => ip))).toEqual(new Set(['185.220.101.1']));
    // The popup's page list still gives every IP its class.
    expect(lens.pageIps()).toHaveLength(51);
  });

  // Each summary still read every IP of the page (0.4-0.6 ms a summary on
  // the 10,000-row page, 4 a load) for the few near the screen that have an answer.
  it('reads only the answered IPs for the badge, leaving out those no longer on the page', async () => {
    const rows = Array.from({ length: 50 }, (_, i) => `<p>from 198.51.${i}.7</p>`).join('');
    const { lens, vis, summaries, settle } = setup(`<p id="a">185.220.101.1</p><p id="b">45.33.32.156</p>${rows}`);
    await lens.start();
    vis.reveal([document.getElementById('a')!, document.getElementById('b')!]);
    await lens.idle();
    await new Promise((r) => setTimeout(r, 5));
    expect(summaries.at(-1)).toEqual(['185.220.101.1', '45.33.32.156']);
    const pageIps = vi.spyOn(lens.store, 'ips');
    document.getElementById('b')!.remove();
    await settle();
    await new Promise((r) => setTimeout(r, 5));
    // Its answer is kept (it may come back), but it is no longer on the page.
    expect(summaries.at(-1)).toEqual(['185.220.101.1']);
    expect(pageIps).not.toHaveBeenCalled();
  });

  it('recolours live when thresholds change and reports its risky IPs for the badge when they change', async () => {
    const { lens, vis, names, summaries } = setup('<p>45.33.32.156</p><p>185.220.101.1 8.8.8.8</p><p>185.220.101.1</p>');
    await lens.start();
    vis.reveal(vis.tracked.keys());
    await lens.idle();
    await new Promise((r) => setTimeout(r, 5));
    // Each high or critical IP once, however often it occurs; clean ones are not risky.
    expect(summaries.at(-1)).toEqual(['185.220.101.1', '45.33.32.156']);
    const reports = summaries.length;
    lens.update({ thresholds: { critical: 55, high: 40, medium: 20, low: 0 } });
    expect(names('critical')).toEqual(['185.220.101.1', '185.220.101.1', '45.33.32.156']);
    expect(names('high')).toEqual([]);
    await new Promise((r) => setTimeout(r, 5));
    // Both still risky: nothing new to report.
    expect(summaries).toHaveLength(reports);
    lens.update({ thresholds: { critical: 99, high: 70, medium: 20, low: 0 } });
    await new Promise((r) => setTimeout(r, 5));
    expect(summaries.at(-1)).toEqual(['185.220.101.1']);
  });

  it('scans in slices and into open shadow roots; skips its own UI', async () => {
    const slicer = tinySlicer();
    const rows = Array.from({ length: 200 }, (_, i) => `<div>203.0.113.${i % 250} x</div>`).join('');
    const { lens, names, vis } = setup(`${rows}<x-widget></x-widget><ip-lens-card>9.9.9.9</ip-lens-card>`, {
      slicer,
      isOwnUi: (el) => el.tagName === 'IP-LENS-CARD',
    });
    const host = document.querySelector('x-widget')!;
    host.attachShadow({ mode: 'open' }).append('in shadow 185.220.101.1');
    await lens.start();
    vis.reveal(vis.tracked.keys());
    expect(slicer.pauses).toBeGreaterThan(1);
    // TEST-NET-3 addresses are documentation: skipped, never sent.
    expect(names('skipped').length).toBe(200);
    expect(names('pending')).toContain('185.220.101.1');
    expect(names('pending')).not.toContain('9.9.9.9');
    expect(host.shadowRoot!.adoptedStyleSheets.length).toBe(1);
  });

  it('lists page IPs riskiest first with counts and results', async () => {
    const { lens, vis } = setup('<p>8.8.8.8 8.8.8.8 185.220.101.1 192.168.1.1</p>');
    await lens.start();
    vis.reveal(vis.tracked.keys());
    await lens.idle();
    const ips = lens.pageIps();
    expect(ips.map((p) => [p.ip, p.count, p.result?.status])).toEqual([
      ['185.220.101.1', 1, 'found'],
      ['8.8.8.8', 2, 'found'],
      ['192.168.1.1', 1, 'skipped'],
    ]);
  });

  it('adopts no document sheet when the registered marks.css is there, until the style changes', async () => {
    document.adoptedStyleSheets = [];
    const { lens, vis } = setup('<p>185.220.101.1</p>', { staticStyles: true });
    await lens.start();
    vis.reveal(vis.tracked.keys());
    expect(document.adoptedStyleSheets).toEqual([]);
    lens.update({ markStyle: 'background' });
    expect(document.adoptedStyleSheets.length).toBe(1);
    lens.dispose();
    expect(document.adoptedStyleSheets).toEqual([]);
    const other = setup('<p>185.220.101.1</p>', { staticStyles: false });
    await other.lens.start();
    // Adopted with the first mark, not before.
    expect(document.adoptedStyleSheets).toEqual([]);
    other.vis.reveal(other.vis.tracked.keys());
    expect(document.adoptedStyleSheets.length).toBe(1);
    other.lens.dispose();
  });

  it('stops and removes its marks on dispose', async () => {
    const { lens, env, sent, settle, vis } = setup('<p>185.220.101.1</p>');
    await lens.start();
    lens.dispose();
    vis.reveal(vis.tracked.keys());
    expect(env.names.size).toBe(0);
    document.body.append('more 8.8.8.8');
    await settle().catch(() => {});
    expect(sent).toEqual([]);
  });
});

describe('PageLens settings', () => {
  afterEach(() => {
    document.body.replaceChildren();
  });

  it('asks private addresses on screen once the user allows sending them', async () => {
    document.body.innerHTML = '<p id="a">10.1.2.3</p><p id="b">192.168.0.9</p>';
    const vis = fakeTracker<Occurrence>();
    const sent: string[][] = [];
    const lens = new PageLens({
      findIps,
      classifyIp,
      lookup: async (ips) => {
        sent.push(ips);
        return { ok: true, value: ips.map((ip) => ({ ip, status: 'not-found' as const, fetchedAt: 1 })) };
      },
      thresholds: DEFAULT_THRESHOLDS,
      markStyle: 'underline',
      sendPrivate: false,
      highlighterEnv: fakeHighlighterEnv(),
      rangeFactory: fakeRangeFactory,
      slicer: eagerSlicer,
      scheduleFlush: () => {},
      createTracker: vis.create,
      caret: () => null,
      nextFrame: () => Promise.resolve(),
      staticStyles: true,
    });
    await lens.start();
    vis.reveal([document.getElementById('a')!]);
    expect(lens.severityOfIp('10.1.2.3')).toBe('skipped');
    lens.update({ sendPrivate: true });
    await lens.idle();
    expect(sent).toEqual([['10.1.2.3']]);
    expect(lens.severityOfIp('10.1.2.3')).toBe('unknown');
    expect(lens.severityOfIp('192.168.0.9')).toBe('pending');
    lens.dispose();
  });

  it('forgets every result when they go stale, and asks again what is near, on-screen first', async () => {
    // Another API server: other answers.
    let data = DATA;
    const other: Record<string, LookupResult> = { '185.220.101.1': found('185.220.101.1', 0) };
    const { lens, vis, sent, names } = setup(
      '<p id="a">185.220.101.1</p><p id="b">45.33.32.156</p><p id="c">8.8.8.8</p><p id="p">10.1.2.3</p>',
      { data: () => data },
    );
    await lens.start();
    const el = (id: string) => document.getElementById(id)!;
    vis.reveal([el('a'), el('p')], 'visible');
    vis.reveal([el('b')], 'near');
    vis.reveal([el('c')], 'visible');
    await lens.idle();
    vis.hide([el('c')]);
    expect(names('critical')).toEqual(['185.220.101.1']);
    expect(names('high')).toEqual(['45.33.32.156']);
    const told: string[][] = [];
    lens.onResults((ips) => told.push([...ips].sort()));
    const asked = sent.length;

    data = other;
    lens.resultsStale();
    // At once: no old answer is shown, on the page, in the card or in the page list.
    expect(names('pending')).toEqual(['185.220.101.1', '45.33.32.156']);
    expect(names('critical')).toEqual([]);
    expect(names('skipped')).toEqual(['10.1.2.3']);
    expect(told).toEqual([['185.220.101.1', '45.33.32.156', '8.8.8.8']]);
    expect(lens.resultOf('8.8.8.8')).toBeUndefined();
    expect(lens.pageIps().every((p) => p.result === undefined || p.result.status === 'skipped')).toBe(true);

    await lens.idle();
    expect(sent.slice(asked)).toEqual([
      { ips: ['185.220.101.1'], priority: 'visible' },
      { ips: ['45.33.32.156'], priority: 'background' },
    ]);
    expect(names('clean')).toEqual(['185.220.101.1']);
    expect(names('unknown')).toEqual(['45.33.32.156']);
    // Far away: asked again when it comes near, like any new IP.
    vis.reveal([el('c')], 'visible');
    await lens.idle();
    expect(sent.slice(asked + 2)).toEqual([{ ips: ['8.8.8.8'], priority: 'visible' }]);
  });
  it('marks IPs past the cap as capped, never like private ones, and lists them so', async () => {
    const capped = (ip: string, reason: 'page-cap' | 'site-cap'): LookupResult => ({ ip, status: 'skipped', reason, limit: 2 });
    const { lens, vis, names } = setup('<p id="r">185.220.101.1 9.9.9.9 4.4.4.4 10.1.2.3</p>', {
      data: () => ({ ...DATA, '9.9.9.9': capped('9.9.9.9', 'page-cap'), '4.4.4.4': capped('4.4.4.4', 'site-cap') }),
    });
    await lens.start();
    vis.reveal([document.getElementById('r')!], 'visible');
    await lens.idle();
    expect(names('critical')).toEqual(['185.220.101.1']);
    expect(names('capped')).toEqual(['4.4.4.4', '9.9.9.9']);
    expect(names('skipped')).toEqual(['10.1.2.3']);
    expect(lens.severityOfIp('9.9.9.9')).toBe('capped');
    expect(lens.severityOfIp('10.1.2.3')).toBe('skipped');
    expect(lens.pageIps().find((p) => p.ip === '4.4.4.4')?.result).toEqual(capped('4.4.4.4', 'site-cap'));
  });

  // Nearly all of a big page's text is far and never marked. The whole-page scan
  // holds it without occurrences or tracked cells (its row is tracked), and reads a row again
  // fully when it comes near.
  describe('text far from the viewport', () => {
    const ROWS = ['185.220.101.1', '45.33.32.156 and 8.8.8.8', '8.8.8.8', '10.1.2.3', 'no address', '1.1.1.1', '45.33.32.156', '8.8.4.4', '9.9.9.9', '185.220.101.1'];
    const html = () => `<ul id="list">${ROWS.map((t, i) => `<li id="r${i}"><span>12:00:0${i}</span> <b>${t}</b></li>`).join('')}</ul>`;
    const row = (i: number) => document.getElementById(`r${i}`)!;
    const textOf = (i: number) => row(i).querySelector('b')!.firstChild as Text;

    /** How often each IP occurs in the page's text now, read afresh. */
    function pageCounts(): Record<string, number> {
      const counts: Record<string, number> = {};
      const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        for (const m of findIps((n as Text).data)) counts[m.ip] = (counts[m.ip] ?? 0) + 1;
      }
      return counts;
    }
    const lensCounts = (lens: PageLens) => Object.fromEntries(lens.pageIps().map((p) => [p.ip, p.count]));
    /** Row i comes near (read fully: its IP cell tracked) and that cell onto the screen. */
    async function bringOnScreen(lens: PageLens, vis: ReturnType<typeof setup>['vis'], i: number): Promise<void> {
      vis.rowsNear([row(i)]);
      await lens.idle();
      const cell = row(i).querySelector('b')!;
      expect([...vis.tracked.keys()]).toEqual([cell]);
      vis.reveal([cell], 'visible');
    }

    it('holds far text without occurrences or tracked cells, and counts every IP', async () => {
      const { lens, vis, sent } = setup(html(), { farRows: true });
      await lens.start();
      expect(vis.tracked.size).toBe(0);
      expect(lens.store.occurrencesOfNode(textOf(1))).toEqual([]);
      expect([...vis.farRows.keys()]).toHaveLength(9);
      expect(lensCounts(lens)).toEqual(pageCounts());
      expect(lens.store.countOf('8.8.8.8')).toBe(2);
      expect(sent).toEqual([]);
    });

    it('marks a far row that comes near, asks its IPs, and hit-tests and recolours it', async () => {
      let caretAt: { node: Node; offset: number } | null = null;
      const { lens, vis, sent, names } = setup(html(), { farRows: true, caret: () => caretAt });
      await lens.start();
      await bringOnScreen(lens, vis, 1);
      expect(names('pending').sort()).toEqual(['45.33.32.156', '8.8.8.8']);
      await lens.idle();
      expect(sent).toEqual([{ ips: ['45.33.32.156', '8.8.8.8'], priority: 'visible' }]);
      expect(names('high')).toEqual(['45.33.32.156']);
      expect(names('clean')).toEqual(['8.8.8.8']);
      // The row read again fully is no longer held far: counts are unchanged.
      expect(vis.farRows.has(row(1))).toBe(false);
      expect(lensCounts(lens)).toEqual(pageCounts());
      caretAt = { node: textOf(1), offset: 2 };
      vi.spyOn(Range.prototype, 'getClientRects').mockReturnValue([{ left: 0, right: 100, top: 0, bottom: 20 }] as unknown as DOMRectList);
      expect(lens.hitTest(10, 10)?.ip).toBe('45.33.32.156');
      vi.restoreAllMocks();
    });

    it('keeps counts right when far rows change, leave, or are re-rendered, and reads a re-rendered row from its new text', async () => {
      const { lens, vis, names, settle } = setup(html(), { farRows: true });
      await lens.start();
      textOf(2).data = '8.8.4.4 twice 8.8.4.4';
      row(6).remove();
      // A re-render: the cell's text node replaced.
      row(9).querySelector('b')!.textContent = '1.1.1.1';
      await settle();
      expect(lens.store.countOf('8.8.8.8')).toBe(1);
      expect(lens.store.countOf('8.8.4.4')).toBe(3);
      expect(lens.store.countOf('185.220.101.1')).toBe(1);
      expect(lensCounts(lens)).toEqual(pageCounts());
      expect(vis.tracked.size).toBe(0);
      expect(vis.farRows.has(row(6))).toBe(false);
      vis.rowsNear([row(9)]);
      await lens.idle();
      vis.reveal(vis.tracked.keys(), 'visible');
      await lens.idle();
      expect(names('critical')).toEqual([]);
      expect(names('whitelisted')).toEqual(['1.1.1.1']);
      expect(lensCounts(lens)).toEqual(pageCounts());
    });

    it('reads text fully when its row is near, and urgent text always', async () => {
      const { lens, vis, settle } = setup(html(), { farRows: true });
      await lens.start();
      vis.rowsNear([row(3)]);
      await lens.idle();
      // A row the page adds, never placed yet, is urgent: read fully.
      const b = document.createElement('li');
      b.textContent = '8.8.8.8';
      row(7).after(b);
      // Text replaced in a near row: read fully.
      row(3).querySelector('b')!.textContent = '9.9.9.9';
      await settle();
      expect(lens.store.occurrencesOfNode(b.firstChild as Text).map((o) => o.ip)).toEqual(['8.8.8.8']);
      expect(lens.store.occurrencesOfNode(textOf(3)).map((o) => o.ip)).toEqual(['9.9.9.9']);
      expect(lensCounts(lens)).toEqual(pageCounts());
    });

    // A row of plain cells far from the viewport is not even read at load.
    describe('plain rows, held unread', () => {
      const plain = () => `<ul id="list">${ROWS.map((t, i) => `<li id="r${i}"><b>${t}</b> <i>12:00:0${i}</i></li>`).join('')}</ul>`;

      it('reads none of their text at load, then every row when the popup asks for the list', async () => {
        const { lens, vis, sent } = setup(plain(), { farRows: true });
        await lens.start();
        expect(lens.store.unreadRows).toBe(10);
        expect(lens.store.ipCount).toBe(0);
        // Each row tracked, to be read when it comes near.
        expect([...vis.farRows.keys()]).toEqual(ROWS.map((_, i) => row(i)));
        expect(lens.scanning).toBe(false);
        // The popup's list: a small page is read whole in the request's own slice.
        expect(lensCounts(lens)).toEqual(pageCounts());
        expect(lens.scanning).toBe(false);
        expect(lens.store.unreadRows).toBe(0);
        expect(vis.tracked.size).toBe(0);
        // Rows without an address are let go; the rest stay tracked by row, held far.
        expect([...vis.farRows.keys()]).toEqual(ROWS.map((_, i) => row(i)).filter((_, i) => i !== 4));
        expect(sent).toEqual([]);
      });

      it('says it is still scanning while a bigger page is read in slices, and the list grows to all', async () => {
        const many = Array.from({ length: 300 }, (_, i) => `<li><b>10.9.${i >> 8}.${i & 255}</b> <i>x</i></li>`).join('');
        const { lens } = setup(`<ul>${many}</ul>`, { farRows: true, slicer: tinySlicer() });
        await lens.start();
        expect(lens.store.unreadRows).toBe(300);
        const first = lens.pageIps();
        expect(lens.scanning).toBe(true);
        expect(first.length).toBeLessThan(Object.keys(pageCounts()).length);
        // Asked again meanwhile (the popup refreshes): one read, not two.
        lens.pageIps();
        await lens.idle();
        expect(lens.scanning).toBe(false);
        expect(lensCounts(lens)).toEqual(pageCounts());
      });

      it('marks a held row that comes near, and forgets one the page removes', async () => {
        const { lens, vis, sent, names } = setup(plain(), { farRows: true });
        await lens.start();
        await bringOnScreen(lens, vis, 1);
        await lens.idle();
        expect(sent).toEqual([{ ips: ['45.33.32.156', '8.8.8.8'], priority: 'visible' }]);
        expect(names('high')).toEqual(['45.33.32.156']);
        expect(vis.farRows.has(row(1))).toBe(false);
        expect(lens.store.unreadRows).toBe(9);
        row(6).remove();
        await new Promise((r) => setTimeout(r, 0));
        await lens.idle();
        expect(lens.store.unreadRows).toBe(8);
        expect(vis.farRows.has(row(6))).toBe(false);
        expect(lensCounts(lens)).toEqual(pageCounts());
      });

      it('reads a held row the page changes while it is far, and counts its new text when the list is asked', async () => {
        const { lens, settle } = setup(plain(), { farRows: true });
        await lens.start();
        row(2).querySelector('b')!.textContent = '1.1.1.1';
        await settle();
        // The new text is read; the row, still unread as a whole, is read with the list.
        expect(lens.store.countOf('1.1.1.1')).toBe(1);
        expect(lens.store.unreadRows).toBe(10);
        expect(lensCounts(lens)).toEqual(pageCounts());
        expect(lens.store.countOf('1.1.1.1')).toBe(2);
        expect(lens.store.countOf('8.8.8.8')).toBe(1);
        expect(lens.store.unreadRows).toBe(0);
      });
    });
  });
});
