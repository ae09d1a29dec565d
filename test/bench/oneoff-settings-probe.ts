/**
 * How long the display-settings request of a one-off scan takes, round trip, sent from the page's
 * isolated world (as the content script sends it) while the scan request is answered, and from an
 * extension page (refused there at once: the router's sender check). fromPage: [first, second
 * sent 200 ms later] ms from the first's send, per injected probe. In a fresh browser the first
 * ~3 s are the handler's `storage.managed.get()` (Chromium readies the policy domain at start),
 * not message delivery: docs/page-performance.md, "The one-off's 2 s wait is the policy read".
 *
 *   BENCH_EXTENSION_DIR=<build> npx tsx test/bench/oneoff-settings-probe.ts
 *   PROBE_WAIT_MS: wait that long after load first; PROBE_ROWS: the table's rows (default 10,000);
 *   PROBE_FROM_WORKER=1: no extension page open, the probe injected by the service worker.
 */
import path from 'node:path';
import { startSimulator } from '../sim/server';
import { NAV_TIMEOUT_MS, NAME_SHIM, withExtension, type ExtApi } from './page';

/**
 * Defines `probe` where it is evaluated (the extension page or the worker), to be injected into
 * the page's isolated world: two display-settings requests, the second 200 ms after the first (is
 * it the first request that waits, or every request in a window after the load?). A string: tsx
 * would put its `__name` helper into a function's text, which the page does not have.
 */
const DEFINE_PROBE = `globalThis.probe = async () => {
  const s = performance.now();
  const ask = () => chrome.runtime.sendMessage({ type: 'cs:get-display-settings', payload: {} }).then(() => Math.round(performance.now() - s));
  const first = ask();
  await new Promise((r) => setTimeout(r, 200));
  return [await first, await ask()];
}`;

async function main(): Promise<void> {
  const sim = await startSimulator({ port: 0, staticDir: path.resolve('test/fixtures') });
  const dir = process.env.BENCH_EXTENSION_DIR ?? '.output/chrome-mv3-e2e';
  try {
    for (let r = 0; r < 3; r++) {
      await withExtension(sim, dir, async (context, ext) => {
        const url = `${sim.origin}/pages/siem/big-table.html${process.env.PROBE_ROWS ? `?rows=${process.env.PROBE_ROWS}` : ''}`;
        const page = await context.newPage();
        await page.addInitScript(NAME_SHIM);
        await page.goto(url, { timeout: NAV_TIMEOUT_MS });
        await page.waitForLoadState('load');
        await page.waitForTimeout(Number(process.env.PROBE_WAIT_MS ?? 0));
        await ext.evaluate(DEFINE_PROBE);
        if (process.env.PROBE_FROM_WORKER) {
          // No extension page open (the bench keeps its options page in a background tab): the
          // probe is injected by the service worker.
          const worker = context.serviceWorkers().find((w) => w.url().startsWith('chrome-extension://'))!;
          await ext.close();
          await worker.evaluate(DEFINE_PROBE);
          const fromPage = await worker.evaluate(`(async () => {
            const [tab] = await chrome.tabs.query({ url: ${JSON.stringify(url)} });
            const out = [];
            for (let i = 0; i < 3; i++) out.push((await chrome.scripting.executeScript({ target: { tabId: tab.id }, func: globalThis.probe }))[0].result);
            return out;
          })()`);
          console.log(`round ${r + 1}, no extension page: ${JSON.stringify(fromPage)}`);
          return;
        }
        const times = await ext.evaluate(async (u) => {
          const c = (globalThis as unknown as { chrome: ExtApi }).chrome;
          const [tab] = await c.tabs.query({ url: u });
          const t0 = performance.now();
          const before = await c.runtime.sendMessage({ type: 'cs:get-display-settings', payload: {} });
          const tBefore = performance.now() - t0;
          const t1 = performance.now();
          const scan = c.runtime.sendMessage({ type: 'ui:scan-tab', payload: { tabId: tab!.id } }).then(() => performance.now() - t1);
          const during: number[] = [];
          for (let i = 0; i < 5; i++) {
            const s = performance.now();
            await c.runtime.sendMessage({ type: 'cs:get-display-settings', payload: {} });
            during.push(Math.round(performance.now() - s));
            await new Promise((res) => setTimeout(res, 200));
          }
          const fromPage: unknown[] = [];
          for (let i = 0; i < 3; i++) {
            const res = await (c as unknown as { scripting: { executeScript(x: unknown): Promise<{ result: unknown }[]> } }).scripting.executeScript({ target: { tabId: tab!.id }, func: (globalThis as unknown as { probe: () => Promise<number> }).probe });
            fromPage.push(res[0]?.result);
          }
          return { fromPage, settingsBefore: Math.round(tBefore), settingsDuring: during, scanAnswered: Math.round(await scan), ok: !!before };
        }, url);
        console.log(`round ${r + 1}: ${JSON.stringify(times)}`);
      });
    }
  } finally {
    await sim.close();
  }
}

void main();
