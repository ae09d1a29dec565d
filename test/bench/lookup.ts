/**
 * `npm run bench lookup`: the lookup engine against the API simulator, next to a naive client
 * that calls checkIP once per IP it is asked about (what an extension without a background
 * batcher does). Workload: N unique IPs asked by 10 callers whose lists overlap by 30%, each
 * caller sending its list in messages of 50 IPs, as a content script scanning a page does.
 *
 * Printed per run: HTTP requests vs the minimum ceil(unique/100), quota units spent vs the
 * found IPs, IPs sent twice, and p50/p95 time from ask to answer per message. Every figure is
 * measured in this run, side by side; compare the ratios, not the milliseconds (the machine
 * is shared and noisy).
 *
 * The faulty-network scenario runs the engine against a simulator where 10% of bulk calls
 * lose their answer after being billed (a gateway 502) and 5% answer 429 (billed): it prints
 * units paid / found IPs (goal ≤ 1.1×) and bulk calls / minimum.
 *
 * The half-broken scenarios run a page of 330 IPs for 10 simulated minutes (fake clock) against
 * each half-broken profile (bulk slow / 503 / 429 while /account answers), the engine with its
 * circuit next to the same engine without one (recovery inferred from /account, as before):
 * units paid / found IPs, bulk requests per simulated minute, and how long a mark waited.
 *
 * Flags: BENCH_LOOKUP=faulty runs only the faulty-network scenario, =half-broken only the half-broken ones; BENCH_CACHE=idb puts
 * fake-indexeddb behind the memory LRU (its ~0.3 ms a read then dominates the latencies).
 */
import 'fake-indexeddb/auto';
import { createApiClient } from '../../lib/api';
import type { ApiClient } from '../../lib/api/types';
import { createMemoryCacheStore, type CacheStore } from '../../lib/lookup/cache-store';
import { createIdbCacheStore } from '../../lib/lookup/idb-cache-store';
import { LookupService } from '../../lib/lookup/lookup-service';
import { createMemoryLedgerStore } from '../../lib/lookup/quota-ledger';
import type { LookupPolicy } from '../../lib/settings';
import { prng } from '../sim/dataset';
import { HALF_BROKEN_PROFILE_NAMES } from '../sim/profiles';
import { runHalfBroken } from './half-broken-run';
import { startSimulator, type Simulator } from '../sim/server';

const CALLERS = 10;
const OVERLAP = 0.3;
const MESSAGE_SIZE = 50;
/** A browser allows 6 connections per host over HTTP/1.1: the naive client gets as many. */
const NAIVE_CONCURRENCY = 6;
const SIZES = [1_000, 10_000];
/**
 * The persistent layer behind the memory LRU: an in-memory store by default; BENCH_CACHE=idb
 * uses fake-indexeddb, whose ~0.3 ms per read (pure JS, far slower than a browser's
 * IndexedDB) then dominates the latency figures.
 */
const CACHE = process.env.BENCH_CACHE === 'idb' ? 'idb' : 'memory';

/**
 * The bench's own policy (lib/settings cannot load outside a WXT build): the defaults, with
 * the per-page cap lifted so the whole workload is looked up.
 */
const POLICY: LookupPolicy = {
  sendPrivate: false,
  automatic: true,
  perPageCap: 100_000,
  siteDailyCap: 1_000_000,
  reservePercent: 10,
  ttlFoundMinutes: 24 * 60,
  ttlNotFoundMinutes: 6 * 60,
  ttlDetailedMinutes: 7 * 24 * 60,
  cacheMaxEntries: 50_000,
};

interface Workload {
  unique: string[];
  /** Per caller, its messages in sending order. */
  messages: string[][][];
  asks: number;
}

/** Public IPv4 addresses spread over 23.0.0.0/8 and 45.0.0.0/8. */
function ipAt(i: number, salt: number): string {
  const first = salt % 2 === 0 ? 23 : 45;
  return `${first}.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
}

function buildWorkload(uniqueCount: number, salt: number): Workload {
  // Deterministic shuffle so every run asks the same way.
  const random = prng(uniqueCount + salt);
  const unique = Array.from({ length: uniqueCount }, (_, i) => ipAt(i, salt));
  const own = Array.from({ length: CALLERS }, (_, c) => unique.filter((_, i) => i % CALLERS === c));
  const messages = own.map((mine, c) => {
    // 30% of what each caller asks is also asked by another caller.
    const borrowed = Math.round((mine.length * OVERLAP) / (1 - OVERLAP));
    const others = unique.filter((_, i) => i % CALLERS !== c);
    const list = [...mine];
    for (let k = 0; k < borrowed; k++) list.push(others[Math.floor(random() * others.length)]!);
    for (let i = list.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [list[i], list[j]] = [list[j]!, list[i]!];
    }
    const chunks: string[][] = [];
    for (let i = 0; i < list.length; i += MESSAGE_SIZE) chunks.push(list.slice(i, i + MESSAGE_SIZE));
    return chunks;
  });
  return { unique, messages, asks: messages.flat(2).length };
}

interface RunResult {
  httpRequests: number;
  quotaUnits: number;
  sentTwice: number;
  latencies: number[];
  wallMs: number;
}

function recordingFetch(sent: Map<string, number>): typeof globalThis.fetch {
  return async (input, init) => {
    const url = new URL(String(input));
    if (url.pathname.endsWith('/checkIP/bulk') && typeof init?.body === 'string') {
      for (const ip of (JSON.parse(init.body) as { ips: string[] }).ips) sent.set(ip, (sent.get(ip) ?? 0) + 1);
    } else if (url.pathname.endsWith('/checkIP')) {
      const ip = url.searchParams.get('ip') ?? '';
      sent.set(ip, (sent.get(ip) ?? 0) + 1);
    }
    return globalThis.fetch(input, init);
  };
}

/** Sends every caller's messages as a page scan would (a few ms apart) and times each answer. */
async function drive(workload: Workload, ask: (caller: number, ips: string[]) => Promise<unknown>) {
  const latencies: number[] = [];
  const started = performance.now();
  await Promise.all(
    workload.messages.map(async (messages, caller) => {
      const answers: Promise<void>[] = [];
      for (const ips of messages) {
        const at = performance.now();
        answers.push(ask(caller, ips).then(() => void latencies.push(performance.now() - at)));
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      await Promise.all(answers);
    }),
  );
  return { latencies, wallMs: performance.now() - started };
}

async function measure(sim: Simulator, key: string, body: (client: ApiClient) => Promise<{ latencies: number[]; wallMs: number }>): Promise<RunResult> {
  sim.setKey(key, { maxApiRequests: 1_000_000_000, currentUsage: 0 });
  const logStart = sim.requestLog.length;
  const sent = new Map<string, number>();
  const client = createApiClient({ baseUrl: sim.baseUrl, apiKey: key, authHeader: 'authorization', fetch: recordingFetch(sent) });
  const { latencies, wallMs } = await body(client);
  const log = sim.requestLog.slice(logStart).filter((e) => e.path !== '/account');
  return {
    httpRequests: log.length,
    quotaUnits: sim.usage(key),
    sentTwice: [...sent.values()].filter((n) => n > 1).length,
    latencies,
    wallMs,
  };
}

function engineRun(sim: Simulator, workload: Workload, key: string, cacheStore: CacheStore) {
  return measure(sim, key, async (client) => {
    const service = new LookupService({
      clientSource: async () => ({ server: sim.baseUrl, handle: { client, identity: key } }),
      policySource: async () => POLICY,
      initialPolicy: POLICY,
      cacheStore,
      ledgerStore: createMemoryLedgerStore(),
    });
    await service.status(); // the worker's start-up (/account), outside the timed part
    const result = await drive(workload, (caller, ips) => service.lookup(ips, { priority: 'visible', source: `tab${caller}:0:doc` }));
    await service.whenIdle();
    return result;
  });
}

function naiveRun(sim: Simulator, workload: Workload, key: string) {
  return measure(sim, key, async (client) => {
    // One checkIP per IP asked, through one pool of NAIVE_CONCURRENCY connections.
    let active = 0;
    const waiting: Array<() => void> = [];
    const slot = async () => {
      if (active >= NAIVE_CONCURRENCY) await new Promise<void>((resolve) => waiting.push(resolve));
      active++;
    };
    const free = () => {
      active--;
      waiting.shift()?.();
    };
    const checkOne = async (ip: string) => {
      await slot();
      try {
        return await client.checkIp(ip);
      } catch {
        return null;
      } finally {
        free();
      }
    };
    return drive(workload, (_caller, ips) => Promise.all([...new Set(ips)].map(checkOne)));
  });
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

const fmt = (n: number) => n.toLocaleString('en-US');
const ms = (n: number) => `${n.toFixed(1)} ms`;
const ratio = (a: number, b: number) => (b === 0 ? (a === 0 ? '1.00' : '∞') : (a / b).toFixed(2));

function report(label: string, r: RunResult, minimum: number, found: number) {
  console.log(
    `  ${label.padEnd(12)} requests ${fmt(r.httpRequests).padStart(6)} (${ratio(r.httpRequests, minimum)}× min)` +
      ` | quota ${fmt(r.quotaUnits).padStart(6)} (${ratio(r.quotaUnits, found)}× found)` +
      ` | sent twice ${fmt(r.sentTwice).padStart(5)}` +
      ` | p50 ${ms(percentile(r.latencies, 50))}, p95 ${ms(percentile(r.latencies, 95))}` +
      ` | wall ${ms(r.wallMs)}`,
  );
}

/** 10% of bulk calls lose their billed answer, 5% are rate limited (both billed). */
const FAULTY_SIZE = 5_000;

async function faultyRun(sim: Simulator): Promise<void> {
  const workload = buildWorkload(FAULTY_SIZE, 7);
  const minimum = Math.ceil(FAULTY_SIZE / 100);
  const found = workload.unique.filter((ip) => sim.dataset.lookup(ip) !== null).length;
  sim.clearFaults();
  sim.setFaults({
    serverError: { count: 1_000, every: 10, status: 502, html: true, afterCharge: true, path: '/checkIP/bulk' },
    rateLimit: { count: 1_000, every: 20, offset: 5, path: '/checkIP/bulk' },
  });
  const key = 'bench-faulty';
  const logStart = sim.requestLog.length;
  const result = await measure(sim, key, async (client) => {
    const service = new LookupService({
      clientSource: async () => ({ server: sim.baseUrl, handle: { client, identity: key } }),
      policySource: async () => POLICY,
      initialPolicy: POLICY,
      cacheStore: createMemoryCacheStore(),
      ledgerStore: createMemoryLedgerStore(),
    });
    await service.status();
    const timed = await drive(workload, (caller, ips) => service.lookup(ips, { priority: 'visible', source: `tab${caller}:0:doc` }));
    await service.whenIdle();
    return timed;
  });
  const log = sim.requestLog.slice(logStart);
  const bulk = log.filter((e) => e.path === '/checkIP/bulk');
  const lost = bulk.filter((e) => e.fault === 'serverError').length;
  const limited = bulk.filter((e) => e.status === 429).length;
  sim.clearFaults();
  console.log(
    `\nFaulty network: ${fmt(FAULTY_SIZE)} unique IPs, found ${fmt(found)}; of ${fmt(bulk.length)} bulk calls ${lost} lost their billed answer, ${limited} were 429`,
  );
  console.log(
    `  units paid / found IPs ${ratio(result.quotaUnits, found)}× (goal ≤ 1.10×; ${fmt(result.quotaUnits)} units)` +
      ` | bulk calls / minimum ${ratio(bulk.length, minimum)}× (${fmt(bulk.length)} / ${fmt(minimum)})` +
      ` | /account calls ${log.filter((e) => e.path === '/account').length} | wall ${ms(result.wallMs)}`,
  );
}

const HALF_BROKEN_MINUTES = 10;

async function halfBrokenRuns(sim: Simulator): Promise<void> {
  const page = buildWorkload(330, 11).unique;
  console.log(`\nHalf-broken API: a page of ${page.length} IPs, ${HALF_BROKEN_MINUTES} simulated minutes, /account healthy throughout`);
  for (const profile of HALF_BROKEN_PROFILE_NAMES) {
    for (const circuit of [true, false]) {
      sim.reset();
      const r = await runHalfBroken(sim, profile, page, HALF_BROKEN_MINUTES, { policy: POLICY, circuit });
      const waits = r.waits.length ? Math.max(...r.waits) : 0;
      console.log(
        `  ${profile.padEnd(28)} ${circuit ? 'circuit   ' : 'no circuit'}: units paid / found IPs ${ratio(r.paid, r.found)}× (${fmt(r.paid)} / ${fmt(r.found)})` +
          ` | bulk requests / min ${(r.bulkRequests / HALF_BROKEN_MINUTES).toFixed(1)} (${fmt(r.bulkRequests)})` +
          ` | answered ${fmt(r.answered)}, still "Looking up…" ${fmt(r.stillWaiting)}, longest wait ${(waits / 1000).toFixed(1)} s`,
      );
    }
  }
  sim.useTimers(null);
  sim.setProfile('spec');
}

export async function run(): Promise<void> {
  const sim = await startSimulator({ logLimit: 1_000_000 });
  try {
    // BENCH_LOOKUP=faulty runs only the faulty-network scenario, =half-broken only the half-broken ones.
    if (process.env.BENCH_LOOKUP === 'half-broken') return await halfBrokenRuns(sim);
    const sizes = process.env.BENCH_LOOKUP === 'faulty' ? [] : SIZES;
    for (const [index, size] of sizes.entries()) {
      const workload = buildWorkload(size, index);
      const minimum = Math.ceil(size / 100);
      const found = workload.unique.filter((ip) => sim.dataset.lookup(ip) !== null).length;
      console.log(
        `\n${fmt(size)} unique IPs (cache: ${CACHE}), ${CALLERS} callers, ${fmt(workload.asks)} asks (${OVERLAP * 100}% overlap), ` +
          `messages of ${MESSAGE_SIZE}; minimum requests ${fmt(minimum)}, found IPs ${fmt(found)}`,
      );
      // The warm run is a restarted service over the same store: everything comes from the cache.
      const cacheStore = CACHE === 'idb' ? createIdbCacheStore({ name: `bench-lookup-${size}-${Date.now()}` }) : createMemoryCacheStore();
      const engine = await engineRun(sim, workload, `bench-engine-${size}`, cacheStore);
      report('engine', engine, minimum, found);
      const warm = await engineRun(sim, workload, `bench-warm-${size}`, cacheStore);
      report('engine warm', warm, minimum, found);
      const naive = await naiveRun(sim, workload, `bench-naive-${size}`);
      report('naive', naive, minimum, found);
      console.log(
        `  naive/engine: requests ${ratio(naive.httpRequests, engine.httpRequests)}×, quota ${ratio(naive.quotaUnits, engine.quotaUnits)}×, ` +
          `p50 ${ratio(percentile(naive.latencies, 50), percentile(engine.latencies, 50))}×, ` +
          `p95 ${ratio(percentile(naive.latencies, 95), percentile(engine.latencies, 95))}×, ` +
          `wall ${ratio(naive.wallMs, engine.wallMs)}×`,
      );
    }
    await faultyRun(sim);
    await halfBrokenRuns(sim);
  } finally {
    await sim.close();
  }
}
