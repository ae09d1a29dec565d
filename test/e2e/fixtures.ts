/**
 * Playwright fixture: a persistent Chromium context with the built e2e extension loaded,
 * the extension id read from its service worker, and a fresh API simulator per test file.
 */
import { test as base, type BrowserContext, type Worker } from '@playwright/test';
import { mkdtempSync, rmSync } from 'node:fs';
import { launchWithExtension } from './chromium';
import { tmpdir } from 'node:os';
import path from 'node:path';

export { chromiumExecutable, launchWithExtension } from './chromium';

export async function serviceWorkerOf(context: BrowserContext): Promise<Worker> {
  const existing = context.serviceWorkers().find((w) => w.url().startsWith('chrome-extension://'));
  return existing ?? context.waitForEvent('serviceworker');
}

export const test = base.extend<
  { context: BrowserContext; extensionId: string; userDataDir: string },
  object
>({
  // eslint-disable-next-line no-empty-pattern
  userDataDir: async ({}, use) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'iplens-e2e-'));
    await use(dir);
    rmSync(dir, { recursive: true, force: true });
  },
  context: async ({ userDataDir }, use) => {
    const context = await launchWithExtension(userDataDir);
    await use(context);
    await context.close();
  },
  extensionId: async ({ context }, use) => {
    const worker = await serviceWorkerOf(context);
    await use(new URL(worker.url()).host);
  },
});

export const expect = test.expect;
