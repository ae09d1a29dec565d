/**
 * Host permissions are given back when nothing needs them (permissions stay minimal), written once for both
 * browsers: saving a new API base URL gives the old server's host back, and "Stop scanning this
 * site" in the popup gives the site's back. Chromium proves it in permission-removal.spec.ts
 * with grants written into the profile; Firefox (test/e2e-firefox) with its own prompt, answered
 * as a user would. `grantedOrigins` reads what the browser itself says is granted now.
 */
import type { Simulator } from '../../sim/server';
import { waitUntil, type ExtensionDriver } from './driver';
import { registerSite, saveAndVerifyKey } from './extension-scenarios';

export interface Grants {
  /** Origin patterns the extension may reach now, as the browser reports them. */
  grantedOrigins(): Promise<string[]>;
  /** Answers the browser's permission prompt, where it shows one. */
  answerPrompt?(): Promise<unknown>;
}

async function expectGranted(grants: Grants, pattern: string, granted: boolean): Promise<void> {
  await waitUntil(grants.grantedOrigins, (origins) => origins.includes(pattern) === granted, `${pattern} ${granted ? 'granted' : 'given back'}`);
}

/** The API is on `oldPattern`'s host; Options saves `newBaseUrl` (no prompt needed there). */
export async function newApiAddressGivesOldHostBack(
  driver: ExtensionDriver,
  sim: Simulator,
  grants: Grants,
  { oldPattern, newBaseUrl, apiKey }: { oldPattern: string; newBaseUrl: string; apiKey: string },
): Promise<void> {
  await expectGranted(grants, oldPattern, true);
  await saveAndVerifyKey(driver, sim, { baseUrl: newBaseUrl, apiKey });
  await expectGranted(grants, oldPattern, false);
}

/** The id of the tab showing `url`, read from an extension page. */
async function tabIdOf(driver: ExtensionDriver, url: string): Promise<number> {
  const page = await driver.openExtensionPage('options.html');
  try {
    return await page.evaluate(async (wanted) => {
      const api = (globalThis as unknown as { chrome: { tabs: { query(q: object): Promise<{ id?: number; url?: string }[]> } } }).chrome;
      const tab = (await api.tabs.query({})).find((t) => t.url === wanted);
      if (tab?.id === undefined) throw new Error(`no tab shows ${wanted}`);
      return tab.id;
    }, url);
  } finally {
    await page.close();
  }
}

/**
 * A site nothing has access to yet is added in Options ("Sites to scan", the browser's prompt
 * answered), then its page's popup says "Stop scanning this site": the site's host goes back.
 * (The popup's own "Scan this site" needs the tab's address, which Firefox shows an extension
 * only for hosts it may reach or after the toolbar button's activeTab grant, which a test
 * cannot give: Options grants the site here.) `keep` lists grants that must survive (what the
 * extension ships with).
 */
export async function stopScanningGivesSiteBack(driver: ExtensionDriver, grants: Grants, { pageUrl, keep }: { pageUrl: string; keep: string[] }): Promise<void> {
  const pattern = `${new URL(pageUrl).protocol}//${new URL(pageUrl).hostname}/*`;
  await expectGranted(grants, pattern, false);
  await registerSite(driver, pageUrl, grants.answerPrompt);
  await expectGranted(grants, pattern, true);

  const page = await driver.openPage(pageUrl);
  const popup = await driver.openExtensionPage(`popup.html?tab=${await tabIdOf(driver, pageUrl)}`);
  try {
    await popup.waitForText('Stop scanning this site');
    await popup.clickButton('Stop scanning this site');
    const buttons = () => popup.evaluate(() => [...document.querySelectorAll('button')].map((b) => b.textContent?.trim() ?? ''), null);
    await waitUntil(buttons, (names) => !names.includes('Stop scanning this site') && !names.includes('Stopping…'), 'the site no longer scanned');
    await expectGranted(grants, pattern, false);
    const left = await grants.grantedOrigins();
    const lost = keep.filter((p) => !left.includes(p));
    if (lost.length) throw new Error(`grants the extension ships with were removed too: ${lost.join(', ')}`);
  } finally {
    await popup.close();
    await page.close();
  }
}
