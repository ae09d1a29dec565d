/**
 * The fewest bulk calls that could have kept the 500 ms goal, printed next to the
 * plain minimum ceil(IPs asked / 100).
 *
 * The plain minimum assumes every IP is known at the start. While a page scrolls, addresses
 * appear over seconds, and an address on screen must be sent within W of appearing (W: the
 * 500 ms goal minus the time an answer takes to come back and be painted), so no client can
 * keep the goal with that few calls. This counts what any client needs, from when each IP
 * became known and when it came on screen:
 *   - an IP that came on screen may leave once it is known (`knownAt`: when it was first asked
 *     or first on screen, whichever came first) and must leave by `dueAt` (first on screen + W);
 *   - an IP asked but never on screen (prefetched, then scrolled past) has no deadline: it rides
 *     in any call with room made once it is known, or in calls of its own if none has (no
 *     client can send an address in a call that left before it knew it: counted that way, an
 *     address a scrolled live tail brought near the screen after the last on-screen call rode
 *     for free, and the minimum asked for fewer calls than any client could make);
 *   - a call holds at most `batchSize` IPs.
 * Greedy by deadline, the classic optimum for covering intervals with points: the unsent IP due
 * first fixes the moment of the next call (its deadline), and that call takes every unsent IP
 * known by then (more than `batchSize` of them: several calls at that moment).
 */
export interface TimedIp {
  knownAt: number;
  dueAt: number;
}

export interface FeasibleInput {
  withDeadline: readonly TimedIp[];
  /** When each IP asked that never came on screen became known. */
  withoutDeadline: readonly number[];
  batchSize?: number;
}

export function latencyFeasibleMinimum({ withDeadline, withoutDeadline, batchSize = 100 }: FeasibleInput): number {
  const byDue = [...withDeadline].sort((a, b) => a.dueAt - b.dueAt);
  const sent = new Set<TimedIp>();
  /** Each moment calls leave, and the room they have left. */
  const moments: { at: number; room: number }[] = [];
  let calls = 0;
  for (const first of byDue) {
    if (sent.has(first)) continue;
    const callAt = Math.max(first.dueAt, first.knownAt);
    let taken = 0;
    for (const ip of byDue) {
      if (sent.has(ip) || ip.knownAt > callAt) continue;
      sent.add(ip);
      taken++;
    }
    const n = Math.ceil(taken / batchSize);
    calls += n;
    moments.push({ at: callAt, room: n * batchSize - taken });
  }
  // Riders fill the room of calls made once they are known, earliest calls first: whoever can
  // ride an early call can ride every later one, so which of them takes it does not matter.
  const riders = [...withoutDeadline].sort((a, b) => a - b);
  let next = 0;
  for (const { at, room } of moments.sort((a, b) => a.at - b.at)) {
    for (let left = room; left > 0 && next < riders.length && riders[next]! <= at; left--) next++;
  }
  return calls + Math.ceil((riders.length - next) / batchSize);
}

/** One IP as the page saw it during the session (epoch ms). */
export interface Sighting {
  /** First animation frame in which it was on screen. */
  firstSeen: number;
  /** It was on screen in the session's first frame: it may have been since the page loaded. */
  atStart: boolean;
  /** First frame in which one of its text nodes on screen had a mark other than pending. */
  markedAt: number | null;
  /** Last frame in which it was on screen. */
  lastSeen: number;
}

export interface SessionCalls {
  /** Each IP sent in a bulk call, and when the first call carrying it reached the server (epoch ms). */
  firstAsked: ReadonlyMap<string, number>;
  sightings: ReadonlyMap<string, Sighting>;
}

/**
 * Answer + paint: for IPs on screen before their call, ms from the call reaching the server to
 * their mark on screen (the part of the 500 ms no batching can save).
 */
export function answerPaintSamples({ firstAsked, sightings }: SessionCalls): number[] {
  const out: number[] = [];
  for (const [ip, askedAt] of firstAsked) {
    const s = sightings.get(ip);
    if (!s || s.atStart || s.markedAt === null || s.firstSeen > askedAt) continue;
    out.push(s.markedAt - askedAt);
  }
  return out;
}

/**
 * The inputs of `latencyFeasibleMinimum` for a session, with `windowMs` = W. An IP on screen in
 * the first frame came there before the session: its appearance is taken as the earlier of its
 * first ask and that frame (a later appearance than the real one makes the minimum smaller,
 * never larger, so the ratio errs against us).
 */
export function feasibleInputOf({ firstAsked, sightings }: SessionCalls, windowMs: number): FeasibleInput {
  const withDeadline: TimedIp[] = [];
  const withoutDeadline: number[] = [];
  for (const [ip, askedAt] of firstAsked) {
    const s = sightings.get(ip);
    if (!s) {
      withoutDeadline.push(askedAt);
      continue;
    }
    const appeared = s.atStart ? Math.min(askedAt, s.firstSeen) : s.firstSeen;
    withDeadline.push({ knownAt: Math.min(askedAt, appeared), dueAt: appeared + windowMs });
  }
  return { withDeadline, withoutDeadline };
}

/** The plain minimum: every IP asked, in full calls, as if all were known at the start. */
export function plainMinimum(ips: number, batchSize = 100): number {
  return Math.ceil(ips / batchSize);
}

/**
 * Per address new to the screen during the session (not there at the start) and sent in a
 * call: ms from its first frame on screen to its first marked frame on screen (0 when it was
 * answered before it came), or Infinity if never. Addresses on screen for less than
 * `withinMs` and never marked are left out (gone before they were due), as for text nodes.
 * The text-node share hides these: most rows repeat addresses already answered.
 */
export function newIpLatencies({ firstAsked, sightings }: SessionCalls, withinMs: number): number[] {
  const out: number[] = [];
  for (const [ip, s] of sightings) {
    if (s.atStart || !firstAsked.has(ip)) continue;
    const latency = s.markedAt === null ? Infinity : s.markedAt - s.firstSeen;
    if (latency > withinMs && s.lastSeen - s.firstSeen < withinMs) continue;
    out.push(latency);
  }
  return out;
}

/** One bulk call as the page saw its IPs (BENCH_PAGE_DEBUG): why it left, read from the outside. */
export interface CallMakeup {
  /** Epoch ms the call reached the server. */
  atMs: number;
  ips: number;
  /** On screen before the call (for the first time during the session), and the longest such wait. */
  onScreen: number;
  longestOnScreenMs: number;
  /**
   * On screen only after the call reached the server: known near the screen (prefetched), or
   * asked as on screen in a frame whose layout (a re-render) ended after the call left.
   */
  laterOnScreen: number;
  /** The soonest of those: ms from the call to its first frame on screen. */
  soonestLaterMs: number;
  /** Never on screen during the session. */
  never: number;
}

/** Each call's IPs split by when they were on screen (calls: epoch ms of arrival, IPs). */
export function callMakeup(calls: readonly { atMs: number; ips: readonly string[] }[], sightings: ReadonlyMap<string, Sighting>): CallMakeup[] {
  return calls.map(({ atMs, ips }) => {
    const out: CallMakeup = { atMs, ips: ips.length, onScreen: 0, longestOnScreenMs: 0, laterOnScreen: 0, soonestLaterMs: Infinity, never: 0 };
    for (const ip of ips) {
      const s = sightings.get(ip);
      if (!s) out.never++;
      else if (s.firstSeen > atMs) {
        out.laterOnScreen++;
        out.soonestLaterMs = Math.min(out.soonestLaterMs, s.firstSeen - atMs);
      }
      else {
        out.onScreen++;
        if (!s.atStart) out.longestOnScreenMs = Math.max(out.longestOnScreenMs, atMs - s.firstSeen);
      }
    }
    return out;
  });
}
