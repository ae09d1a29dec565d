/**
 * What the background worker asks of the browser during a hostile page's load: the
 * storm's blocking with lookups on is ~20 ms a load more than with them off, spent outside the
 * page (the browser's main thread, the worker). Counts, per scanned load, the worker's calls to
 * storage (per area and key), messages to tabs, the toolbar button, tabs.get, fetch and IndexedDB
 * transactions, and the messages it received by type. Counts do not depend on the machine's load.
 *
 *   BENCH_EXTENSION_DIR=<build> npx tsx test/bench/worker-calls.ts
 *   WORKER_CALLS_PAGE (default mutation-storm.html), WORKER_CALLS_LOADS (default 3), BENCH_HOSTILE_WINDOW_MS (8000)
 */
import { withHostileSession } from './hostile-session';

const PAGE = process.env.WORKER_CALLS_PAGE ?? 'mutation-storm.html';
const LOADS = Number(process.env.WORKER_CALLS_LOADS ?? 3);
const WINDOW_MS = Number(process.env.BENCH_HOSTILE_WINDOW_MS ?? 8_000);

/** Runs in the worker: wraps the APIs once, counting into globalThis.__calls. */
function instrument(): void {
  type Methods = Record<string, (...args: unknown[]) => unknown>;
  type Chrome = {
    storage: Record<'local' | 'session', Methods>;
    tabs: Methods;
    action: Methods;
    runtime: { onMessage: { addListener(listener: (message: { type?: string }) => undefined): void } };
  };
  const g = globalThis as unknown as { __calls?: Record<string, number>; chrome: Chrome } & Methods;
  if (g.__calls) return;
  const calls: Record<string, number> = {};
  g.__calls = calls;
  const count = (name: string) => (calls[name] = (calls[name] ?? 0) + 1);
  const keysOf = (arg: unknown) => (Array.isArray(arg) ? arg.join(',') : arg && typeof arg === 'object' ? Object.keys(arg).join(',') : String(arg));
  const wrap = (owner: Methods, method: string, label: (args: unknown[]) => string) => {
    const original = owner[method]!.bind(owner);
    owner[method] = (...args: unknown[]) => {
      count(label(args));
      return original(...args);
    };
  };
  for (const area of ['local', 'session'] as const) {
    wrap(g.chrome.storage[area], 'set', (a) => `storage.${area}.set ${keysOf(a[0])}`);
    wrap(g.chrome.storage[area], 'get', (a) => `storage.${area}.get ${keysOf(a[0])}`);
    wrap(g.chrome.storage[area], 'remove', (a) => `storage.${area}.remove ${keysOf(a[0])}`);
  }
  wrap(g.chrome.tabs, 'sendMessage', (a) => `tabs.sendMessage ${(a[1] as { type?: string })?.type}`);
  wrap(g.chrome.tabs, 'get', () => 'tabs.get');
  for (const m of ['setBadgeText', 'setBadgeBackgroundColor', 'setTitle', 'setIcon', 'setBadgeTextColor']) wrap(g.chrome.action, m, () => `action.${m}`);
  wrap(g, 'fetch', (a) => `fetch ${new URL(String(a[0] instanceof Request ? a[0].url : a[0])).pathname}`);
  const idbTransaction = IDBDatabase.prototype.transaction;
  IDBDatabase.prototype.transaction = function (this: IDBDatabase, ...args: Parameters<typeof idbTransaction>) {
    count(`idb.transaction ${args[1] ?? 'readonly'}`);
    return idbTransaction.apply(this, args);
  } as typeof idbTransaction;
  g.chrome.runtime.onMessage.addListener((m) => {
    count(`received ${m?.type}`);
    return undefined;
  });
}

async function main() {
  await withHostileSession('iplens-worker-calls-', async ({ context, scanned }) => {
    const worker = context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker'));
    for (let load = 0; load < LOADS; load++) {
      // (`__name`: what tsx's keepNames puts into the functions' text; the worker has none.)
      await worker.evaluate(`globalThis.__name ??= (f) => f; (${instrument.toString()})()`);
      await worker.evaluate(() => {
        const g = globalThis as unknown as { __calls: Record<string, number> };
        for (const k of Object.keys(g.__calls)) delete g.__calls[k];
      });
      const page = await context.newPage();
      await page.goto(scanned(PAGE));
      await page.waitForTimeout(WINDOW_MS);
      await page.close();
      await new Promise((r) => setTimeout(r, 500));
      const calls = await worker.evaluate(() => ({ ...(globalThis as unknown as { __calls: Record<string, number> }).__calls }));
      const total = Object.values(calls).reduce((a, b) => a + b, 0);
      console.log(`load ${load + 1} of ${PAGE}: ${total} calls`);
      for (const [name, n] of Object.entries(calls).sort((a, b) => b[1] - a[1])) console.log(`  ${String(n).padStart(4)}  ${name}`);
    }
  });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
