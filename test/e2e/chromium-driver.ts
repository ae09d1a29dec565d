/**
 * The shared scenarios' ExtensionDriver for Chromium: Playwright pages, and the DevTools
 * protocol for what pages cannot see (the card's closed shadow root, the service worker).
 */
import type { BrowserContext, CDPSession, Frame, Page } from '@playwright/test';
import type { Box, CardSnapshot, Evaluator, ExtensionDriver, Tab } from './scenarios/driver';
import { waitForBodyText, waitForFrame, waitUntil } from './scenarios/driver';
import { cardBox, clickCardButton, readCard } from './page-support';

/** A Playwright page or frame as the scenarios' Evaluator. */
export function evaluator(target: Page | Frame): Evaluator {
  return {
    evaluate: <A, R>(fn: (arg: A) => R | Promise<R>, arg: A) =>
      (target.evaluate as (f: (arg: A) => R | Promise<R>, a: A) => Promise<R>).call(target, fn, arg),
  };
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

class ChromiumTab implements Tab {
  private cdp: CDPSession | null = null;
  constructor(
    private readonly context: BrowserContext,
    readonly page: Page,
  ) {}

  get url(): string {
    return this.page.url();
  }

  evaluate<A, R>(fn: (arg: A) => R | Promise<R>, arg: A): Promise<R> {
    return evaluator(this.page).evaluate(fn, arg);
  }

  fill(label: string, value: string): Promise<void> {
    return this.page.getByLabel(label, { exact: true }).fill(value);
  }

  clickButton(name: string): Promise<void> {
    return this.page.getByRole('button', { name, exact: true }).click();
  }

  check(label: string): Promise<void> {
    return this.page.getByLabel(label, { exact: true }).check();
  }

  waitForText(text: string | RegExp, timeoutMs = 15_000): Promise<void> {
    return waitForBodyText(() => this.page.evaluate(() => document.body?.innerText ?? ''), text, this.url, timeoutMs);
  }

  async frame(urlPart: string): Promise<Evaluator> {
    return evaluator(await waitForFrame(() => this.page.frames(), urlPart));
  }

  moveMouse(x: number, y: number): Promise<void> {
    return this.page.mouse.move(x, y, { steps: 4 });
  }

  pressKey(key: 'Escape' | 'Enter'): Promise<void> {
    return this.page.keyboard.press(key);
  }

  private async session(): Promise<CDPSession> {
    this.cdp ??= await this.context.newCDPSession(this.page);
    return this.cdp;
  }

  async readCard(): Promise<CardSnapshot | null> {
    const card = await readCard(await this.session());
    return card && { text: card.text, shadowRootMode: card.shadowRootType, buttons: card.buttons.map((b) => b.text) };
  }

  async cardBox(): Promise<Box | null> {
    return cardBox(await this.session());
  }

  async clickCardButton(name: string): Promise<void> {
    await clickCardButton(this.page, await this.session(), new RegExp(`^${escapeRegExp(name)}$`));
  }

  close(): Promise<void> {
    return this.page.close();
  }
}

export class ChromiumDriver implements ExtensionDriver {
  readonly browserName = 'chromium';
  constructor(
    private readonly context: BrowserContext,
    private readonly extensionId: string,
  ) {}

  async openExtensionPage(pathAndQuery: string): Promise<Tab> {
    const page = await this.context.newPage();
    await page.goto(`chrome-extension://${this.extensionId}/${pathAndQuery}`);
    return new ChromiumTab(this.context, page);
  }

  async openPage(url: string): Promise<Tab> {
    const page = await this.context.newPage();
    await page.goto(url);
    return new ChromiumTab(this.context, page);
  }

  /** Targets seen by the browser: the worker is one only while it runs. */
  private async workerTargets(): Promise<number> {
    const page = this.context.pages()[0] ?? (await this.context.newPage());
    const cdp = await this.context.newCDPSession(page);
    try {
      const { targetInfos } = (await cdp.send('Target.getTargets')) as { targetInfos: { type: string; url: string }[] };
      return targetInfos.filter((t) => t.type === 'service_worker' && t.url.startsWith(`chrome-extension://${this.extensionId}/`)).length;
    } finally {
      await cdp.detach();
    }
  }

  async suspendBackground(): Promise<void> {
    // Chromium stops an idle worker after 30 s; the DevTools protocol does it at once.
    const page = this.context.pages()[0] ?? (await this.context.newPage());
    const cdp = await this.context.newCDPSession(page);
    try {
      await cdp.send('ServiceWorker.enable');
      await cdp.send('ServiceWorker.stopAllWorkers');
    } finally {
      await cdp.detach();
    }
    await waitUntil(() => this.workerTargets(), (n) => n === 0, 'the service worker to stop');
  }

  async backgroundRunning(): Promise<boolean> {
    return (await this.workerTargets()) > 0;
  }
}
