/**
 * Playwright fixture: a persistent Chromium context with the built e2e extension loaded,
 * the extension id read from its service worker, and a fresh API simulator per test file.
 */
import { test as base, chromium, type BrowserContext, type Worker } from '@playwright/test';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const EXTENSION_DIR = path.resolve(process.env.E2E_EXTENSION_DIR ?? '.output/chrome-mv3-e2e');

export function chromiumExecutable(): string | undefined {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'];
  return candidates.find((p): p is string => !!p && existsSync(p));
  // undefined: Playwright's own browser, on machines that have one.
}

export const CHROMIUM_ARGS = [
  `--disable-extensions-except=${EXTENSION_DIR}`,
  `--load-extension=${EXTENSION_DIR}`,
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

export async function launchWithExtension(userDataDir: string): Promise<BrowserContext> {
  if (!existsSync(path.join(EXTENSION_DIR, 'manifest.json'))) {
    throw new Error(`No e2e build in ${EXTENSION_DIR}: run "npm run build:e2e" first.`);
  }
  return chromium.launchPersistentContext(userDataDir, {
    executablePath: chromiumExecutable(),
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1280, height: 800 },
  });
}

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
