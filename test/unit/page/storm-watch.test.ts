// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest';
import { observationPlan, stormWatch, SUBTREE } from '@/lib/page/storm-watch';

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

describe('stormWatch', () => {
  it('says once when a container starts storming, and once when it is quiet', () => {
    let clock = 0;
    const timers: (() => void)[] = [];
    const events: string[] = [];
    const storming = stormWatch({
      now: () => clock,
      setTimer: (run) => timers.push(run),
      onStorm: () => events.push('storm'),
      onQuiet: () => events.push('quiet'),
    });
    const root = document.createElement('div');
    expect(storming(root)).toBe(false);
    for (let i = 0; i < 5; i++) {
      clock += 16;
      expect(storming(root)).toBe(true);
    }
    expect(events).toEqual(['storm']);
    clock += 1_000;
    timers.shift()!();
    expect(events).toEqual(['storm', 'quiet']);
  });

  it('sees the storm go on in new children of the container, without being told of each rebuild', () => {
    let clock = 0;
    const timers: (() => void)[] = [];
    const quiet: Node[] = [];
    const storming = stormWatch({ now: () => clock, setTimer: (run) => timers.push(run), onStorm: () => {}, onQuiet: (root) => quiet.push(root) });
    const root = document.createElement('div');
    const rebuild = () => root.replaceChildren(document.createElement('p'), document.createElement('p'));
    rebuild();
    storming(root);
    clock += 16;
    rebuild();
    storming(root);
    // Rebuilt between every look (the observer no longer reports it): never quiet.
    for (let look = 0; look < 5; look++) {
      clock += 500;
      rebuild();
      timers.shift()!();
    }
    expect(quiet).toEqual([]);
    // Only the last row replaced: still a change (a rebuild that keeps its first row).
    clock += 500;
    root.lastChild!.replaceWith(document.createElement('p'));
    timers.shift()!();
    expect(quiet).toEqual([]);
    // Left alone: quiet at the look after the one that saw the last change.
    clock += 500;
    timers.shift()!();
    expect(quiet).toEqual([root]);
    expect(timers).toEqual([]);
  });
});
