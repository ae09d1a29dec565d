/**
 * Containers the page rebuilds faster than anything in them can be marked (the
 * mutation storm: 5,000 rows replaced in every animation frame). Each rebuild's rows live one
 * frame, and a mark needs the near tracker's two observer reports, so no row of such a
 * container was ever marked; yet scanning and tracking every rebuild was 10-26 ms of our work
 * in each of the page's frames (bench page-profile: the walk, findIps, 1,667 rows tracked and
 * forgotten a frame), enough to push most of its ~45 ms frames past 50 ms. While a container
 * storms, its rebuilds are not handed to the scanner; once it has been left alone for
 * `QUIET_MS`, it is handed over once, and what it then shows is marked as usual.
 *
 * Hysteresis: a rebuild within `ENTER_MS` of the previous one starts a storm, and a storm ends
 * only after `QUIET_MS` without one, so a storm slowed down by a loaded machine (frames of
 * 100-400 ms) is not scanned at every slow frame, while a console re-rendering its table a few
 * times a second is never held back.
 *
 * A rebuild is read `ENTER_MS` after it comes, once it is known not to start a storm
 * (`onSettled`), not in the frame that brought it: read there, a storm's first rebuild was our
 * scan of 5,000 rows inside the page's frame tasks at load (5-7 ms of them, in frames already
 * over 50 ms: blocking time the page alone does not have), and the rows were gone a frame
 * later. The cost: a console that re-renders a table of 1,000+ rows with one `innerHTML` (not a
 * live tail's text changes, nor a virtualised grid's tens of rows) gets its marks 250 ms later.
 *
 * While a container storms, the mutation queue observes around it, not under it
 * (`observationPlan`): a subtree observer above it costs the page ~2 ms a frame (Blink gives
 * each of the 5,000 rows removed a frame a transient registration), and even a record per
 * rebuild costs our callback and flush in each of the page's frames. So the watch looks at the
 * container's first and last child every `QUIET_MS` instead: new ones mean it was rebuilt.
 */
export interface StormWatchOptions {
  now: () => number;
  setTimer: (run: () => void, ms: number) => void;
  /** A container that starts storming. */
  onStorm: (root: Node) => void;
  /** A container that stopped storming: its rows are to be read now. */
  onQuiet: (root: Node) => void;
  /** A container rebuilt once, and not again within `STORM_ENTER_MS`: its rows are to be read now. */
  onSettled: (root: Node) => void;
}

export const STORM_ENTER_MS = 250;
export const STORM_QUIET_MS = 500;

/**
 * Returns what the mutation queue calls for each rebuild (a container got all new children):
 * the rows are then read by `onSettled` or, after a storm, `onQuiet`, not by the queue.
 */
export interface StormWatch {
  (root: Node): void;
  /** The containers storming now. */
  containers(): Iterable<Node>;
  /** Whether any container storms now. */
  storming(): boolean;
}

export function stormWatch(options: StormWatchOptions): StormWatch {
  const { now, setTimer, onStorm, onQuiet, onSettled } = options;
  /** Containers rebuilt within the last `STORM_ENTER_MS`, not storming (yet): when. */
  const pending = new Map<Node, number>();
  /**
   * Storming containers: when last seen rebuilt, and the first and last child seen then. A timer
   * is armed while there is one.
   */
  const storming = new Map<Node, [at: number, first: Node | null, last: Node | null]>();
  const check = (): void => {
    const t = now();
    for (const [root, seen] of storming) {
      const { firstChild, lastChild } = root;
      if (firstChild !== seen[1] || lastChild !== seen[2]) storming.set(root, [t, firstChild, lastChild]);
      else if (t - seen[0] >= STORM_QUIET_MS) {
        storming.delete(root);
        onQuiet(root);
      }
    }
    if (storming.size) setTimer(check, STORM_QUIET_MS);
  };
  const watch = (root: Node): void => {
    const t = now();
    const before = pending.get(root);
    if (!storming.has(root) && !(before !== undefined && t - before < STORM_ENTER_MS)) {
      pending.set(root, t);
      // Settled unless rebuilt again meanwhile (then this entry is gone or newer).
      setTimer(() => {
        if (pending.get(root) !== t) return;
        pending.delete(root);
        onSettled(root);
      }, STORM_ENTER_MS);
      return;
    }
    pending.delete(root);
    if (!storming.size) setTimer(check, STORM_QUIET_MS);
    const started = !storming.has(root);
    storming.set(root, [t, root.firstChild, root.lastChild]);
    if (started) onStorm(root);
  };
  return Object.assign(watch, { containers: () => storming.keys(), storming: () => storming.size > 0 });
}

/** What the queue observes everywhere it is not around a storm. */
export const SUBTREE: MutationObserverInit = { childList: true, subtree: true, characterData: true };
const CHILDREN: MutationObserverInit = { childList: true };
const TEXT: MutationObserverInit = { characterData: true };
/** observe() calls past which a storm is observed as before (a body with thousands of children). */
export const MAX_OBSERVE_CALLS = 200;

export interface ObservationPlan {
  /** The observe() calls, in order. */
  calls: [Node, MutationObserverInit][];
  /** The storming containers' ancestors, observed `childList` only: a change to their children changes the plan. */
  path: Set<Node>;
}

/**
 * What to observe so that every root is followed as with one subtree observer each, except
 * the storming containers: each is not observed at all (the watch looks at its children), its
 * ancestors `childList` only, their other children with the full options and their text
 * children `characterData`. A container inside another storming one, or in no root observed,
 * is left out; past `max` calls, every root is observed as before.
 *
 * The `tail` (a list re-rendered wholesale again and again, mutation-queue.ts) is observed
 * around as a storm is, plus itself `childList` only and the rows given (its window) with the
 * full options: not its other rows, whose text changes are read by a re-read instead.
 */
export function observationPlan(
  roots: Iterable<Node>,
  storming: Iterable<Node>,
  max = MAX_OBSERVE_CALLS,
  tail?: readonly [list: Node, rows: readonly Node[]],
): ObservationPlan {
  const rootSet = new Set(roots);
  const held = new Set(storming);
  if (tail) held.add(tail[0]);
  const path = new Set<Node>();
  const calls: [Node, MutationObserverInit][] = [];
  for (const root of held) {
    const up: Node[] = [];
    let p = root.parentNode;
    for (; p && !held.has(p); p = p.parentNode) up.push(p);
    // Inside another storm (p), or not under a root we observe (a detached container).
    if (p || !rootSet.has(up.at(-1) ?? root)) held.delete(root);
    else for (const node of up) path.add(node);
  }
  for (const node of path) {
    calls.push([node, CHILDREN]);
    for (let child = node.firstChild; child && calls.length <= max; child = child.nextSibling) {
      if (path.has(child) || held.has(child)) continue;
      if (child.nodeType === Node.ELEMENT_NODE) calls.push([child, SUBTREE]);
      else if (child.nodeType === Node.TEXT_NODE) calls.push([child, TEXT]);
    }
  }
  for (const root of rootSet) if (!path.has(root) && !held.has(root)) calls.push([root, SUBTREE]);
  if (calls.length > max) return { calls: [...rootSet].map((root) => [root, SUBTREE]), path: new Set() };
  // The tail: its rows added or removed, and the rows of its window with everything under them.
  if (tail && held.has(tail[0])) {
    calls.push([tail[0], CHILDREN]);
    for (const row of tail[1]) if (row.parentNode === tail[0]) calls.push([row, SUBTREE]);
  }
  return { calls, path };
}

/** Rows of a tail's window beyond those on screen, above and below, at least. */
const WINDOW_MARGIN = 20;
/**
 * Rows of a tail's window at most (a screen of tiny rows): at 4 text cells a row, fewer records
 * a render than a big frame (mutation-queue.ts, BIG_FRAME_RECORDS).
 */
export const MAX_WINDOW_ROWS = 200;

/**
 * A tail's window: its children holding the rows on screen, and as many again (at least
 * `WINDOW_MARGIN`) above and below, so that a row scrolled onto the screen was observed before
 * (its text changes were seen). None when nothing of it is on screen. The rows on screen are
 * next to each other: all lie within their count of any one of them (the window is then up to
 * twice their count larger than needed).
 */
export function windowRows(container: Node, screen: Iterable<Node>): Node[] {
  // Its children on screen (several cells of one row on screen are one).
  const on = new Set<Node>();
  let one: Node | undefined;
  for (const row of screen) {
    let node: Node | null = row;
    while (node && node.parentNode !== container) node = node.parentNode;
    if (node) on.add((one = node));
  }
  const rows: Node[] = [];
  if (!one) return rows;
  const reach = on.size + WINDOW_MARGIN;
  let node: Node | null = one;
  for (let k = 0; k < reach && node.previousSibling; k++) node = node.previousSibling;
  // Rows taken past `one` (from when it is reached).
  let past = -1;
  for (; node && past < reach && rows.length < MAX_WINDOW_ROWS; node = node.nextSibling) {
    rows.push(node);
    if (past >= 0 || node === one) past++;
  }
  return rows;
}
