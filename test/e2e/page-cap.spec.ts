/**
 * The per-page cap as an analyst expects it, in Chromium against the simulator: per tab and
 * site with every frame together, kept across reloads, and a daily ceiling for all tabs of a
 * site. Counted where it matters: the IPs the simulator was asked about.
 */
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { configure, setSiteScanning, usePageSimulator } from './page-support';

declare const chrome: { storage: { local: { set(items: Record<string, unknown>): Promise<void> } } };

const env = usePageSimulator({ scanLoopback: true });

const ipsFrom = (n: number, from: number) => Array.from({ length: n }, (_, i) => `23.11.${(from + i) >> 8}.${(from + i) & 255}`);
const html = (body: string) => `<!doctype html><html><head><title>cap</title></head><body>${body}</body></html>`;

/** IPs the simulator has been asked about. */
const askedIps = () => new Set(env.sim.ipLog.all().map((a) => a.ip)).size;

/** Waits until the simulator has seen no new ask for a while. */
async function quiet(): Promise<number> {
  let last = -1;
  await expect
    .poll(
      () => {
        const now = env.sim.ipLog.all().length;
        const same = now === last;
        last = now;
        return same;
      },
      { timeout: 30_000, intervals: [1_500] },
    )
    .toBe(true);
  return askedIps();
}

test('a site cannot spend more than its cap with iframes, reloads or more tabs', async ({ context, extensionId }) => {
  const setup = await context.newPage();
  await setup.goto(`chrome-extension://${extensionId}/options.html`);
  await setup.evaluate(
    (policy) => chrome.storage.local.set({ lookupPolicy: policy }),
    {
      sendPrivate: false,
      automatic: true,
      perPageCap: 40,
      siteDailyCap: 100,
      reservePercent: 10,
      ttlFoundMinutes: 1440,
      ttlNotFoundMinutes: 360,
      ttlDetailedMinutes: 10080,
      cacheMaxEntries: 50000,
    },
  );
  await configure(context, extensionId, env.sim);
  await setSiteScanning(context, extensionId, 'http://127.0.0.1/*', true);
  let served = 0;
  // Every page and frame gets IPs no other has shown: nothing comes from the cache.
  await context.route(`${env.sim.origin}/cap/**`, (route) => {
    const name = new URL(route.request().url()).pathname.split('/').pop() ?? '';
    const body = name.startsWith('top')
      ? `<pre>${ipsFrom(30, 1_000 * ++served).join('\n')}</pre>` +
        Array.from({ length: 6 }, (_, f) => `<iframe src="/cap/frame-${f}-${served}" width="300" height="300"></iframe>`).join('')
      : `<pre>${ipsFrom(60, 1_000 * ++served).join('\n')}</pre>`;
    return route.fulfill({ contentType: 'text/html', body: html(body) });
  });

  // One tab, a top page and six frames of 60 IPs: 390 IPs, cap 40.
  const tab: Page = await context.newPage();
  await tab.goto(`${env.sim.origin}/cap/top`);
  expect(await quiet()).toBe(40);

  // Reloads bring new IPs each time: still 40.
  for (let r = 0; r < 3; r++) {
    await tab.reload();
    await tab.waitForLoadState('load');
  }
  expect(await quiet()).toBe(40);

  // More tabs of the site: the daily ceiling (100) holds for all of them together.
  for (let t = 0; t < 4; t++) await (await context.newPage()).goto(`${env.sim.origin}/cap/top-${t}`);
  expect(await quiet()).toBe(100);
});
