// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_WINDOW_ROWS, observationPlan, STORM_ENTER_MS, STORM_QUIET_MS, stormWatch, SUBTREE, windowRows } from '@/lib/page/changes/storm-watch';

const CHILDREN = { childList: true };
const TEXT = { characterData: true };

/** body > [text, h1, section > [text, #storm, p], text] */
function page() {
  document.body.innerHTML = ' <h1>Title</h1><section> <div id="storm"></div><p>1.2.3.4</p></section> ';
  const section = document.querySelector('section')!;
  const storm = document.getElementById('storm')!;
  return { section, storm, h1: document.querySelector('h1')!, p: document.querySelector('p')! };
}

describe('observationPlan (what is observed while a container storms)', () => {
  afterEach(() => {
    document.body.replaceChildren();
  });

  it('observes not the container, its ancestors childList only, everything else as before', () => {
    const { section, storm, h1, p } = page();
    const { calls, path } = observationPlan([document], [storm]);
    const plan = new Map(calls);
    // One registration per node.
    expect(plan.size).toBe(calls.length);
    expect(plan.has(storm)).toBe(false);
    for (const ancestor of [section, document.body, document.documentElement, document]) expect(plan.get(ancestor)).toEqual(CHILDREN);
    expect([...path]).toEqual([section, document.body, document.documentElement, document]);
    // The ancestors' other children: elements with the full options, text characterData.
    for (const other of [h1, p, document.head]) expect(plan.get(other)).toEqual(SUBTREE);
    for (const text of [document.body.firstChild!, document.body.lastChild!, section.firstChild!]) expect(plan.get(text)).toEqual(TEXT);
    // Nothing under the container, nor with subtree above it.
    expect(calls.filter(([, options]) => options.subtree).every(([node]) => !node.contains(storm))).toBe(true);
  });

  it('is every root with the full options when nothing storms, or when around would take too many calls', () => {
    const { storm } = page();
    const host = document.createElement('div');
    const shadow = host.attachShadow({ mode: 'open' });
    expect(observationPlan([document, shadow], [])).toEqual({ calls: [[document, SUBTREE], [shadow, SUBTREE]], path: new Set() });
    for (let i = 0; i < 300; i++) document.body.append(document.createElement('span'));
    expect(observationPlan([document, shadow], [storm])).toEqual({ calls: [[document, SUBTREE], [shadow, SUBTREE]], path: new Set() });
  });

  it('leaves out a container inside another storming one, or under no root observed', () => {
    const { section, storm } = page();
    const inner = storm.appendChild(document.createElement('div'));
    const detached = document.createElement('div');
    const { calls } = observationPlan([document], [inner, storm, detached]);
    const plan = new Map(calls);
    expect(plan.has(storm)).toBe(false);
    expect(plan.has(inner)).toBe(false);
    expect(plan.has(detached)).toBe(false);
    expect(plan.get(section)).toEqual(CHILDREN);
  });

  it('observes around a container in a shadow root; other roots as before', () => {
    const { section } = page();
    const host = section.appendChild(document.createElement('div'));
    const shadow = host.attachShadow({ mode: 'open' });
    const storm = shadow.appendChild(document.createElement('div'));
    const aside = shadow.appendChild(document.createElement('aside'));
    const plan = new Map(observationPlan([document, shadow], [storm]).calls);
    expect(plan.get(document)).toEqual(SUBTREE);
    expect(plan.get(shadow)).toEqual(CHILDREN);
    expect(plan.get(aside)).toEqual(SUBTREE);
    expect(plan.size).toBe(3);
  });
});

// live12: a live tail observed by its window around the screen.
describe('observationPlan with a tail, and its window', () => {
  afterEach(() => {
    document.body.replaceChildren();
  });

  function list(rows: number) {
    const ol = document.body.appendChild(document.createElement('ol'));
    for (let i = 0; i < rows; i++) ol.appendChild(document.createElement('li')).appendChild(document.createElement('span')).textContent = `row ${i}`;
    return { ol, rows: [...ol.children] };
  }

  it('observes the tail childList only and its window rows with the full options, around it as a storm', () => {
    const { section, h1 } = page();
    const { ol, rows } = list(10);
    const stray = document.createElement('li');
    const plan = new Map(observationPlan([document], [], undefined, [ol, [rows[3]!, rows[4]!, stray]]).calls);
    expect(plan.get(ol)).toEqual(CHILDREN);
    expect(plan.get(rows[3]!)).toEqual(SUBTREE);
    expect(plan.get(rows[4]!)).toEqual(SUBTREE);
    // Not the other rows, nor a row no longer in the list.
    expect(plan.has(rows[0]!)).toBe(false);
    expect(plan.has(stray)).toBe(false);
    for (const ancestor of [document.body, document.documentElement, document]) expect(plan.get(ancestor)).toEqual(CHILDREN);
    for (const other of [h1, section, document.head]) expect(plan.get(other)).toEqual(SUBTREE);
  });

  it('the window: the list’s children holding the rows on screen, and as many again (at least 20) above and below', () => {
    const { ol, rows } = list(200);
    // Cells of rows 100-109 on screen (in no particular order): within 10 + 20 rows of any of them.
    const screen = rows.slice(100, 110).reverse().map((row) => row.firstChild!);
    const window = windowRows(ol, screen);
    expect(window).toEqual(rows.slice(70, 131));
    expect(window).toEqual(expect.arrayContaining(rows.slice(80, 130)));
    // At the top: from the first row.
    expect(windowRows(ol, [rows[2]!])).toEqual(rows.slice(0, 24));
    // A row counts once however many of its cells are on screen (reported by the observers too).
    const cells = [rows[50]!, rows[50]!.firstChild!, rows[50]!.firstChild!.firstChild!];
    expect(windowRows(ol, cells)).toEqual(rows.slice(29, 72));
    // Nothing of it on screen: no window.
    expect(windowRows(ol, [document.body])).toEqual([]);
    const many = list(1_000).rows;
    expect(windowRows(many[0]!.parentNode!, many.slice(400, 700))).toHaveLength(MAX_WINDOW_ROWS);
  });
});

describe('stormWatch', () => {
  /** A watch on a hand-run clock; `run()` runs the timers due by then (all by default), in time order. */
  function watchOnClock() {
    const at = { clock: 0 };
    const timers: { run: () => void; due: number }[] = [];
    const events: string[] = [];
    const watch = stormWatch({
      now: () => at.clock,
      setTimer: (run, ms) => timers.push({ run, due: at.clock + ms }),
      onStorm: () => events.push('storm'),
      onQuiet: () => events.push('quiet'),
      onSettled: () => events.push('settled'),
    });
    const run = (until = Infinity) => {
      for (let next = nextDue(); next && next.due <= until; next = nextDue()) {
        timers.splice(timers.indexOf(next), 1);
        at.clock = Math.max(at.clock, next.due);
        next.run();
      }
    };
    const nextDue = () => [...timers].sort((a, b) => a.due - b.due)[0];
    return { at, timers, events, watch, run };
  }

  it('hands a rebuild over once no other came for 250 ms, never in the call that reports it', () => {
    const { at, events, watch, run } = watchOnClock();
    const root = document.createElement('div');
    watch(root);
    expect(events).toEqual([]);
    run(STORM_ENTER_MS - 1);
    expect(events).toEqual([]);
    run();
    expect(events).toEqual(['settled']);
    // A console re-rendering a big table a few times a second: each render read, none held back.
    for (let i = 0; i < 3; i++) {
      at.clock += 400;
      watch(root);
      run();
    }
    expect(events).toEqual(['settled', 'settled', 'settled', 'settled']);
  });

  it('says once when a container starts storming, and once when it is quiet; the storm’s first rebuild is never handed over', () => {
    const { at, events, watch, run } = watchOnClock();
    const root = document.createElement('div');
    watch(root);
    for (let i = 0; i < 5; i++) {
      at.clock += 16;
      watch(root);
    }
    expect(events).toEqual(['storm']);
    run();
    expect(events).toEqual(['storm', 'quiet']);
  });

  it('sees the storm go on in new children of the container, without being told of each rebuild', () => {
    const { at, timers, events, watch, run } = watchOnClock();
    const root = document.createElement('div');
    const rebuild = () => root.replaceChildren(document.createElement('p'), document.createElement('p'));
    rebuild();
    watch(root);
    at.clock += 16;
    rebuild();
    watch(root);
    // Rebuilt between every look (the observer no longer reports it): never quiet.
    for (let look = 0; look < 5; look++) {
      run(at.clock + STORM_QUIET_MS - 1);
      at.clock += STORM_QUIET_MS - 1;
      rebuild();
    }
    run(at.clock + STORM_QUIET_MS);
    expect(events).toEqual(['storm']);
    // Only the last row replaced: still a change (a rebuild that keeps its first row).
    root.lastChild!.replaceWith(document.createElement('p'));
    run(at.clock + STORM_QUIET_MS);
    expect(events).toEqual(['storm']);
    // Left alone: quiet at the look after the one that saw the last change.
    run();
    expect(events).toEqual(['storm', 'quiet']);
    expect(timers).toEqual([]);
  });
});
