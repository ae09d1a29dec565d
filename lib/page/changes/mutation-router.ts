/**
 * Where the page's new text goes in the scan: what the page just added is what the analyst is
 * watching, so text on screen is read first (before the initial scan), text whose place is not
 * known yet next, and text replaced far from the screen waits behind both, with the whole-page
 * scan's priority. The mutation queue (mutation-queue.ts) gathers the batches; this decides
 * each touched node's priority from what the near tracker and the last screen sample know.
 */
import type { Nearness, NearTracker } from '../nearness/near-tracker';
import { listItemOf } from '../nearness/near-tracker';
import type { ScreenSampler } from '../nearness/screen-sampler';
import { ELEMENT_NODE, TEXT_NODE } from '../scanning/dom-constants';
import type { Scanner } from '../scanning/scanner';
import type { MutationBatch } from './mutation-queue';

type Tracker = Pick<NearTracker<unknown>, 'relocate' | 'nearnessOf'>;

/** Where the element of a touched node (itself, or a text's parent) is, as far as known. */
function nearnessOfNode(tracker: Tracker, node: Node): Nearness | 'far' | 'unknown' {
  const el = node.nodeType === TEXT_NODE ? node.parentNode : node;
  return el?.nodeType === ELEMENT_NODE ? tracker.nearnessOf(el as Element) : 'unknown';
}

/**
 * Text replaced in a row that no observer has placed yet and that was not on screen at the
 * last viewport sample: read with the whole-page scan, not before it. A live tail whose rows
 * were not all read yet re-renders every one of them each second: taken as urgent, those
 * 20,000 text nodes a second were the whole page again, ahead of the rows the analyst had
 * just scrolled to, and the page never got read past its first screens. Rows the
 * page adds (elements) stay urgent, and a scroll samples the screen again (screen-sampler.ts).
 */
function isUnseenText(screenRows: ReadonlySet<Element>, node: Node): boolean {
  if (node.nodeType !== TEXT_NODE) return false;
  const parent = node.parentNode;
  if (parent?.nodeType !== ELEMENT_NODE) return false;
  return !screenRows.has(listItemOf(parent as Element));
}

/**
 * Queues a batch's touched nodes for the scanner: on screen as urgent now; unplaced ones as
 * urgent after those; far ones, unseen replaced text and a re-read list in the background.
 * Text replaced far from the screen (a live tail re-rendering 5,000 rows, its IP-less columns
 * too: their rows say where they are) thus waits behind what is on screen. Skipped regions are
 * checked by the scanner, in its slices. All are queued before the scanner starts (batch): one
 * slice here, the rest after a yield.
 */
export function routeTouched(
  batch: MutationBatch,
  tracker: Tracker,
  screen: Pick<ScreenSampler, 'rows'>,
  scanner: Pick<Scanner, 'batch' | 'enqueue'>,
): void {
  void scanner.batch(() => {
    const later: Node[] = [];
    const far: Node[] = [];
    for (const node of batch.touched) {
      if (batch.reread) {
        far.push(node);
        continue;
      }
      // A row the page moved (recycled from the bottom to the top) is placed where it is now.
      if (node.nodeType === ELEMENT_NODE) tracker.relocate(node as Element);
      const nearness = nearnessOfNode(tracker, node);
      if (nearness === 'visible') void scanner.enqueue(node, 'urgent');
      else if (nearness === 'far' || (nearness === 'unknown' && isUnseenText(screen.rows, node))) far.push(node);
      else later.push(node);
    }
    for (const node of later) void scanner.enqueue(node, 'urgent');
    for (const node of far) void scanner.enqueue(node, 'background');
  });
}
