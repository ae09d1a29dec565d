/**
 * MV3 stops an idle service worker after 30 s, and may stop it at any moment. This drives the
 * built extension in Chromium against the API simulator, stops the worker (DevTools protocol)
 * while a bulk call is in flight, and checks what matters to the product: callers that ask
 * again are all answered, nothing is lost, and the cache in IndexedDB survives the restart so
 * answered IPs are never paid for twice.
 */
import type { CDPSession, Page } from '@playwright/test';
import { DEMO_KEY } from '../sim/keys';
import { startSimulator, type Simulator } from '../sim/server';
import { expect, test } from './fixtures';
import { setSiteScanning, UNLIMITED_KEY } from './page-support';

/** The bits of `chrome.*` used inside extension pages (no @types/chrome in this project). */
declare const chrome: {
  storage: { local: { set(items: Record<string, unknown>): Promise<void> } };
  runtime: { sendMessage(message: unknown): Promise<unknown> };
};

interface Reply {
  ok: boolean;
  value?: unknown;
  error?: { kind: string; message: string };
}
interface Result {
  ip: string;
  status: string;
}
interface Status {
  queueLength: number;
  inFlight: number;
  cacheSize: number;
}

let sim: Simulator;
test.beforeAll(async () => {
  sim = await startSimulator();
});
test.afterAll(async () => {
  await sim.close();
});
test.beforeEach(() => sim.reset());

/** Three callers with overlapping lists: 300 unique public IPs. */
const CALLERS = [0, 1, 2].map((k) => Array.from({ length: 150 }, (_, i) => `23.7.${(k * 75 + i) >> 8}.${(k * 75 + i) & 255}`));
const UNIQUE = [...new Set(CALLERS.flat())];

function send(page: Page, type: string, payload: unknown): Promise<Reply> {
  return page.evaluate((message) => chrome.runtime.sendMessage(message) as Promise<Reply>, { type, payload });
}

async function status(page: Page): Promise<Status> {
  const reply = await send(page, 'ui:get-status', {});
  if (!reply.ok) throw new Error(`ui:get-status failed: ${JSON.stringify(reply.error)}`);
  return reply.value as Status;
}

/** Every caller asks at once, from the page; each settles to its reply or the error it met. */
function askAll(page: Page): Promise<Array<{ reply?: Reply; failure?: string }>> {
  return page.evaluate(
    (lists) =>
      Promise.all(
        lists.map((ips) =>
          (chrome.runtime.sendMessage({ type: 'ui:lookup', payload: { ips } }) as Promise<Reply>).then(
            (reply) => ({ reply }),
            (error: unknown) => ({ failure: String(error) }),
          ),
        ),
      ),
    CALLERS,
  );
}

async function stopWorkers(cdp: CDPSession): Promise<void> {
  await cdp.send('ServiceWorker.enable');
  await cdp.send('ServiceWorker.stopAllWorkers');
}

/** Entries in the cache database, read from an extension page (same origin as the worker). */
function idbEntries(page: Page): Promise<number> {
  return page.evaluate(
    () =>
      new Promise<number>((resolve, reject) => {
        const open = indexedDB.open('ip-lens-cache');
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const db = open.result;
          const count = db.transaction('entries', 'readonly').objectStore('entries').count();
          count.onsuccess = () => {
            resolve(count.result);
            db.close();
          };
          count.onerror = () => reject(count.error);
        };
      }),
  );
}

const bulkRequests = () => sim.requestLog.filter((e) => e.path === '/checkIP/bulk').length;

test('a worker stopped mid-batch loses nothing: callers that ask again are answered, and the cache survives', async ({
  context,
  extensionId,
}) => {
  const page = await context.newPage();
  await page.goto(`chrome-extension://${extensionId}/popup.html`);
  await page.evaluate(
    ([baseUrl, apiKey]) => chrome.storage.local.set({ apiBaseUrl: baseUrl, apiKey }),
    [sim.baseUrl, DEMO_KEY] as const,
  );
  const cdp = await context.newCDPSession(page);

  // Slow bulk answers, so the worker can be stopped while calls are in flight.
  sim.setFaults({ latencyMs: 1_500, latencyPath: '/checkIP/bulk' });
  const firstRound = askAll(page);
  await expect.poll(async () => (await status(page)).inFlight, { timeout: 15_000 }).toBeGreaterThan(0);
  await stopWorkers(cdp);
  sim.clearFaults();

  // The stop cut every caller off (its message channel closed with no answer): that is what a
  // content script sees. Asking again, every caller is answered, for every one of its IPs.
  const first = await firstRound;
  expect(first.map((o) => o.failure !== undefined)).toEqual(CALLERS.map(() => true));
  const second = await askAll(page);
  second.forEach((outcome, k) => {
    expect(outcome.failure, `caller ${k}`).toBeUndefined();
    expect(outcome.reply?.ok).toBe(true);
    const results = outcome.reply?.value as Result[];
    expect(results.map((r) => r.ip)).toEqual(CALLERS[k]);
    expect(results.every((r) => r.status === 'found' || r.status === 'not-found'), `caller ${k}`).toBe(true);
  });

  // Every IP is cached in IndexedDB; after another stop, a new worker answers from it.
  await expect.poll(async () => (await status(page)).cacheSize, { timeout: 15_000 }).toBe(UNIQUE.length);
  await expect.poll(() => idbEntries(page), { timeout: 15_000 }).toBe(UNIQUE.length);
  await stopWorkers(cdp);
  const before = bulkRequests();
  const third = await askAll(page);
  expect(third.every((o) => o.reply?.ok)).toBe(true);
  expect(third.map((o) => o.reply?.value)).toEqual(second.map((o) => o.reply?.value));
  expect(bulkRequests()).toBe(before);
  expect(await idbEntries(page)).toBe(UNIQUE.length);
  // The stop came before the server answered: asking again paid nothing twice.
  expect(sim.ipLog.resentAfter2xx()).toEqual([]);
});

/** A page of `count` distinct public IPs, one a line, served at a loopback URL the content script scans. */
function ipPage(count: number, from: number): string {
  const ips = Array.from({ length: count }, (_, i) => `23.9.${(from + i) >> 8}.${(from + i) & 255}`);
  return `<!doctype html><html><head><title>alerts</title></head><body><pre>${ips.join('\n')}</pre></body></html>`;
}

/** Seeded stop times, so a failure can be replayed. */
function stopTimes(seed: number, n: number): number[] {
  let a = seed;
  return Array.from({ length: n }, () => {
    a = (a * 1_103_515_245 + 12_345) % 2 ** 31;
    return 80 + (a % 700);
  });
}

test('pages scanning while the worker is stopped again and again: no IP is sent again after its 2xx answer', async ({
  context,
  extensionId,
}) => {
  const setup = await context.newPage();
  await setup.goto(`chrome-extension://${extensionId}/popup.html`);
  await setup.evaluate(
    ([baseUrl, apiKey]) => chrome.storage.local.set({ apiBaseUrl: baseUrl, apiKey }),
    [sim.baseUrl, UNLIMITED_KEY] as const,
  );
  await setSiteScanning(context, extensionId, 'http://127.0.0.1/*', true);
  const cdp = await context.newCDPSession(setup);
  await context.route(`${sim.origin}/generated/**`, (route) => {
    const k = Number(new URL(route.request().url()).pathname.split('/').pop());
    return route.fulfill({ contentType: 'text/html', body: ipPage(300, k * 150) });
  });

  // Answers slow enough that stops land before, during and after calls.
  sim.setFaults({ latencyMs: 150, latencyPath: '/checkIP/bulk' });
  const tabs = await Promise.all([0, 1, 2].map(() => context.newPage()));
  await Promise.all(tabs.map((tab, k) => tab.goto(`${sim.origin}/generated/${k}`)));
  for (const wait of stopTimes(20_261_123, 5)) {
    await new Promise((resolve) => setTimeout(resolve, wait));
    await stopWorkers(cdp);
  }
  // Let the pages finish: no new asks for a while, nothing queued or in flight.
  let seen = -1;
  await expect
    .poll(
      async () => {
        const now = sim.ipLog.all().length;
        const settled = now === seen && (await status(setup)).queueLength === 0 && (await status(setup)).inFlight === 0;
        seen = now;
        return settled;
      },
      { timeout: 60_000, intervals: [2_000] },
    )
    .toBe(true);
  expect(sim.ipLog.resentAfter2xx()).toEqual([]);
  // The pages did ask (how many before the stops cut them off depends on the machine's load).
  expect(new Set(sim.ipLog.all().map((a) => a.ip)).size).toBeGreaterThan(0);
});
