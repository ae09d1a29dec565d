/**
 * Containers the page rebuilds faster than anything in them can be marked (issue 10, the
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
 */
export interface StormWatchOptions {
  now: () => number;
  setTimer: (run: () => void, ms: number) => void;
  /** A container that stopped storming: its rows are to be read now. */
  onQuiet: (root: Node) => void;
}

export const STORM_ENTER_MS = 250;
export const STORM_QUIET_MS = 500;

/**
 * Returns the check the mutation queue makes for each rebuild (a container got all new
 * children): whether the container is storming, its rows not to be read now.
 */
export function stormWatch(options: StormWatchOptions): (root: Node) => boolean {
  const { now, setTimer, onQuiet } = options;
  /** When each container was last rebuilt (weak: a container may leave the page). */
  const last = new WeakMap<Node, number>();
  /** Storming containers, with their last rebuild. A timer is armed while there is one. */
  const storming = new Map<Node, number>();
  const check = (): void => {
    const t = now();
    for (const [root, at] of storming) {
      if (t - at < STORM_QUIET_MS) continue;
      storming.delete(root);
      onQuiet(root);
    }
    if (storming.size) setTimer(check, STORM_QUIET_MS);
  };
  return (root) => {
    const t = now();
    const before = last.get(root);
    last.set(root, t);
    if (!storming.has(root) && !(before !== undefined && t - before < STORM_ENTER_MS)) return false;
    if (!storming.size) setTimer(check, STORM_QUIET_MS);
    storming.set(root, t);
    return true;
  };
}
