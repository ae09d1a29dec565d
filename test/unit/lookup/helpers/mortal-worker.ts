/**
 * A service worker that can be stopped at any moment, as MV3 does: a "world" of one API server
 * (with the simulator's per-IP log), persistent stores and a manual clock, in which each
 * LookupService instance is one worker run. Everything a worker does outside itself (a request
 * travelling to the server, its answer travelling back, a store read or write) takes a random
 * few milliseconds of the clock; stopping the worker freezes all of it where it stands: a
 * request not yet arrived never arrives, an answer on its way is lost, a write not yet landed
 * never lands, its timers never fire. The next worker starts over the same stores.
 */
import type { BulkLookup } from '../../../../lib/api/types';
import type { CacheStore } from '../../../../lib/lookup/cache-store';
import { createMemoryCacheStore } from '../../../../lib/lookup/cache-store';
import type { CallJournalStore } from '../../../../lib/lookup/call-journal';
import type { Clock } from '../../../../lib/lookup/clock';
import { LookupService } from '../../../../lib/lookup/lookup-service';
import { createMemoryLedgerStore, type LedgerStore } from '../../../../lib/lookup/quota-ledger';
import { DEFAULT_LOOKUP_POLICY } from '../../../../lib/settings';
import { IpLog } from '../../../sim/ip-log';
import { FakeApiClient, isFound, reputationOf } from './fake-api-client';
import { createManualClock, type ManualClock } from './manual-clock';
import { seededRandom } from '../../../seeded-random';


const never = <T>() => new Promise<T>(() => undefined);

export interface World {
  clock: ManualClock;
  /** The server's log: which IPs each request asked, and when 2xx answers went out. */
  ipLog: IpLog;
  /** Starts a new worker run (the previous one must have been stopped). */
  startWorker(): LookupService;
  /** Stops the current worker where it stands. */
  stopWorker(): void;
}

export function createWorld(seed: number): World {
  const random = seededRandom(seed);
  const clock = createManualClock();
  const ipLog = new IpLog();
  const cacheRecords = createMemoryCacheStore();
  const ledger: LedgerStore = createMemoryLedgerStore();
  let journalValue: unknown;
  let run = 0;

  /** Waits a random 0-`max` ms of the clock; never resolves if the worker stops meanwhile. */
  const travel = async (mine: number, max = 30): Promise<void> => {
    await new Promise<void>((resolve) => clock.setTimeout(resolve, Math.floor(random() * max)));
    if (mine !== run) await never();
  };

  /** The clock as one worker run sees it: its timers die with it. */
  const clockOf = (mine: number): Clock => ({
    now: () => clock.now(),
    setTimeout: (callback, ms) => clock.setTimeout(() => mine === run && callback(), ms),
    clearTimeout: (handle) => clock.clearTimeout(handle),
  });

  const cacheStoreOf = (mine: number): CacheStore => ({
    getMany: async (ips) => {
      await travel(mine, 5);
      return cacheRecords.getMany(ips);
    },
    putMany: async (records) => {
      // A write lands whole, when its transaction commits, or not at all.
      await travel(mine, 10);
      return cacheRecords.putMany(records);
    },
    deleteMany: async (ips) => {
      await travel(mine, 5);
      return cacheRecords.deleteMany(ips);
    },
    clear: () => cacheRecords.clear(),
    count: () => cacheRecords.count(),
    setMaxEntries: (n) => cacheRecords.setMaxEntries(n),
    claim: async (owner) => {
      await travel(mine, 5);
      return cacheRecords.claim(owner);
    },
  });

  const journalStoreOf = (mine: number): CallJournalStore => ({
    load: async () => {
      await travel(mine, 5);
      return structuredClone(journalValue);
    },
    save: async (value) => {
      const copy = structuredClone(value);
      await travel(mine, 5);
      journalValue = copy;
    },
  });

  class MortalClient extends FakeApiClient {
    constructor(private readonly mine: number) {
      super();
    }

    override async checkIpBulk(ips: readonly string[]): Promise<BulkLookup> {
      this.bulkCalls.push([...ips]);
      await travel(this.mine); // on its way to the server
      const asks = ipLog.asked('/checkIP/bulk', ips);
      ipLog.answered(asks, 200); // the server answered: it may have charged
      await travel(this.mine); // the answer on its way back
      return {
        requests: 1,
        items: ips.map((ip) => (isFound(ip) ? { ip, status: 'found', data: reputationOf(ip) } : { ip, status: 'not-found' })),
      };
    }
  }

  return {
    clock,
    ipLog,
    startWorker() {
      const mine = ++run;
      const client = new MortalClient(mine);
      client.account_ = { used: 0, limit: 100_000 };
      return new LookupService({
        clientSource: async () => ({ server: 'https://api.test/v1', handle: { client, identity: 'key-1' } }),
        policySource: async () => DEFAULT_LOOKUP_POLICY,
        initialPolicy: DEFAULT_LOOKUP_POLICY,
        cacheStore: cacheStoreOf(mine),
        ledgerStore: ledger,
        journalStore: journalStoreOf(mine),
        clock: clockOf(mine),
        batch: { random: () => 0.5 },
      });
    },
    stopWorker() {
      run++;
    },
  };
}
