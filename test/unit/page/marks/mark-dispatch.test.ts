// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest';
import type { LookupResult } from '@/lib/lookup/types';
import { Highlighter } from '@/lib/page/marks/highlighter';
import { markDispatch } from '@/lib/page/marks/mark-dispatch';
import { pageAnswers } from '@/lib/page/lookups/page-answers';
import { emptyChange, FarText, OccurrenceStore, type Occurrence } from '@/lib/page/occurrences/occurrence-store';
import { DEFAULT_THRESHOLDS } from '@/lib/severity';
import { fakeHighlighterEnv, fakeRangeFactory, fakeTracker } from '../dom-fakes';

const match = (ip: string, start = 0) => ({ ip, version: 4 as const, start, end: start + ip.length });

function setup(opts: { staticStyles?: boolean } = {}) {
  const store = new OccurrenceStore(fakeRangeFactory);
  // Mark changes wait for a paint batch the test never runs: only an explicit paint shows them.
  const env = { ...fakeHighlighterEnv(), schedulePaint: () => {} };
  const highlighter = new Highlighter(env);
  const asked: { ips: string[]; priority: string }[] = [];
  const heard: string[][] = [];
  let checks = 0;
  let schedules = 0;
  const vis = fakeTracker<Occurrence>();
  const trackRowCalls: [Element, number][] = [];
  const tracker = vis.create({
    onNear: (occs, nearness) => marks.showNear(occs, nearness),
    onFar: (occs) => marks.hideFar(occs),
  });
  const trackRow = tracker.trackRow.bind(tracker);
  tracker.trackRow = (row, texts) => {
    trackRowCalls.push([row, texts]);
    trackRow(row, texts);
  };
  const answers = pageAnswers(
    (ip) => (ip.startsWith('10.') ? 'private' : 'public'),
    () => ({ thresholds: DEFAULT_THRESHOLDS, sendPrivate: false }),
    {
      send: async (ips, priority) => {
        asked.push({ ips, priority: priority ?? '' });
        return { ok: true, value: ips.map((ip): LookupResult => ({ ip, status: 'not-found', fetchedAt: 1 })) };
      },
      onResults: (results) => marks.applyResults(results),
    },
  );
  const listeners = new Set([(ips: ReadonlySet<string>) => void heard.push([...ips])]);
  const marks = markDispatch(
    store,
    highlighter,
    tracker,
    answers,
    { check: () => void checks++ },
    { schedule: () => void schedules++ },
    listeners,
    document,
    opts.staticStyles,
    'underline',
  );
  /** A text in its own element, read into the store: the change it made. */
  const read = (text: string, ips: string[]) => {
    const el = document.createElement('td');
    el.textContent = text;
    document.body.append(el);
    const change = emptyChange();
    store.setMatches(el.firstChild as Text, ips.map((ip) => match(ip, text.indexOf(ip))), change);
    return { el, change, occs: change.added };
  };
  const markOf = (occ: Occurrence) => (occ.range ? highlighter.severityOf(occ.range) : undefined);
  const painted = (severity: string, occ: Occurrence) => env.names.get(`ip-rep-${severity}`)?.has(occ.range!) ?? false;
  return { store, highlighter, answers, marks, vis, asked, heard, trackRowCalls, read, markOf, painted, counts: () => ({ checks, schedules }) };
}

afterEach(() => {
  document.body.replaceChildren();
  document.adoptedStyleSheets = [];
});

describe('markDispatch', () => {
  it('marks added text at once where its element is already on screen, paints it in that frame and asks its IP as visible', async () => {
    const t = setup();
    const first = t.read('8.8.8.8', ['8.8.8.8']);
    t.marks.applyChange(first.change);
    t.vis.reveal([first.el]);
    // Its element is known visible: text a re-render puts there is marked without waiting for an observer.
    const again = emptyChange();
    t.store.setMatches(first.el.firstChild as Text, [match('8.8.8.8'), match('8.8.4.4', 8)], again);
    t.marks.applyChange(again);
    const added = again.added.find((o) => o.ip === '8.8.4.4')!;
    expect(t.markOf(added)).toBe('pending');
    expect(t.painted('pending', added)).toBe(true);
    expect(t.counts()).toEqual({ checks: 2, schedules: 2 });
    await t.answers.queue.idle();
    expect(t.asked).toEqual([{ ips: ['8.8.8.8', '8.8.4.4'], priority: 'visible' }]);
    expect(t.markOf(added)).toBe('unknown');
  });

  it('leaves far text unmarked until it comes near, and takes the mark away when it goes far again', () => {
    const t = setup();
    const { el, change, occs } = t.read('1.1.1.1 and 10.0.0.1', ['1.1.1.1', '10.0.0.1']);
    t.marks.applyChange(change);
    expect(occs.map(t.markOf)).toEqual([undefined, undefined]);
    t.vis.reveal([el], 'near');
    // A private address is never asked: its mark says so.
    expect(occs.map(t.markOf)).toEqual(['pending', 'skipped']);
    t.vis.hide([el]);
    expect(occs.map(t.markOf)).toEqual([undefined, undefined]);
  });

  it('asks near text in the background and visible text first', async () => {
    const t = setup();
    const near = t.read('2.2.2.2', ['2.2.2.2']);
    const seen = t.read('3.3.3.3', ['3.3.3.3']);
    t.marks.applyChange(near.change);
    t.marks.applyChange(seen.change);
    t.vis.reveal([near.el], 'near');
    // Near but hidden marks wait for the paint batch; those on screen are painted at once.
    expect(t.painted('pending', near.occs[0]!)).toBe(false);
    t.vis.reveal([seen.el], 'visible');
    expect(t.painted('pending', seen.occs[0]!)).toBe(true);
    await t.answers.queue.idle();
    expect(t.asked).toEqual([
      { ips: ['3.3.3.3'], priority: 'visible' },
      { ips: ['2.2.2.2'], priority: 'background' },
    ]);
  });

  it('paints a mark coming on screen only if it is not painted yet: one painted while near costs no paint', () => {
    const t = setup();
    const early = t.read('5.5.5.5', ['5.5.5.5']);
    const late = t.read('6.6.6.6', ['6.6.6.6']);
    t.marks.applyChange(early.change);
    t.marks.applyChange(late.change);
    t.vis.reveal([early.el], 'near');
    t.highlighter.paint();
    t.vis.reveal([late.el], 'near');
    // Every frame that changes a highlight costs the browser work in proportion to the page:
    // the early mark, painted while near, sets off no paint of the late one waiting.
    t.vis.reveal([early.el], 'visible');
    expect(t.painted('pending', early.occs[0]!)).toBe(true);
    expect(t.painted('pending', late.occs[0]!)).toBe(false);
    t.vis.reveal([late.el], 'visible');
    expect(t.painted('pending', late.occs[0]!)).toBe(true);
  });

  it('drops the mark and the tracking of removed text', () => {
    const t = setup();
    const { el, change, occs } = t.read('4.4.4.4', ['4.4.4.4']);
    t.marks.applyChange(change);
    t.vis.reveal([el]);
    expect(t.markOf(occs[0]!)).toBe('pending');
    const gone = emptyChange();
    t.store.forgetNode(el.firstChild!, gone);
    t.marks.applyChange(gone);
    expect(t.highlighter.severityOf(occs[0]!.range!)).toBeUndefined();
    expect(t.vis.tracked.get(el)?.size ?? 0).toBe(0);
  });

  it('tracks far texts with one call per row, counting its texts', () => {
    const t = setup();
    const [a, b] = [document.createElement('tr'), document.createElement('tr')];
    const change = emptyChange();
    change.farAdded.push(new FarText([match('5.5.5.5')], a), new FarText([match('5.5.5.6')], a), new FarText([match('5.5.5.7')], b));
    t.marks.applyChange(change);
    expect(t.trackRowCalls).toEqual([
      [a, 2],
      [b, 1],
    ]);
    const left = emptyChange();
    left.farRemoved.push(new FarText([match('5.5.5.7')], b));
    t.marks.applyChange(left);
    expect(t.vis.farRows.has(b)).toBe(false);
    expect(t.vis.farRows.get(a)).toBe(2);
  });

  it('recolours the marks shown when answers come, leaves far ones for when they come near, and tells the listeners', () => {
    const t = setup();
    const shown = t.read('6.6.6.6', ['6.6.6.6']);
    const far = t.read('6.6.6.6', ['6.6.6.6']);
    t.marks.applyChange(shown.change);
    t.marks.applyChange(far.change);
    t.vis.reveal([shown.el]);
    // The far one has a range of its own only once it was near; give it one as a scroll away would.
    t.vis.reveal([far.el], 'near');
    t.vis.hide([far.el]);
    const before = t.counts().schedules;
    t.answers.queue.put({ ip: '6.6.6.6', status: 'not-found', fetchedAt: 1 });
    expect(t.markOf(shown.occs[0]!)).toBe('unknown');
    expect(t.painted('unknown', shown.occs[0]!)).toBe(true);
    expect(t.markOf(far.occs[0]!)).toBeUndefined();
    expect(t.heard).toEqual([['6.6.6.6']]);
    expect(t.counts().schedules).toBe(before + 1);
  });

  it('adopts the document sheet with the first mark, unless marks.css underlines already; a style change adopts it', () => {
    const withCss = setup({ staticStyles: true });
    const a = withCss.read('7.7.7.7', ['7.7.7.7']);
    withCss.marks.applyChange(a.change);
    expect(document.adoptedStyleSheets).toEqual([]);
    withCss.vis.reveal([a.el]);
    expect(document.adoptedStyleSheets).toEqual([]);
    withCss.marks.setStyle('background');
    expect(document.adoptedStyleSheets.length).toBe(1);
    document.adoptedStyleSheets = [];

    const without = setup({ staticStyles: false });
    // Before any mark, a style change adopts nothing: the first mark decides.
    without.marks.setStyle('underline');
    expect(document.adoptedStyleSheets).toEqual([]);
    const b = without.read('7.7.7.8', ['7.7.7.8']);
    without.marks.applyChange(b.change);
    without.vis.reveal([b.el]);
    expect(document.adoptedStyleSheets.length).toBe(1);
  });
});
