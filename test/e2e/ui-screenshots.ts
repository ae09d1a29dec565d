/**
 * Screenshots of the popup and the options page in light and dark mode. Used by the popup
 * spec and by `npm run demo`: `await takeUiScreenshots(context, extensionId, 'demo-output')`.
 * The extension must already be configured (API key saved) for the popup to show data.
 */
import type { BrowserContext } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import path from 'node:path';

export interface UiScreenshotOptions {
  /** An IP to look up in the popup first, so the shot shows a full reputation card. */
  lookupIp?: string;
  /** A tab whose IPs the popup's "This page" shows (its id, as `?tab=`). */
  tabId?: number;
  /** Popup width in CSS pixels (the toolbar popup is 480). */
  popupWidth?: number;
}

export async function takeUiScreenshots(
  context: BrowserContext,
  extensionId: string,
  outDir: string,
  options: UiScreenshotOptions = {},
): Promise<string[]> {
  mkdirSync(outDir, { recursive: true });
  const files: string[] = [];
  for (const colorScheme of ['light', 'dark'] as const) {
    const popup = await context.newPage();
    await popup.setViewportSize({ width: options.popupWidth ?? 480, height: 600 });
    await popup.emulateMedia({ colorScheme });
    const query = options.tabId !== undefined ? `?tab=${options.tabId}` : '';
    await popup.goto(`chrome-extension://${extensionId}/popup.html${query}`);
    await popup.getByRole('heading', { name: 'Quota' }).or(popup.getByText('Quota unavailable')).first().waitFor();
    if (options.lookupIp) {
      await popup.getByLabel('IP address or text').fill(options.lookupIp);
      await popup.getByRole('button', { name: 'Look up' }).click();
      await popup.getByRole('region', { name: `Reputation of ${options.lookupIp}` }).or(popup.getByRole('alert')).first().waitFor();
    }
    const popupFile = path.join(outDir, `popup-${colorScheme}.png`);
    await popup.screenshot({ path: popupFile, fullPage: true });
    files.push(popupFile);
    await popup.close();

    const optionsPage = await context.newPage();
    await optionsPage.setViewportSize({ width: 900, height: 900 });
    await optionsPage.emulateMedia({ colorScheme });
    await optionsPage.goto(`chrome-extension://${extensionId}/options.html`);
    await optionsPage.getByLabel('API base URL').waitFor();
    const optionsFile = path.join(outDir, `options-${colorScheme}.png`);
    await optionsPage.screenshot({ path: optionsFile, fullPage: true });
    files.push(optionsFile);
    await optionsPage.close();
  }
  return files;
}
