import { describe, expect, it } from 'vitest';
import { answerPaintSamples, callMakeup, feasibleInputOf, latencyFeasibleMinimum, newIpLatencies, plainMinimum, type TimedIp } from '../../bench/feasible-calls';

/** IPs that come on screen at `times` and are known only then, due W later. */
const onScreenAt = (times: number[], w: number): TimedIp[] => times.map((t) => ({ knownAt: t, dueAt: t + w }));

describe('latencyFeasibleMinimum', () => {
  it('is the plain minimum when every IP is known at once', () => {
    const ips = onScreenAt(Array<number>(250).fill(0), 400);
    expect(latencyFeasibleMinimum({ withDeadline: ips, withoutDeadline: [] })).toBe(3);
    expect(plainMinimum(250)).toBe(3);
  });

  it('needs a call per window when IPs trickle in: one new IP every 100 ms for 3 s, W = 400 ms', () => {
    const times = Array.from({ length: 30 }, (_, i) => i * 100);
    // Calls at 400 (IPs 0..400), 900 (500..900), 1400, ... 2900 (2500..2900): 6 calls.
    expect(latencyFeasibleMinimum({ withDeadline: onScreenAt(times, 400), withoutDeadline: [] })).toBe(6);
    expect(plainMinimum(30)).toBe(1);
  });

  it('an IP known before it is due may ride an earlier call (prefetch)', () => {
    // B comes on screen at 1000 but was known (asked near the screen) at 100: one call at 400 takes both.
    const ips: TimedIp[] = [
      { knownAt: 0, dueAt: 400 },
      { knownAt: 100, dueAt: 1400 },
    ];
    expect(latencyFeasibleMinimum({ withDeadline: ips, withoutDeadline: [] })).toBe(1);
    // Known only when on screen: two calls.
    expect(latencyFeasibleMinimum({ withDeadline: onScreenAt([0, 1000], 400), withoutDeadline: [] })).toBe(2);
  });

  it('more than a batch due at once takes several calls at that moment', () => {
    const times = [...Array<number>(150).fill(0), ...Array<number>(10).fill(200)];
    // At 400: all 160 known, in 2 calls.
    expect(latencyFeasibleMinimum({ withDeadline: onScreenAt(times, 400), withoutDeadline: [] })).toBe(2);
  });

  it('IPs without a deadline fill the room left, then take calls of their own', () => {
    const ips = onScreenAt([0, 1000], 400);
    const knownAtStart = (n: number) => Array<number>(n).fill(0);
    expect(latencyFeasibleMinimum({ withDeadline: ips, withoutDeadline: knownAtStart(198) })).toBe(2);
    expect(latencyFeasibleMinimum({ withDeadline: ips, withoutDeadline: knownAtStart(199) })).toBe(3);
    expect(latencyFeasibleMinimum({ withDeadline: [], withoutDeadline: knownAtStart(101) })).toBe(2);
    expect(latencyFeasibleMinimum({ withDeadline: [], withoutDeadline: [] })).toBe(0);
  });

  it('an IP without a deadline rides only a call made once it is known', () => {
    // Calls at 400 and 1,400, with room. Known at 1,000: rides the second.
    const ips = onScreenAt([0, 1000], 400);
    expect(latencyFeasibleMinimum({ withDeadline: ips, withoutDeadline: [1_000] })).toBe(2);
    // Known at 2,000, after both (a tail's row brought near the screen after the last on-screen
    // call): no call it could ride, so one of its own. Several such take one call together.
    expect(latencyFeasibleMinimum({ withDeadline: ips, withoutDeadline: [2_000] })).toBe(3);
    expect(latencyFeasibleMinimum({ withDeadline: ips, withoutDeadline: [2_000, 5_000, 9_000] })).toBe(3);
    // The earliest call's room goes to what is known by then, leaving later calls for the rest.
    expect(latencyFeasibleMinimum({ withDeadline: ips, withoutDeadline: [...Array<number>(99).fill(0), ...Array<number>(99).fill(1_000)] })).toBe(2);
    expect(latencyFeasibleMinimum({ withDeadline: ips, withoutDeadline: [...Array<number>(99).fill(1_000), ...Array<number>(99).fill(0)] })).toBe(2);
  });
});

describe('the session inputs', () => {
  const firstAsked = new Map([
    ['1.1.1.1', 1_000], // on screen at the start, asked during the settle
    ['2.2.2.2', 5_000], // on screen at 4,900, asked at 5,000, marked at 5,120
    ['3.3.3.3', 6_000], // asked near the screen at 6,000, on screen at 6,500
    ['4.4.4.4', 7_000], // asked, never on screen
  ]);
  const sightings = new Map([
    ['1.1.1.1', { firstSeen: 3_000, atStart: true, markedAt: 3_000, lastSeen: 3_500 }],
    ['2.2.2.2', { firstSeen: 4_900, atStart: false, markedAt: 5_120, lastSeen: 6_000 }],
    ['3.3.3.3', { firstSeen: 6_500, atStart: false, markedAt: 6_500, lastSeen: 6_600 }],
    ['5.5.5.5', { firstSeen: 6_500, atStart: false, markedAt: null, lastSeen: 6_600 }], // gone before due
    ['6.6.6.6', { firstSeen: 6_500, atStart: false, markedAt: null, lastSeen: 7_100 }], // never marked
    ['9.9.9.9', { firstSeen: 6_500, atStart: false, markedAt: null, lastSeen: 7_100 }], // never asked: not counted
  ]);
  firstAsked.set('5.5.5.5', 6_550);
  firstAsked.set('6.6.6.6', 6_550);

  it('answer + paint counts only IPs on screen before their call', () => {
    expect(answerPaintSamples({ firstAsked, sightings })).toEqual([120]);
  });

  it('appearance: first on screen, or the first ask for IPs already there at the start', () => {
    const input = feasibleInputOf({ firstAsked, sightings }, 400);
    expect(input.withoutDeadline).toEqual([7_000]);
    expect(input.withDeadline).toEqual([
      { knownAt: 1_000, dueAt: 1_400 },
      { knownAt: 4_900, dueAt: 5_300 },
      { knownAt: 6_000, dueAt: 6_900 },
      { knownAt: 6_500, dueAt: 6_900 },
      { knownAt: 6_500, dueAt: 6_900 },
    ]);
  });

  it('new addresses: first on screen to marked, never marked as Infinity, gone-before-due left out', () => {
    expect(newIpLatencies({ firstAsked, sightings }, 500)).toEqual([220, 0, Infinity]);
  });
});

describe('callMakeup', () => {
  it('splits each call by whether its IPs were on screen before it, only after it, or never', () => {
    const sighting = (firstSeen: number, atStart = false) => ({ firstSeen, atStart, markedAt: null, lastSeen: firstSeen + 1_000 });
    const sightings = new Map([
      ['a', sighting(1_000)],
      ['b', sighting(1_300)],
      ['c', sighting(2_000)],
      ['d', sighting(0, true)],
    ]);
    const calls = [{ atMs: 1_350, ips: ['a', 'b', 'c', 'd', 'e'] }];
    // d was on screen at the start: no wait measured for it.
    expect(callMakeup(calls, sightings)).toEqual([{ atMs: 1_350, ips: 5, onScreen: 3, longestOnScreenMs: 350, laterOnScreen: 1, soonestLaterMs: 650, never: 1 }]);
  });
});
