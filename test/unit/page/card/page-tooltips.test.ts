// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { pageTooltipsFor } from '@/lib/page/card/page-tooltips';

/** happy-dom has no layout: elements get the box a browser would give them, shown or not. */
function boxed<T extends Element>(el: T, shown: () => boolean = () => true): T {
  el.getBoundingClientRect = () => (shown() ? new DOMRect(10, 20, 200, 40) : new DOMRect(0, 0, 0, 0));
  return el;
}

function grid() {
  document.body.innerHTML = '<div id="row"><div id="cell">185.220.101.1</div></div><div id="note" hidden>Row note</div>';
  const cell = document.getElementById('cell')!;
  const note = document.getElementById('note')!;
  boxed(note, () => !note.hidden);
  return { cell, text: cell.firstChild!, note };
}

describe('page tooltips for the hovered text', () => {
  afterEach(() => {
    document.body.replaceChildren();
    vi.useRealTimers();
  });

  it('finds a visible role=tooltip, and not a hidden one', () => {
    const { text } = grid();
    const tip = boxed(document.createElement('div'));
    tip.setAttribute('role', 'tooltip');
    const hidden = boxed(document.createElement('div'), () => false);
    hidden.setAttribute('role', 'tooltip');
    document.body.append(tip, hidden);
    const tooltips = pageTooltipsFor({ doc: document, target: text, isOwnUi: () => false });
    expect(tooltips.elements()).toEqual([tip]);
  });

  it("finds what aria-describedby on the text's element or an ancestor names, once shown", () => {
    const { cell, text, note } = grid();
    const tooltips = pageTooltipsFor({ doc: document, target: text, isOwnUi: () => false });
    document.getElementById('row')!.setAttribute('aria-describedby', 'missing note');
    expect(tooltips.elements()).toEqual([]);
    note.hidden = false;
    expect(tooltips.elements()).toEqual([note]);
    document.getElementById('row')!.removeAttribute('aria-describedby');
    cell.setAttribute('aria-describedby', 'note');
    expect(tooltips.elements()).toEqual([note]);
  });

  it('never counts our own card, nor a tooltip that holds the hovered text', () => {
    const { text } = grid();
    const ours = boxed(document.createElement('div'));
    ours.setAttribute('role', 'tooltip');
    document.body.append(ours);
    const holder = boxed(document.getElementById('row')!);
    holder.setAttribute('role', 'tooltip');
    const tooltips = pageTooltipsFor({ doc: document, target: text, isOwnUi: (el) => el === ours });
    expect(tooltips.elements()).toEqual([]);
  });

  it('tells the watcher when a tooltip appears or goes, once a frame, and stops when asked', async () => {
    const { cell, text, note } = grid();
    const tooltips = pageTooltipsFor({ doc: document, target: text, isOwnUi: () => false });
    const changes = vi.fn();
    const stop = tooltips.watch(changes);
    const frame = () => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));

    // Shown by attributes, as a describedby tooltip is: several mutations, one call.
    cell.setAttribute('aria-describedby', 'note');
    note.hidden = false;
    await frame();
    expect(changes).toHaveBeenCalledTimes(1);

    // Unrelated churn (a live console re-rendering) calls nothing.
    cell.className = 'selected';
    document.body.append(document.createElement('span'));
    await frame();
    expect(changes).toHaveBeenCalledTimes(1);

    note.hidden = true;
    await frame();
    expect(changes).toHaveBeenCalledTimes(2);

    stop();
    note.hidden = false;
    await frame();
    expect(changes).toHaveBeenCalledTimes(2);
  });
});
