/**
 * The popup fits the toolbar popup it runs in: no table cell clipped or scrolled sideways at any
 * width from 360 to 800 px, and at 800 × 600 with a lookup shown, the lookup field and the first
 * rows of "This page" are on screen without scrolling. The last test opens the real toolbar
 * popup (`chrome.action.openPopup()`), whose viewport Chromium sizes itself: it is not a page
 * Playwright attaches to, so the test reads it from another extension page through
 * `chrome.extension.getViews({ type: 'popup' })`.
 */
import type { BrowserContext, Page } from '@playwright/test';
import { DEMO_KEY } from '../sim/keys';
import { expect, serviceWorkerOf, test } from './fixtures';
import { configureApi, extensionUrl, IPS, tabIdOf, useUiSimulator } from './ui-helpers';

const env = useUiSimulator();

declare const chrome: { action: { openPopup(): Promise<void> }; extension: { getViews(o: { type: string }): Window[] } };

interface Fit {
  viewport: number;
  pageScrollWidth: number;
  /** Table wrappers whose content is wider than their box. */
  scrolledTables: number;
  /** Cells that reach past the viewport's left or right edge. */
  clippedCells: string[];
  cells: number;
}

/** Measures a popup window; runs in the browser (given the window to measure). */
function measure(win: Window): Fit {
  const doc = win.document;
  const cells = [...doc.querySelectorAll<HTMLElement>('.ip-table th, .ip-table td')].filter((c) => c.getClientRects().length > 0);
  return {
    viewport: win.innerWidth,
    pageScrollWidth: doc.documentElement.scrollWidth,
    scrolledTables: [...doc.querySelectorAll<HTMLElement>('.table-wrap')].filter((w) => w.scrollWidth > w.clientWidth).length,
    clippedCells: cells
      .filter((c) => {
        const r = c.getBoundingClientRect();
        return r.left < 0 || r.right > win.innerWidth + 0.5;
      })
      .map((c) => `${c.className}: ${c.textContent}`),
    cells: cells.length,
  };
}

function expectFits(fit: Fit, label: string): void {
  expect(fit.cells, label).toBeGreaterThan(0);
  expect(fit.clippedCells, label).toEqual([]);
  expect(fit.scrolledTables, label).toBe(0);
  expect(fit.pageScrollWidth, label).toBeLessThanOrEqual(fit.viewport);
}

/** The site tab scanned, a popup on it (as a tab) with a single lookup shown. */
async function popupWithPage(context: BrowserContext, extensionId: string): Promise<{ popup: Page; site: Page }> {
  await configureApi(context, extensionId, env.ui.sim.baseUrl, DEMO_KEY);
  const site = await context.newPage();
  await site.goto(env.ui.pageUrl);
  const popup = await context.newPage();
  await popup.goto(extensionUrl(extensionId, 'popup.html'));
  const tabId = await tabIdOf(popup, env.ui.pageUrl);
  await popup.goto(extensionUrl(extensionId, 'popup.html', `?tab=${tabId}`));
  await popup.getByRole('button', { name: 'Scan this page' }).click();
  await expect(popup.locator('#page-heading ~ * tbody tr.row, section[aria-labelledby=page-heading] tbody tr.row')).toHaveCount(7);
  await popup.getByLabel('IP address or text').fill(IPS.critical);
  await popup.getByRole('button', { name: 'Look up' }).click();
  await expect(popup.getByRole('region', { name: `Reputation of ${IPS.critical}` })).toContainText('95 / 100');
  return { popup, site };
}

test('no table cell is clipped at any width from 360 to 800 px; at 800 × 600 the lookup field and the first rows show', async ({ context, extensionId }) => {
  const { popup } = await popupWithPage(context, extensionId);
  for (const width of [360, 400, 428, 480, 510, 560, 640, 800]) {
    await popup.setViewportSize({ width, height: 600 });
    expectFits(await popup.evaluate(measure.toString().replace(/^function measure/, '(function') + ')(window)').then((f) => f as Fit), `${width} px`);
  }
  await popup.setViewportSize({ width: 800, height: 600 });
  await popup.evaluate(() => window.scrollTo(0, 0));
  const inView = await popup.evaluate(() => {
    const bottom = (el: Element | null) => (el ? el.getBoundingClientRect().bottom : Infinity);
    const rows = document.querySelectorAll('section[aria-labelledby=page-heading] tbody tr.row');
    return { field: bottom(document.getElementById('lookup-input')), firstRows: bottom(rows[1] ?? null), height: innerHeight };
  });
  expect(inView.field).toBeLessThanOrEqual(inView.height);
  expect(inView.firstRows, 'the first two rows of This page').toBeLessThanOrEqual(inView.height);
  // The calm quota takes two lines at most until opened.
  const quota = await popup.locator('section.quota').boundingBox();
  expect(quota!.height).toBeLessThanOrEqual(60);
});

test('the real toolbar popup: no table cell clipped in the viewport Chromium gives it', async ({ context, extensionId }) => {
  const { popup, site } = await popupWithPage(context, extensionId);
  await site.bringToFront();
  const worker = await serviceWorkerOf(context);
  await worker.evaluate(() => chrome.action.openPopup());
  // Measured from another extension page of the same extension (the popup's own window).
  const fit = await expect
    .poll(
      () =>
        popup.evaluate((source) => {
          const win = chrome.extension.getViews({ type: 'popup' })[0];
          if (!win || !win.document.querySelector('section[aria-labelledby=page-heading] tbody tr.row')) return null;
          return (0, eval)(`(${source})`)(win) as Fit;
        }, measure.toString()),
      { timeout: 20_000 },
    )
    .not.toBeNull()
    .then(() =>
      popup.evaluate((source) => (0, eval)(`(${source})`)(chrome.extension.getViews({ type: 'popup' })[0]) as Fit, measure.toString()),
    );
  expect(await popup.evaluate(() => chrome.extension.getViews({ type: 'popup' })[0]!.document.documentElement.className)).toContain('in-popup');
  expectFits(fit, `toolbar popup, ${fit.viewport} px`);
});
