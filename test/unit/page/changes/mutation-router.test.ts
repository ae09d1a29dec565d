// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest';
import { routeTouched } from '@/lib/page/changes/mutation-router';
import type { MutationBatch } from '@/lib/page/changes/mutation-queue';
import { listItemOf, type Nearness } from '@/lib/page/nearness/near-tracker';

type Where = Nearness | 'far' | 'unknown';

/** A tracker that knows where some elements are, and a scanner that records its queue. */
function route(batch: Partial<MutationBatch>, where: Map<Element, Where>, screenRows: Element[] = []) {
  const queued: [Node, string][] = [];
  const relocated: Element[] = [];
  let batches = 0;
  let inBatch = false;
  routeTouched(
    { touched: [], removed: false, removedNodes: [], ...batch },
    { relocate: (el) => void relocated.push(el), nearnessOf: (el) => where.get(el) ?? 'unknown' },
    { rows: new Set(screenRows) },
    {
      batch: (fill) => {
        batches++;
        inBatch = true;
        fill();
        inBatch = false;
        return Promise.resolve();
      },
      enqueue: (node, priority) => {
        // Everything is queued before the scanner starts: inside one batch.
        expect(inBatch).toBe(true);
        queued.push([node, priority ?? 'background']);
        return Promise.resolve();
      },
    },
  );
  return { queued, relocated, batches };
}

const row = (text: string) => {
  const li = document.createElement('li');
  const cell = document.createElement('span');
  cell.textContent = text;
  li.append(cell);
  document.body.append(li);
  return { li, cell, text: cell.firstChild as Text };
};

afterEach(() => document.body.replaceChildren());

describe('routeTouched', () => {
  it('queues what is on screen first, then what is not placed yet, then what is far, in one batch', () => {
    const [seen, unplaced, far, alsoSeen] = [row('1.1.1.1'), row('2.2.2.2'), row('3.3.3.3'), row('4.4.4.4')];
    const where = new Map<Element, Where>([
      [seen.cell, 'visible'],
      [far.cell, 'far'],
      [alsoSeen.cell, 'visible'],
    ]);
    const { queued, relocated, batches } = route({ touched: [far.cell, unplaced.cell, seen.cell, alsoSeen.text] }, where);
    expect(batches).toBe(1);
    expect(queued).toEqual([
      [seen.cell, 'urgent'],
      [alsoSeen.text, 'urgent'],
      [unplaced.cell, 'urgent'],
      [far.cell, 'background'],
    ]);
    // Elements the page moved are placed again; text nodes are not elements to place.
    expect(relocated).toEqual([far.cell, unplaced.cell, seen.cell]);
  });

  it('reads near text before unplaced rows are done, as urgent, and text in a near row as urgent too', () => {
    const near = row('5.5.5.5');
    const { queued } = route({ touched: [near.text] }, new Map([[near.cell, 'near']]));
    expect(queued).toEqual([[near.text, 'urgent']]);
  });

  it('leaves text replaced in an unplaced row off the last screen sample to the whole-page scan', () => {
    const onScreen = row('6.6.6.6');
    const offScreen = row('7.7.7.7');
    // The sampler names rows as the tracker does (a cell's row-like ancestor).
    const { queued } = route({ touched: [offScreen.text, onScreen.text] }, new Map(), [listItemOf(onScreen.cell)]);
    expect(queued).toEqual([
      [onScreen.text, 'urgent'],
      [offScreen.text, 'background'],
    ]);
  });

  it('reads a re-read list in the background whatever is known of it, placing nothing', () => {
    const seen = row('8.8.8.8');
    const { queued, relocated } = route({ touched: [seen.cell, seen.text], reread: true }, new Map([[seen.cell, 'visible']]));
    expect(queued).toEqual([
      [seen.cell, 'background'],
      [seen.text, 'background'],
    ]);
    expect(relocated).toEqual([]);
  });

  it('takes a touched node outside any element as not placed (urgent, after those on screen)', () => {
    const fragment = document.createDocumentFragment();
    const loose = document.createTextNode('9.9.9.9');
    fragment.append(loose);
    const { queued } = route({ touched: [loose] }, new Map());
    expect(queued).toEqual([[loose, 'urgent']]);
  });
});
