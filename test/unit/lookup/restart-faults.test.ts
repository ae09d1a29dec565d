/**
 * Nothing bought twice, whatever moment the service worker is stopped at: pages ask for their
 * IPs, the worker is stopped at random points of its batches (one to three times per run, many
 * seeds), the pages ask again as content scripts do when their message goes unanswered, and the
 * server's per-IP log must show no IP asked again after a 2xx answer about it went out.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LookupService } from '../../../lib/lookup/lookup-service';
import type { LookupResult } from '../../../lib/lookup/types';
import { createWorld, type World } from './helpers/mortal-worker';
import { publicIps } from './helpers/ips';

/** Three pages with overlapping lists: 250 unique IPs, three bulk calls' worth. */
const PAGES = [0, 1, 2].map((k) => publicIps(120, k * 65));

function askAll(service: LookupService, priority: 'visible' | 'manual' = 'visible'): Promise<LookupResult[][]> {
  return Promise.all(PAGES.map((ips, k) => service.lookup(ips, { priority, source: `${k}:0:doc` })));
}

/** Moves the clock until `ms` have passed (the worker is stopped then) or everything settled. */
async function runFor(world: World, promise: Promise<unknown>, ms: number): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  for (let t = 0; t < ms && !done; t += 1) await world.clock.advance(1);
  return done;
}

const answered = (r: LookupResult) => r.status === 'found' || r.status === 'not-found';

describe('a worker stopped at random points of its batches', () => {
  it('never sends an IP again after its 2xx answer went out (many seeds, up to three stops)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 2 ** 31 - 1 }),
        fc.array(fc.integer({ min: 0, max: 150 }), { minLength: 1, maxLength: 3 }),
        async (seed, stops) => {
          const world = createWorld(seed);
          for (const stopAfterMs of stops) {
            const worker = world.startWorker();
            await runFor(world, askAll(worker), stopAfterMs);
            world.stopWorker();
          }
          // The pages ask once more of a worker that is left to finish.
          const last = world.startWorker();
          const asked = askAll(last);
          expect(await runFor(world, asked, 60_000)).toBe(true);
          const results = await asked;

          expect(world.ipLog.resentAfter2xx()).toEqual([]);
          // Nothing is lost: each IP is answered, or held back because a stopped worker asked
          // it and its answer never reached the cache (the server may have charged for it).
          const held = new Set<string>();
          for (const r of results.flat()) {
            if (r.status === 'skipped' && r.reason === 'interrupted') held.add(r.ip);
            else expect(answered(r), JSON.stringify(r)).toBe(true);
          }
          // At most what was in flight when each stop came: three calls of 100.
          expect(held.size).toBeLessThanOrEqual(stops.length * 300);

          // The analyst asks for the held ones by hand: sent once more, on purpose, then cached.
          if (held.size) {
            const manual = last.lookup([...held], { priority: 'manual' });
            expect(await runFor(world, manual, 60_000)).toBe(true);
            expect((await manual).every(answered)).toBe(true);
            const again = askAll(last);
            expect(await runFor(world, again, 60_000)).toBe(true);
            expect((await again).flat().every(answered)).toBe(true);
          }
        },
      ),
      { numRuns: 60 },
    );
  }, 120_000);

  it('an answer that came back is in the store before its callers hear it', async () => {
    const world = createWorld(7);
    const worker = world.startWorker();
    const ips = PAGES[0]!;
    const results = worker.lookup(ips, { priority: 'visible', source: '0:0:doc' });
    expect(await runFor(world, results, 60_000)).toBe(true);
    // Stopped the moment the callers have their answers: a new worker asks nothing.
    world.stopWorker();
    const before = world.ipLog.all().length;
    const next = world.startWorker();
    const again = next.lookup(ips, { priority: 'visible', source: '0:0:doc' });
    expect(await runFor(world, again, 60_000)).toBe(true);
    expect(world.ipLog.all().length).toBe(before);
    expect((await again).map((r) => r.status)).toEqual((await results).map((r) => r.status));
  });
});
