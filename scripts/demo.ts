/**
 * `npm run demo [-- --headless] [-- --port N]`
 *
 * Starts the API simulator (serving the SIEM-like demo pages), builds the extension
 * preconfigured for it (base URL, demo key, the simulator's pages as a site to scan), and opens
 * Chromium with the extension loaded on a Kibana-like console.
 * With --headless, or without a display, it drives the same flow headless: marks on the
 * console, a hover card, the popup and the options page in light and dark mode, saved as
 * screenshots in demo-output/. It prints their paths and exits 0.
 */
import type { BrowserContext, Page } from '@playwright/test';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { launchWithExtension } from '../test/e2e/chromium';
import { hoverIp, readCard } from '../test/e2e/page-support';
import { takeUiScreenshots } from '../test/e2e/ui-screenshots';
import { DEMO_KEY } from '../test/sim/keys';
import { startSimulator, type Simulator } from '../test/sim/server';

const { values } = parseArgs({
  options: {
    headless: { type: 'boolean', default: false },
    port: { type: 'string', default: '8787' },
    out: { type: 'string', default: 'demo-output' },
  },
});

const OUT_DIR = path.resolve(values.out);
const EXTENSION_DIR = path.resolve('.output/chrome-mv3-demo');
const DEMO_PAGE = 'siem/kibana-discover.html';
/** A critical IP of the simulator's dataset that the demo page shows. */
const SHOWCASE_IP = '185.220.101.1';
const headless = values.headless || process.env.CI === 'true' || (process.platform === 'linux' && !process.env.DISPLAY);

function step(text: string) {
  console.log(`• ${text}`);
}

async function startDemoSimulator(): Promise<Simulator> {
  const staticDir = path.resolve('test/fixtures');
  try {
    return await startSimulator({ port: Number(values.port), staticDir });
  } catch (error) {
    // The preferred port is taken (a simulator already running?): any free port will do,
    // since the build below is made for whichever port we get.
    step(`port ${values.port} is busy (${(error as Error).message}); using a free port`);
    return startSimulator({ port: 0, staticDir });
  }
}

function buildDemoExtension(sim: Simulator) {
  step('building the extension for the simulator (.output/chrome-mv3-demo)');
  const result = spawnSync('npx', ['wxt', 'build', '--mode', 'demo'], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      ...process.env,
      WXT_OUT_DIR: '.output',
      WXT_DEMO_BASE_URL: sim.baseUrl,
      WXT_DEMO_API_KEY: DEMO_KEY,
      WXT_DEMO_SITE: `${sim.origin}/*`,
    },
  });
  if (result.status !== 0) throw new Error('The demo build failed (see the output above).');
}

async function launch(userDataDir: string): Promise<{ context: BrowserContext; extensionId: string }> {
  const context = await launchWithExtension(userDataDir, {
    extensionDir: EXTENSION_DIR,
    headless,
    viewport: headless ? { width: 1280, height: 800 } : null,
  });
  const worker = context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker'));
  // The background registers the content script for the demo site at start-up: wait for it so
  // the console page below is scanned from its first paint.
  await worker.evaluate(async () => {
    const scripting = (globalThis as unknown as {
      chrome: { scripting: { getRegisteredContentScripts(): Promise<unknown[]> } };
    }).chrome.scripting;
    for (let i = 0; i < 100 && (await scripting.getRegisteredContentScripts()).length === 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
    }
  });
  return { context, extensionId: new URL(worker.url()).host };
}

async function openConsole(context: BrowserContext, sim: Simulator): Promise<Page> {
  const page = context.pages()[0] ?? (await context.newPage());
  await page.goto(`${sim.origin}/pages/${DEMO_PAGE}`);
  await page.waitForFunction(() => (CSS.highlights.get('ip-rep-critical')?.size ?? 0) > 0, undefined, {
    timeout: 20_000,
  });
  return page;
}

/** The id of the tab showing `url`, asked from an extension page (which may use chrome.tabs). */
async function tabIdOf(context: BrowserContext, extensionId: string, url: string): Promise<number | undefined> {
  const extPage = await context.newPage();
  try {
    await extPage.goto(`chrome-extension://${extensionId}/options.html`);
    return await extPage.evaluate(async (wanted) => {
      const tabs = (globalThis as unknown as {
        chrome: { tabs: { query(q: object): Promise<{ id?: number; url?: string }[]> } };
      }).chrome.tabs;
      return (await tabs.query({})).find((t) => t.url === wanted)?.id;
    }, url);
  } finally {
    await extPage.close();
  }
}

async function headlessTour(context: BrowserContext, extensionId: string, sim: Simulator): Promise<string[]> {
  mkdirSync(OUT_DIR, { recursive: true });
  const files: string[] = [];

  step('opening the Kibana-like console and waiting for the marks');
  const page = await openConsole(context, sim);
  const consoleShot = path.join(OUT_DIR, 'console-marks.png');
  await page.screenshot({ path: consoleShot });
  files.push(consoleShot);

  step(`hovering ${SHOWCASE_IP} for its reputation card`);
  const cdp = await context.newCDPSession(page);
  await hoverIp(page, SHOWCASE_IP);
  for (let i = 0; i < 50 && !(await readCard(cdp))?.text.includes('Score'); i++) await page.waitForTimeout(100);
  const cardShot = path.join(OUT_DIR, 'console-hover-card.png');
  await page.screenshot({ path: cardShot });
  files.push(cardShot);

  step('opening the popup and the options page, light and dark');
  const tabId = await tabIdOf(context, extensionId, page.url());
  files.push(
    ...(await takeUiScreenshots(context, extensionId, OUT_DIR, {
      lookupIp: SHOWCASE_IP,
      ...(tabId !== undefined ? { tabId } : {}),
    })),
  );
  return files;
}

async function main() {
  const sim = await startDemoSimulator();
  step(`API simulator at ${sim.baseUrl} (key ${DEMO_KEY})`);
  const userDataDir = mkdtempSync(path.join(tmpdir(), 'iplens-demo-'));
  let context: BrowserContext | undefined;
  try {
    buildDemoExtension(sim);
    step(`launching Chromium ${headless ? 'headless' : 'with a window'}`);
    const launched = await launch(userDataDir);
    context = launched.context;
    if (headless) {
      const files = await headlessTour(context, launched.extensionId, sim);
      console.log('\nScreenshots:');
      for (const file of files) console.log(`  ${path.relative(process.cwd(), file)}`);
    } else {
      await openConsole(context, sim);
      console.log(
        `\nChromium is open on a demo console. Hover an IP for its card; click the extension's icon` +
          ` (puzzle piece, then IP Reputation Lens) for the popup.\nOther demo pages: ${sim.origin}/pages/siem/\n` +
          'Close the browser window or press Ctrl+C to stop.',
      );
      await new Promise<void>((resolve) => {
        context!.on('close', () => resolve());
        process.once('SIGINT', () => resolve());
        process.once('SIGTERM', () => resolve());
      });
    }
  } finally {
    await context?.close().catch(() => undefined);
    await sim.close();
    rmSync(userDataDir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(`\nThe demo failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
