/**
 * Launching Debian's Chromium (or Playwright's own browser where one is installed) with an
 * unpacked build of the extension. Shared by the e2e fixture, the benchmarks and the demo.
 */
import { chromium, type BrowserContext } from '@playwright/test';
import { existsSync } from 'node:fs';
import path from 'node:path';

export const E2E_EXTENSION_DIR = path.resolve(process.env.E2E_EXTENSION_DIR ?? '.output/chrome-mv3-e2e');

/** `$CHROMIUM_PATH`, else Debian's chromium; undefined: Playwright's own browser. */
export function chromiumExecutable(): string | undefined {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'];
  return candidates.find((p): p is string => !!p && existsSync(p));
}

/**
 * Flags for a closed network: without the background-networking ones Chromium keeps trying to
 * reach Google's hosts, and as root it needs --no-sandbox.
 */
export const BASE_CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

export function extensionArgs(extensionDir: string): string[] {
  return [`--disable-extensions-except=${extensionDir}`, `--load-extension=${extensionDir}`, ...BASE_CHROMIUM_ARGS];
}

export interface LaunchOptions {
  extensionDir?: string;
  headless?: boolean;
  /** null: the window's own size (headed demo). */
  viewport?: { width: number; height: number } | null;
  /** More command-line flags (e.g. --host-resolver-rules). */
  args?: string[];
}

export async function launchWithExtension(userDataDir: string, options: LaunchOptions = {}): Promise<BrowserContext> {
  const extensionDir = options.extensionDir ?? E2E_EXTENSION_DIR;
  if (!existsSync(path.join(extensionDir, 'manifest.json'))) {
    throw new Error(`No extension build in ${extensionDir}: run "npm run build:e2e" first.`);
  }
  return chromium.launchPersistentContext(userDataDir, {
    executablePath: chromiumExecutable(),
    headless: options.headless ?? true,
    args: [...extensionArgs(extensionDir), ...(options.args ?? [])],
    viewport: options.viewport === undefined ? { width: 1280, height: 800 } : options.viewport,
  });
}
