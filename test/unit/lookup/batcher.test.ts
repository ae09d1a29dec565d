import { describe, expect, it } from 'vitest';
import { Batcher, type BatcherOptions, type QueuedIp, type SendResult } from '../../../lib/lookup/batcher';
import type { LookupPriority } from '../../../lib/lookup/types';
import { createManualClock } from './helpers/manual-clock';
import { publicIps } from './helpers/ips';

type Reply = SendResult<string> | 'hold';

/** A batcher whose send records its batches and answers `answer:<ip>` unless told otherwise. */
function setUp(options: { budget?: (p: LookupPriority) => number; maxConcurrent?: number; replies?: Reply[] } = {}) {
  const clock = createManualClock();
  const sent: string[][] = [];
  const held: Array<() => void> = [];
  const starved: QueuedIp[][] = [];
  const replies = options.replies ?? [];
  const batcher = new Batcher<string>({
    clock,
    windowMs: 25,
    maxConcurrent: options.maxConcurrent ?? 2,
    random: () => 1,
    ...(options.budget ? { budget: options.budget } : {}),
    onStarved: (items) => starved.push(items),
    fallback: (ip, error) => `fallback:${ip}:${String(error)}`,
    send: async (ips) => {
      sent.push(ips);
      const reply = replies.shift();
      if (reply === 'hold') await new Promise<void>((resolve) => held.push(resolve));
      else if (reply) return reply;
      return { kind: 'done', outcomes: new Map(ips.map((ip) => [ip, `answer:${ip}`])) };
    },
  });
  return { clock, batcher, sent, held, starved };
}

describe('Batcher', () => {
  it('coalesces callers within the window into one call and answers each', async () => {
    const { clock, batcher, sent } = setUp();
    const a = Promise.all(['1', '2'].map((ip) => batcher.enqueue(ip, 'visible')));
    const b = Promise.all(['2', '3'].map((ip) => batcher.enqueue(ip, 'background')));
    await clock.advance(24);
    expect(sent).toEqual([]);
    await clock.advance(1);
    expect(sent).toEqual([['1', '2', '3']]);
    expect(await a).toEqual(['answer:1', 'answer:2']);
    expect(await b).toEqual(['answer:2', 'answer:3']);
  });

  it('sends a full batch of 100 at once, without waiting for the window', async () => {
    const { clock, batcher, sent } = setUp();
    const ips = publicIps(230);
    const all = Promise.all(ips.map((ip) => batcher.enqueue(ip, 'visible')));
    await clock.advance(0);
    expect(sent.map((b) => b.length)).toEqual([100, 100]);
    await clock.advance(25);
    expect(sent.map((b) => b.length)).toEqual([100, 100, 30]);
    expect(new Set(sent.flat()).size).toBe(230);
    expect((await all).length).toBe(230);
  });

  it('never sends an IP that is in flight again: later callers share its answer', async () => {
    const { clock, batcher, sent, held } = setUp({ replies: ['hold'] });
    const first = batcher.enqueue('1', 'visible');
    await clock.advance(25);
    expect(batcher.inFlightCount).toBe(1);
    const second = batcher.enqueue('1', 'manual');
    await clock.advance(25);
    expect(sent).toEqual([['1']]);
    held.forEach((go) => go());
    expect(await first).toBe('answer:1');
    expect(await second).toBe('answer:1');
  });

  it('serves manual before visible before background, and moves a queued IP up', async () => {
    const { clock, batcher, sent } = setUp({ maxConcurrent: 1 });
    const bg = publicIps(60, 0);
    const vis = publicIps(60, 1000);
    bg.forEach((ip) => void batcher.enqueue(ip, 'background'));
    vis.forEach((ip) => void batcher.enqueue(ip, 'visible'));
    void batcher.enqueue(bg[59]!, 'manual');
    await clock.advance(0);
    expect(sent[0]![0]).toBe(bg[59]);
    expect(sent[0]!.slice(1, 61)).toEqual(vis);
    expect(sent[0]!.slice(61)).toEqual(bg.slice(0, 39));
    // Background IPs left over wait for company until their deadline (maxWaitMs here).
    await clock.advance(249);
    expect(sent.length).toBe(1);
    await clock.advance(1);
    expect(sent[1]).toEqual(bg.slice(39, 59));
    await batcher.whenIdle();
  });

  it('keeps at most maxConcurrent calls in flight', async () => {
    const { clock, batcher, sent, held } = setUp({ maxConcurrent: 2, replies: ['hold', 'hold', 'hold'] });
    publicIps(450).forEach((ip) => void batcher.enqueue(ip, 'visible'));
    await clock.advance(100);
    expect(sent.length).toBe(2);
    held.shift()!();
    await clock.advance(0);
    expect(sent.length).toBe(3);
    held.splice(0).forEach((go) => go());
    await clock.advance(0);
    held.splice(0).forEach((go) => go());
    await batcher.whenIdle();
    expect(sent.map((b) => b.length)).toEqual([100, 100, 100, 100, 50]);
  });

  it('on retry-later puts the batch back first, pauses, and answers every caller exactly once', async () => {
    const { clock, batcher, sent } = setUp({
      maxConcurrent: 1,
      replies: [{ kind: 'retry-later', delayMs: 2_000 }, { kind: 'retry-later', delayMs: null }],
    });
    const answers: string[] = [];
    const calls = ['1', '2', '3'].map((ip) => batcher.enqueue(ip, 'visible').then((a) => void answers.push(a)));
    await clock.advance(25);
    expect(sent).toEqual([['1', '2', '3']]);
    expect(batcher.pausedUntil).toBe(clock.now() + 2_000);
    void batcher.enqueue('4', 'visible').then((a) => void answers.push(a));
    await clock.advance(1_999);
    expect(sent.length).toBe(1); // paused
    await clock.advance(1);
    expect(sent[1]).toEqual(['1', '2', '3', '4']);
    // Second 429 without Retry-After: exponential backoff (2 s on the second in a row, random=1).
    expect(batcher.pausedUntil).toBe(clock.now() + 2_000);
    await clock.advance(2_000);
    await Promise.all(calls);
    await batcher.whenIdle();
    expect(sent.length).toBe(3);
    expect(answers.sort()).toEqual(['answer:1', 'answer:2', 'answer:3', 'answer:4']);
  });

  it('during a Retry-After pause, on-screen IPs past their deadline wait too, then all go in one call', async () => {
    const { clock, batcher, sent } = setUp({ replies: [{ kind: 'retry-later', delayMs: 2_000 }] });
    const ips = publicIps(12);
    const answers = [batcher.enqueue(ips[0]!, 'visible')];
    await clock.advance(25);
    expect(sent).toEqual([[ips[0]]]);
    // A page keeps scrolling: a new on-screen IP every 150 ms, each due 250 ms later.
    for (const ip of ips.slice(1, 12)) {
      answers.push(batcher.enqueue(ip, 'visible'));
      await clock.advance(150);
    }
    // 25 + 11 x 150 = 1,675 ms: still paused.
    expect(sent.length).toBe(1);
    await clock.advance(349);
    expect(sent.length).toBe(1);
    await clock.advance(1);
    // The refused batch first (requeued at the front), the rest with it: one call, not eleven.
    expect(sent).toEqual([[ips[0]], ips]);
    expect(await Promise.all(answers)).toEqual(ips.map((ip) => `answer:${ip}`));
  });

  it('answers with the fallback when send throws or leaves an IP out', async () => {
    const { clock, batcher } = setUp({
      replies: [{ kind: 'done', outcomes: new Map([['1', 'answer:1']]) }],
    });
    const one = batcher.enqueue('1', 'visible');
    const two = batcher.enqueue('2', 'visible');
    await clock.advance(25);
    expect(await one).toBe('answer:1');
    expect(await two).toBe('fallback:2:undefined');
  });

  it('sends only what the budget covers and reports the rest as starved when nothing is in flight', async () => {
    // 3 units left, 2 of them kept in reserve; every IP sent counts as spent (worst case).
    let sentSoFar: string[][] = [];
    const left = () => 3 - sentSoFar.flat().length;
    const { clock, batcher, sent, starved } = setUp({ budget: (p) => (p === 'manual' ? left() : left() - 2) });
    sentSoFar = sent;
    void batcher.enqueue('a', 'background');
    void batcher.enqueue('b', 'background');
    void batcher.enqueue('m', 'manual');
    await clock.advance(25);
    // manual may use 3, automatic 1: the manual IP plus nothing more (taking it used a unit).
    expect(sent).toEqual([['m']]);
    expect(starved.at(-1)?.map((i) => i.ip)).toEqual(['a', 'b']);
    expect(batcher.settleQueued('all', (ip) => `skipped:${ip}`)).toBe(2);
    expect(batcher.queueLength).toBe(0);
  });
});

describe('Batcher after a server change', () => {
  /** A batcher whose calls wait until `finish(i, reply)`. */
  function held() {
    const clock = createManualClock();
    const sent: string[][] = [];
    const finishers: Array<(reply: SendResult<string> | null) => void> = [];
    const batcher = new Batcher<string>({
      clock,
      windowMs: 25,
      random: () => 1,
      fallback: (ip) => `fallback:${ip}`,
      send: (ips) => {
        sent.push(ips);
        return new Promise((resolve) =>
          finishers.push((reply) => resolve(reply ?? { kind: 'done', outcomes: new Map(ips.map((ip) => [ip, `answer${sent.indexOf(ips)}:${ip}`])) })),
        );
      },
    });
    return { clock, batcher, sent, finish: (i: number, reply: SendResult<string> | null = null) => finishers[i]!(reply) };
  }

  it('calls in flight answer their callers, but later callers of the same IPs get a new call', async () => {
    const { clock, batcher, sent, finish } = held();
    const old = batcher.enqueue('1', 'visible');
    await clock.advance(25);
    batcher.detachInFlight();
    const fresh = batcher.enqueue('1', 'visible');
    await clock.advance(25);
    expect(sent).toEqual([['1'], ['1']]);
    expect(batcher.inFlightCount).toBe(2);
    finish(0);
    expect(await old).toBe('answer0:1');
    finish(1);
    expect(await fresh).toBe('answer1:1');
    await batcher.whenIdle();
    expect(batcher.inFlightCount).toBe(0);
  });

  it('a 429 met by a detached call neither pauses nor requeues: its callers get the fallback', async () => {
    const { clock, batcher, sent, finish } = held();
    const old = batcher.enqueue('1', 'visible');
    await clock.advance(25);
    batcher.detachInFlight();
    finish(0, { kind: 'retry-later', delayMs: 60_000 });
    expect(await old).toBe('fallback:1');
    expect(batcher.pausedUntil).toBeNull();
    expect(batcher.queueLength).toBe(0);
    expect(sent).toHaveLength(1);
  });

  it('resumeNow ends a pause at once', async () => {
    const { clock, batcher, sent, finish } = held();
    const first = batcher.enqueue('1', 'visible');
    await clock.advance(25);
    finish(0, { kind: 'retry-later', delayMs: 60_000 });
    await clock.advance(0);
    expect(batcher.pausedUntil).not.toBeNull();
    batcher.resumeNow();
    expect(batcher.pausedUntil).toBeNull();
    await clock.advance(0);
    expect(sent).toEqual([['1'], ['1']]);
    finish(1);
    expect(await first).toBe('answer1:1');
  });
});

describe('Batcher adaptive batch size', () => {
  function held(maxWaitMs = 250) {
    const clock = createManualClock();
    const sent: string[][] = [];
    const finishers: Array<() => void> = [];
    const batcher = new Batcher<string>({
      clock,
      windowMs: 25,
      maxWaitMs,
      maxConcurrent: 4,
      fallback: (ip) => `fallback:${ip}`,
      send: (ips) => {
        sent.push(ips);
        return new Promise((resolve) => finishers.push(() => resolve({ kind: 'done', outcomes: new Map(ips.map((ip) => [ip, `answer:${ip}`])) })));
      },
    });
    return { clock, batcher, sent, finish: (i: number) => finishers[i]!() };
  }

  it('grows the next batch while a call is in flight, and sends it when the call answers', async () => {
    const { clock, batcher, sent, finish } = held();
    const ips = publicIps(40);
    const answers: Promise<string>[] = [batcher.enqueue(ips[0]!, 'visible')];
    await clock.advance(25);
    expect(sent.map((b) => b.length)).toEqual([1]);
    // IPs trickle in (a page scrolling): one every 10 ms, while the first call is out.
    for (const ip of ips.slice(1, 20)) {
      answers.push(batcher.enqueue(ip, 'visible'));
      await clock.advance(10);
    }
    // The old code sent a call per 25 ms window here (7 more).
    expect(sent.map((b) => b.length)).toEqual([1]);
    finish(0);
    await clock.advance(0);
    expect(sent.map((b) => b.length)).toEqual([1, 19]);
    finish(1);
    await clock.advance(0);
    expect((await Promise.all(answers)).length).toBe(20);
  });

  it('a partial batch waits at most maxWaitMs, a full one and a manual lookup not at all', async () => {
    const { clock, batcher, sent } = held(250);
    const ips = publicIps(200);
    void batcher.enqueue(ips[0]!, 'visible');
    await clock.advance(25);
    void batcher.enqueue(ips[1]!, 'visible');
    await clock.advance(249);
    expect(sent.map((b) => b.length)).toEqual([1]);
    await clock.advance(1);
    // The first call never answered: the grown batch leaves at its deadline anyway.
    expect(sent.map((b) => b.length)).toEqual([1, 1]);
    for (const ip of ips.slice(2, 102)) void batcher.enqueue(ip, 'visible');
    await clock.advance(0);
    expect(sent.map((b) => b.length)).toEqual([1, 1, 100]);
    void batcher.enqueue(ips[150]!, 'manual');
    await clock.advance(25);
    expect(sent.at(-1)).toEqual([ips[150]]);
  });

  it('while a call is in flight, background IPs past their deadline wait for its answer; an on-screen IP does not', async () => {
    const { clock, batcher, sent, finish } = held(250);
    const ips = publicIps(5);
    void batcher.enqueue(ips[0]!, 'visible');
    await clock.advance(25);
    // Near the screen: due 250 ms from now, but a call is out. The old code sent a second call.
    const near = batcher.enqueue(ips[1]!, 'background');
    await clock.advance(400);
    expect(sent).toEqual([[ips[0]]]);
    // The answer wakes the queue: the overdue IP leaves at once.
    finish(0);
    await clock.advance(0);
    expect(sent).toEqual([[ips[0]], [ips[1]]]);
    finish(1);
    expect(await near).toBe(`answer:${ips[1]}`);
    // An on-screen IP's deadline sends a call even with one in flight.
    void batcher.enqueue(ips[2]!, 'visible');
    await clock.advance(25);
    void batcher.enqueue(ips[3]!, 'background');
    void batcher.enqueue(ips[4]!, 'visible');
    await clock.advance(249);
    expect(sent.length).toBe(3);
    await clock.advance(1);
    expect(sent.at(-1)).toEqual([ips[4], ips[3]]);
  });

  it('with paceMs, a fast server gets at most one partial call per paceMs while IPs trickle in', async () => {
    const clock = createManualClock();
    const sent: string[][] = [];
    const batcher = new Batcher<string>({
      clock,
      windowMs: 25,
      maxWaitMs: 250,
      paceMs: 250,
      fallback: (ip) => `fallback:${ip}`,
      // Answers at once (a local server).
      send: async (ips) => {
        sent.push(ips);
        return { kind: 'done', outcomes: new Map(ips.map((ip) => [ip, `answer:${ip}`])) };
      },
    });
    const ips = publicIps(60);
    const answers: Promise<string>[] = [];
    // One new IP every 20 ms for 1.2 s: the old code sent one call per 25 ms window (60 calls).
    for (const ip of ips) {
      answers.push(batcher.enqueue(ip, 'visible'));
      await clock.advance(20);
    }
    await clock.advance(300);
    expect((await Promise.all(answers)).length).toBe(60);
    expect(sent.length).toBeLessThanOrEqual(7);
    expect(new Set(sent.flat()).size).toBe(60);
  });

  /** A local (instant) server, visible IPs wait 300 ms at most, background ones 1 s. */
  function deadlines(extra: Pick<BatcherOptions<string>, 'paceMs' | 'backgroundPaceMs'> = {}) {
    const clock = createManualClock();
    const sent: string[][] = [];
    const batcher = new Batcher<string>({
      clock,
      windowMs: 25,
      maxWaitMs: 300,
      backgroundWaitMs: 1_000,
      ...extra,
      fallback: (ip) => `fallback:${ip}`,
      send: async (ips) => {
        sent.push(ips);
        return { kind: 'done', outcomes: new Map(ips.map((ip) => [ip, `answer:${ip}`])) };
      },
    });
    return { clock, batcher, sent };
  }

  it('background IPs wait for company even with nothing in flight, and leave with the next visible call', async () => {
    const { clock, batcher, sent } = deadlines();
    const ips = publicIps(30);
    // Near the screen, not on it: the old code sent them after the 25 ms window.
    const answers = ips.slice(0, 10).map((ip) => batcher.enqueue(ip, 'background'));
    await clock.advance(500);
    expect(sent).toEqual([]);
    answers.push(batcher.enqueue(ips[10]!, 'visible'));
    await clock.advance(25);
    expect(sent).toEqual([ips.slice(10, 11).concat(ips.slice(0, 10))]);
    // Alone, they leave at their deadline.
    answers.push(...ips.slice(11, 20).map((ip) => batcher.enqueue(ip, 'background')));
    await clock.advance(999);
    expect(sent.length).toBe(1);
    await clock.advance(1);
    expect(sent.map((b) => b.length)).toEqual([11, 9]);
    expect((await Promise.all(answers)).length).toBe(20);
  });

  it('calls of background IPs alone keep their pace; a visible call still takes them along', async () => {
    const { clock, batcher, sent } = deadlines({ backgroundPaceMs: 5_000 });
    const [a, b, c, d, e] = publicIps(5);
    // The first call of near addresses alone leaves at its 1 s, as without a pace.
    void batcher.enqueue(a!, 'background');
    await clock.advance(1_000);
    expect(sent).toEqual([[a]]);
    // The next ones, a second apart (a live tail's renders), wait for the pace: one call at 6 s.
    void batcher.enqueue(b!, 'background');
    await clock.advance(1_000);
    void batcher.enqueue(c!, 'background');
    await clock.advance(3_999);
    expect(sent).toEqual([[a]]);
    await clock.advance(1);
    expect(sent).toEqual([[a], [b, c]]);
    // An on-screen address does not wait for it, and takes the near one along.
    void batcher.enqueue(d!, 'background');
    await clock.advance(100);
    void batcher.enqueue(e!, 'visible');
    await clock.advance(0);
    expect(sent).toEqual([[a], [b, c], [e, d]]);
  });

  it('the pace of background calls is per page: one tab\'s tail does not hold back another\'s', async () => {
    const { clock, batcher, sent } = deadlines({ backgroundPaceMs: 5_000 });
    const [a, b, c] = publicIps(3);
    void batcher.enqueue(a!, 'background', 'tab 1');
    await clock.advance(1_000);
    expect(sent).toEqual([[a]]);
    // Tab 1 is paced until 6 s; tab 2's first near address leaves at its own 1 s.
    void batcher.enqueue(b!, 'background', 'tab 1');
    void batcher.enqueue(c!, 'background', 'tab 2');
    await clock.advance(1_000);
    expect(sent).toEqual([[a], [b, c]]);
  });

  it('a background IP asked again as visible (it came on screen) leaves by the visible deadline from then', async () => {
    const { clock, batcher, sent } = deadlines();
    const [near, other] = publicIps(2);
    const asBackground = batcher.enqueue(near!, 'background');
    void batcher.enqueue(other!, 'background');
    await clock.advance(200);
    expect(sent).toEqual([]);
    // Nothing in flight and its window long over: it leaves now, its company along.
    const asVisible = batcher.enqueue(near!, 'visible');
    await clock.advance(0);
    expect(sent).toEqual([[near, other]]);
    expect(await asVisible).toBe(`answer:${near}`);
    expect(await asBackground).toBe(`answer:${near}`);
  });

  it('while the pace holds, an upgraded IP brings the call forward to its visible deadline', async () => {
    const { clock, batcher, sent } = deadlines({ paceMs: 2_000 });
    const [first, near] = publicIps(2);
    void batcher.enqueue(first!, 'visible');
    await clock.advance(25);
    expect(sent).toEqual([[first]]);
    // Within the pace: the background IP is held for its 1 s...
    void batcher.enqueue(near!, 'background');
    await clock.advance(100);
    // ...until it comes on screen: then 300 ms from now, not 1 s from its first ask.
    void batcher.enqueue(near!, 'visible');
    await clock.advance(299);
    expect(sent.length).toBe(1);
    await clock.advance(1);
    expect(sent).toEqual([[first], [near]]);
  });
});
