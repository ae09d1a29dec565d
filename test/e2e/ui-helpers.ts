/**
 * Helpers shared by the popup and options specs, the UI screenshots and the popup benchmark:
 * a simulator that also serves a SIEM-like fixture page, configuring the API through the
 * options page, and finding a tab's id from an extension page.
 */
import type { BrowserContext, Page } from '@playwright/test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startSimulator, type Simulator } from '../sim/server';
import { test } from './fixtures';

/** Named simulator fixtures (test/sim/dataset.ts): fixed whatever the seed. */
export const IPS = {
  critical: '185.220.101.1',
  high: '23.129.64.130',
  medium: '45.155.205.233',
  clean: '8.8.8.8',
  whitelisted: '1.1.1.1',
  xss: '93.184.216.66',
  private: '10.0.0.5',
} as const;

/** A page that looks like a SIEM alert table, with every kind of IP. */
export function alertsPageHtml(extraRows = 0): string {
  const rows = [
    ['09:37:40', 'SSH brute force', IPS.critical],
    ['09:38:02', 'Credential stuffing', IPS.high],
    ['09:38:15', 'Port scan', IPS.medium],
    ['09:39:00', 'DNS query', IPS.clean],
    ['09:39:30', 'DNS query', IPS.whitelisted],
    ['09:40:11', 'Web exploit attempt', IPS.xss],
    ['09:41:00', 'Internal host', IPS.private],
    ['09:42:00', 'SSH brute force (repeat)', IPS.critical],
  ];
  for (let i = 0; i < extraRows; i++) rows.push(['10:00:00', 'Generated', `11.${(i >> 8) & 255}.${i & 255}.${(i % 250) + 1}`]);
  const body = rows.map(([t, what, ip]) => `<tr><td>${t}</td><td>${what}</td><td>${ip}</td></tr>`).join('\n');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Alerts — Fixture SIEM</title></head>
<body><h1>Alerts</h1><table><thead><tr><th>Time</th><th>Rule</th><th>Source</th></tr></thead><tbody>
${body}
</tbody></table></body></html>`;
}

export interface UiSimulator {
  sim: Simulator;
  /** `http://127.0.0.1:PORT/pages/alerts.html` */
  pageUrl: string;
  close(): Promise<void>;
}

export async function startUiSimulator(options: { extraRows?: number } = {}): Promise<UiSimulator> {
  const dir = mkdtempSync(path.join(tmpdir(), 'iplens-ui-pages-'));
  writeFileSync(path.join(dir, 'alerts.html'), alertsPageHtml(options.extraRows));
  const sim = await startSimulator({ port: 0, staticDir: dir });
  return {
    sim,
    pageUrl: `${sim.origin}/pages/alerts.html`,
    async close() {
      await sim.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A loopback URL where nothing listens: the "unreachable server" case. */
/**
 * One UI simulator per spec file, started before its tests and stopped after them; usage,
 * log and faults are reset before each test.
 */
export function useUiSimulator(): { readonly ui: UiSimulator } {
  const env = {} as { ui: UiSimulator };
  test.beforeAll(async () => {
    env.ui = await startUiSimulator();
  });
  test.afterAll(async () => {
    await env.ui.close();
  });
  test.beforeEach(() => env.ui.sim.reset());
  return env;
}

export async function unreachableBaseUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/api/v1`;
}

export function extensionUrl(extensionId: string, page: 'popup.html' | 'options.html', query = ''): string {
  return `chrome-extension://${extensionId}/${page}${query}`;
}

/**
 * Fills the API section of the options page and saves. Returns the options page (left open,
 * so a test can read the outcome).
 */
export async function saveApiSettings(
  context: BrowserContext,
  extensionId: string,
  values: { baseUrl: string; apiKey: string; authHeader?: 'authorization' | 'x-api-key' },
  page?: Page,
): Promise<Page> {
  const options = page ?? (await context.newPage());
  if (!page) await options.goto(extensionUrl(extensionId, 'options.html'));
  await options.getByLabel('API base URL').fill(values.baseUrl);
  await options.getByLabel('API key', { exact: true }).fill(values.apiKey);
  if (values.authHeader) await options.getByLabel('Header mode').selectOption(values.authHeader);
  await options.getByRole('button', { name: 'Save', exact: true }).click();
  return options;
}

/** Configures the API and waits until the key is verified. */
export async function configureApi(context: BrowserContext, extensionId: string, baseUrl: string, apiKey: string): Promise<void> {
  const options = await saveApiSettings(context, extensionId, { baseUrl, apiKey });
  await options.getByText('Key verified:').waitFor();
  await options.close();
}

/** The id of the tab showing `url`, asked from an extension page (which may use chrome.tabs). */
export async function tabIdOf(extensionPage: Page, url: string): Promise<number> {
  const id = await extensionPage.evaluate(async (wanted) => {
    type Tabs = { query(q: object): Promise<{ id?: number; url?: string }[]> };
    const tabs = await (globalThis as unknown as { chrome: { tabs: Tabs } }).chrome.tabs.query({});
    return tabs.find((t) => t.url === wanted)?.id ?? null;
  }, url);
  if (typeof id !== 'number') throw new Error(`no tab shows ${url}`);
  return id;
}
