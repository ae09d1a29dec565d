/**
 * Launching Debian's Firefox ESR with the built extension, over WebDriver BiDi (puppeteer-core):
 * Playwright's Firefox is a patched build that cannot be downloaded here, and Debian ships no
 * geckodriver. See ../../../shared/DESIGN.md ("Firefox at run time") for what was verified.
 *
 * What the raw BiDi calls are for:
 * - `browsingContext.navigate` to moz-extension:// pages: puppeteer's `page.goto` never resolves
 *   there (Firefox's NavigationManager does not report the navigation as finished).
 * - `script.evaluate` in the browser window (chrome scope, allowed by
 *   `--remote-allow-system-access`): the permission prompt, the background's state and the
 *   browser console are browser UI, not page content.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';

export const FIREFOX_EXTENSION_DIR = path.resolve(process.env.FIREFOX_EXTENSION_DIR ?? '.output/firefox-mv3-e2e');

/** `browser_specific_settings.gecko.id` in wxt.config.ts. */
export const ADDON_ID = 'ip-reputation-lens@iplens.dev';

/** Fixed by preference, so extension page URLs are known before the add-on is installed. */
export const EXTENSION_UUID = '6c1d5c57-93b5-4d49-9c1e-2b5e1c0f7a11';
export const EXTENSION_ORIGIN = `moz-extension://${EXTENSION_UUID}`;

/** A host name that is not loopback by name but resolves to 127.0.0.1 (network.dns.localDomains). */
export const LAN_HOST = 'siem-proxy.corp.test';

/** How long the background may sit idle before Firefox suspends it (Firefox's default: 30 s). */
export const BACKGROUND_IDLE_MS = 4_000;

/** `$FIREFOX_PATH`, else Debian's firefox-esr, else a `firefox` on the usual path. */
export function firefoxExecutable(): string {
  const candidates = [process.env.FIREFOX_PATH, '/usr/bin/firefox-esr', '/usr/bin/firefox'];
  const found = candidates.find((p): p is string => !!p && existsSync(p));
  if (!found) throw new Error('No Firefox found: install firefox-esr (apt-get install firefox-esr) or set FIREFOX_PATH.');
  return found;
}

const PREFS: Record<string, unknown> = {
  'extensions.webextensions.uuids': JSON.stringify({ [ADDON_ID]: EXTENSION_UUID }),
  'extensions.background.idle.timeout': BACKGROUND_IDLE_MS,
  'network.dns.localDomains': LAN_HOST,
  // A closed network: no first-run pages, update checks or telemetry traffic.
  'app.update.enabled': false,
  'browser.shell.checkDefaultBrowser': false,
  'datareporting.policy.dataSubmissionEnabled': false,
  'toolkit.telemetry.reportingpolicy.firstRun': false,
};

interface BidiConnection {
  send(method: string, params: object): Promise<{ result: unknown }>;
}

interface RemoteValue {
  type: string;
  value?: unknown;
  sharedId?: string;
}

export interface ConsoleEntry {
  level: 'error' | 'warning' | 'log';
  source: string;
  message: string;
}

export class FirefoxSession {
  private constructor(
    readonly browser: Browser,
    private readonly chromeContext: string,
  ) {}

  static async launch(extensionDir = FIREFOX_EXTENSION_DIR): Promise<FirefoxSession> {
    if (!existsSync(path.join(extensionDir, 'manifest.json'))) {
      throw new Error(`No Firefox build in ${extensionDir}: run "npm run build:e2e:firefox" first.`);
    }
    const browser = await puppeteer.launch({
      browser: 'firefox',
      executablePath: firefoxExecutable(),
      headless: true,
      args: ['--remote-allow-system-access'],
      extraPrefsFirefox: PREFS,
    });
    try {
      const id = await browser.installExtension(extensionDir);
      if (id !== ADDON_ID) throw new Error(`installed add-on ${id}, expected ${ADDON_ID}`);
      const tree = (await connection(browser).send('browsingContext.getTree', { 'moz:scope': 'chrome', maxDepth: 0 })) as {
        result: { contexts: { context: string; url: string }[] };
      };
      const window = tree.result.contexts.find((c) => c.url === 'chrome://browser/content/browser.xhtml');
      if (!window) throw new Error('no browser window in the chrome scope (is --remote-allow-system-access set?)');
      return new FirefoxSession(browser, window.context);
    } catch (error) {
      await browser.close();
      throw error;
    }
  }

  extensionUrl(pathAndQuery: string): string {
    return `${EXTENSION_ORIGIN}/${pathAndQuery}`;
  }

  /** A new tab showing one of the extension's pages, once its document has loaded. */
  async openExtensionPage(pathAndQuery: string): Promise<Page> {
    const page = await this.browser.newPage();
    await this.navigate(page, this.extensionUrl(pathAndQuery));
    return page;
  }

  /** Navigates with raw BiDi (see the file comment) and waits for the new document to load. */
  async navigate(page: Page, url: string): Promise<void> {
    await connection(this.browser).send('browsingContext.navigate', { context: contextOf(page), url, wait: 'none' });
    const deadline = Date.now() + 15_000;
    for (;;) {
      const state = await page.evaluate(() => [location.href, document.readyState] as const).catch(() => null);
      if (state && state[0] === url && state[1] === 'complete') return;
      if (Date.now() > deadline) throw new Error(`${url} did not load (last state: ${JSON.stringify(state)})`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async openPage(url: string): Promise<Page> {
    const page = await this.browser.newPage();
    await page.goto(url, { waitUntil: 'load' });
    return page;
  }

  /**
   * Evaluates `expression` in the browser window (privileged). The expression's value is
   * passed through JSON, so return plain data.
   */
  async chromeEval<T>(expression: string): Promise<T> {
    const reply = (await connection(this.browser).send('script.evaluate', {
      expression: `(async () => JSON.stringify(await (${expression})))()`,
      target: { context: this.chromeContext },
      awaitPromise: true,
      resultOwnership: 'none',
    })) as { result: { type: string; result?: RemoteValue; exceptionDetails?: { text: string } } };
    if (reply.result.type !== 'success') throw new Error(`chrome eval failed: ${reply.result.exceptionDetails?.text}`);
    const json = reply.result.result?.value;
    return (json === undefined ? undefined : JSON.parse(json as string)) as T;
  }

  /** "running", "stopped", "starting" or "suspending": Firefox's own view of the event page. */
  backgroundState(): Promise<string> {
    return this.chromeEval(`WebExtensionPolicy.getByID(${JSON.stringify(ADDON_ID)}).extension.backgroundState`);
  }

  /** Origins the add-on may reach now (manifest grants plus runtime grants). */
  grantedOrigins(): Promise<string[]> {
    return this.chromeEval(`WebExtensionPolicy.getByID(${JSON.stringify(ADDON_ID)}).allowedOrigins.patterns.map((p) => p.pattern)`);
  }

  /**
   * The add-on's optional-permission prompt, if one is showing: its text, accepted ("Allow")
   * or declined by pressing the notification's own buttons, as a user would.
   */
  async answerPermissionPrompt(answer: 'allow' | 'deny', timeoutMs = 10_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const text = await this.chromeEval<string | null>(`(() => {
        const n = PopupNotifications.getNotification('addon-webext-permissions');
        if (!n) return null;
        const element = document.getElementById('addon-webext-permissions-notification');
        const shown = n.owner?.panel?.querySelector('popupnotification');
        const body = (shown ?? element)?.textContent ?? '';
        const text = (body || String(n.message).replace('<>', n.options?.name ?? '')).replace(/\\s+/g, ' ');
        const button = ${answer === 'allow' ? `'button'` : `'secondaryButton'`};
        if (shown && shown[button]) shown[button].click();
        else if (element && element[button]) element[button].click();
        else if (${answer === 'allow'}) { n.mainAction.callback({ source: 'button' }); n.remove(); }
        else { n.secondaryActions[0].callback({ source: 'button' }); n.remove(); }
        return String(text);
      })()`);
      if (text !== null) return text;
      if (Date.now() > deadline) throw new Error('no permission prompt appeared');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /**
   * Everything the extension's own code wrote to the browser console as a warning or an
   * error: script errors and CSP violations (nsIScriptError, as in the Browser Console) and
   * console.error/warn calls from its pages, background and content scripts.
   */
  private consoleReadUpTo = 0;

  /** What the extension wrote to the console since the last call (since launch, at first). */
  async takeConsole(): Promise<ConsoleEntry[]> {
    const { now, entries } = await this.extensionConsole(this.consoleReadUpTo);
    this.consoleReadUpTo = now;
    return entries;
  }

  private extensionConsole(sinceMs: number): Promise<{ now: number; entries: ConsoleEntry[] }> {
    return this.chromeEval(`(() => {
      const now = Date.now();
      const ours = (s) => typeof s === 'string' && s.startsWith(${JSON.stringify(EXTENSION_ORIGIN)});
      const out = [];
      for (const m of Services.console.getMessageArray()) {
        if (!(m instanceof Ci.nsIScriptError) || !ours(m.sourceName) || m.timeStamp <= ${sinceMs} || m.timeStamp > now) continue;
        const warning = m.flags & Ci.nsIScriptError.warningFlag;
        out.push({ level: warning ? 'warning' : 'error', source: m.sourceName + ':' + m.lineNumber, message: m.category + ': ' + m.errorMessage });
      }
      const storage = Cc['@mozilla.org/consoleAPI-storage;1'].getService(Ci.nsIConsoleAPIStorage);
      for (const e of storage.getEvents()) {
        if (e.addonId !== ${JSON.stringify(ADDON_ID)} && !ours(e.filename)) continue;
        if (e.timeStamp <= ${sinceMs} || e.timeStamp > now) continue;
        const level = e.level === 'error' ? 'error' : e.level === 'warn' ? 'warning' : 'log';
        out.push({ level, source: e.filename + ':' + e.lineNumber, message: (e.arguments || []).map((a) => { try { return typeof a === 'string' ? a : JSON.stringify(a); } catch { return String(a); } }).join(' ') });
      }
      return { now, entries: out };
    })()`);
  }

  close(): Promise<void> {
    return this.browser.close();
  }
}

function connection(browser: Browser): BidiConnection {
  return (browser as unknown as { connection: BidiConnection }).connection;
}

/** The BiDi browsing context id behind a puppeteer page or frame. */
export function contextOf(target: Page | ReturnType<Page['mainFrame']>): string {
  const frame = 'mainFrame' in target ? target.mainFrame() : target;
  return (frame as unknown as { browsingContext: { id: string } }).browsingContext.id;
}

export function bidi(browser: Browser): BidiConnection {
  return connection(browser);
}
