/**
 * One browser with the extension for the hostile-page benchmarks (page-hostile, page-memory):
 * the simulator serving test/fixtures, a key that never runs out, and 127.0.0.1 registered as a
 * scanned site, so each fixture page loads once scanned (127.0.0.1) and once alone (localhost,
 * the same page on a host the extension does not scan).
 */
import type { BrowserContext } from '@playwright/test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { launchWithExtension } from '../e2e/chromium';
import { UNLIMITED_KEY } from '../sim/keys';
import { startSimulator } from '../sim/server';
import { benchExtensionDir } from './extension-build';
import { DEFAULT_LOOKUP_POLICY } from '../../lib/settings/defaults';

/**
 * BENCH_HOSTILE_NO_LOOKUPS=1: automatic lookups off (the lookup policy's `automatic`), so a page
 * is scanned and its IPs marked "skipped", nothing asked of the simulator: what the lookups at
 * load (the worker, the browser process, the simulator in this process) cost the page.
 */
const NO_LOOKUPS = !!process.env.BENCH_HOSTILE_NO_LOOKUPS;

type ChromeApi = {
  storage: { local: { set(v: object): Promise<void> } };
  runtime: { sendMessage(m: object): Promise<{ ok: boolean; error?: unknown }> };
};

export interface HostileSession {
  context: BrowserContext;
  /** The extension's id, for its script's URL in traces. */
  extensionId: string;
  /** A fixture page under test/fixtures/hostile/, on the scanned host. */
  scanned(name: string): string;
  /** The same page on a host the extension does not scan: the page alone. */
  alone(name: string): string;
}

/**
 * Runs `body` in a fresh session and always closes the browser, profile and simulator.
 * `extensionDir`: another build than the bench's (page-memory's empty content script).
 */
export async function withHostileSession(profilePrefix: string, body: (session: HostileSession) => Promise<void>, extensionDir = benchExtensionDir()): Promise<void> {
  const sim = await startSimulator({ port: 0, staticDir: path.resolve('test/fixtures') });
  const userDataDir = mkdtempSync(path.join(tmpdir(), profilePrefix));
  const context = await launchWithExtension(userDataDir, { extensionDir });
  try {
    const worker = context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker'));
    const extensionId = new URL(worker.url()).host;
    const ext = await context.newPage();
    await ext.goto(`chrome-extension://${extensionId}/options.html`);
    await ext.evaluate(async ([baseUrl, key, policy]) => {
      const c = (globalThis as unknown as { chrome: ChromeApi }).chrome;
      await c.storage.local.set({ apiBaseUrl: baseUrl, apiKey: key, ...(policy ? { lookupPolicy: policy } : {}) });
      await c.runtime.sendMessage({ type: 'ui:set-site-scanning', payload: { pattern: 'http://127.0.0.1/*', enabled: true } });
    }, [sim.baseUrl, UNLIMITED_KEY, NO_LOOKUPS ? { ...DEFAULT_LOOKUP_POLICY, automatic: false } : null] as const);
    const scanned = (name: string) => `${sim.origin}/pages/hostile/${name}`;
    const alone = (name: string) => scanned(name).replace('127.0.0.1', 'localhost');
    await body({ context, extensionId, scanned, alone });
  } finally {
    await context.close();
    rmSync(userDataDir, { recursive: true, force: true });
    await sim.close();
  }
}
