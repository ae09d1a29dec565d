/**
 * The shared scenarios' ExtensionDriver for Firefox: puppeteer-core pages over WebDriver BiDi,
 * plus raw BiDi where puppeteer stops short: serialising the hover card's closed shadow root
 * (BiDi's `includeShadowTree: "all"`) and clicking inside it.
 */
import type { ElementHandle, Frame, Page } from 'puppeteer-core';
import type { Box, CardSnapshot, Evaluator, ExtensionDriver, Tab } from '../e2e/scenarios/driver';
import { waitForBodyText, waitForFrame, waitUntil } from '../e2e/scenarios/driver';
import { BACKGROUND_IDLE_MS, bidi, contextOf, type FirefoxSession } from './firefox';

interface SerialisedNode {
  type: string;
  sharedId?: string;
  value?: {
    nodeType: number;
    localName?: string;
    nodeValue?: string;
    mode?: string;
    attributes?: Record<string, string>;
    children?: SerialisedNode[];
    shadowRoot?: SerialisedNode | null;
  };
}

function evaluator(target: Page | Frame): Evaluator {
  return {
    // puppeteer's types unwrap handles in arguments; scenarios pass plain JSON only.
    evaluate: <A, R>(fn: (arg: A) => R | Promise<R>, arg: A) =>
      (target.evaluate as (f: (arg: A) => R | Promise<R>, a: A) => Promise<R>).call(target, fn, arg),
  };
}

class FirefoxTab implements Tab {
  constructor(
    private readonly session: FirefoxSession,
    readonly page: Page,
    private readonly openedAt: string,
  ) {}

  /** puppeteer does not follow raw-BiDi navigations (extension pages): it still says about:blank. */
  get url(): string {
    const url = this.page.url();
    return url === 'about:blank' ? this.openedAt : url;
  }

  evaluate<A, R>(fn: (arg: A) => R | Promise<R>, arg: A): Promise<R> {
    return evaluator(this.page).evaluate(fn, arg);
  }

  async fill(label: string, value: string): Promise<void> {
    const find = () =>
      this.page.evaluateHandle((wanted) => {
        const l = [...document.querySelectorAll('label')].find((x) => x.textContent?.replace(/\s+/g, ' ').trim() === wanted);
        return (l?.control ?? null) as HTMLInputElement | HTMLTextAreaElement | null;
      }, label);
    // Wait for it, as Playwright's getByLabel does: a page may still be loading its settings
    // (options: settings and the managed policy).
    const handle = await waitUntil(find, (h) => h.asElement() !== null, `a field labelled "${label}"`, 10_000).catch(() => null);
    const field = handle?.asElement();
    if (!field) throw new Error(`no field labelled "${label}"`);
    // Select the old text so typing replaces it, then type for real (input events, as a user).
    await field.evaluate((el) => {
      (el as HTMLInputElement).focus();
      (el as HTMLInputElement).select();
    });
    if (value === '') await this.page.keyboard.press('Backspace');
    else if (value.length > 200 || value.includes('\n')) {
      // Long or multi-line text is pasted, as users do, in one input event.
      await field.evaluate((el, v) => {
        (el as HTMLInputElement).value = v;
        el.dispatchEvent(new Event('input', { bubbles: true }));
      }, value);
    } else await field.type(value);
    await handle?.dispose();
  }

  async check(label: string): Promise<void> {
    const handle = await this.page.evaluateHandle((wanted) => {
      const l = [...document.querySelectorAll('label')].find((x) => x.textContent?.replace(/\s+/g, ' ').trim() === wanted);
      return (l?.control ?? null) as HTMLInputElement | null;
    }, label);
    const box = handle.asElement() as ElementHandle<HTMLInputElement> | null;
    if (!box) throw new Error(`no checkbox labelled "${label}"`);
    if (!(await box.evaluate((el) => el.checked))) await box.click();
    await handle.dispose();
  }

  async clickButton(name: string): Promise<void> {
    const handle = await this.page.evaluateHandle((wanted) => {
      const named = (b: Element) => (b.getAttribute('aria-label') ?? b.textContent ?? '').replace(/\s+/g, ' ').trim();
      return [...document.querySelectorAll('button')].find((b) => named(b) === wanted) ?? (null as HTMLButtonElement | null);
    }, name);
    const button = handle.asElement() as ElementHandle<HTMLButtonElement> | null;
    if (!button) throw new Error(`no button named "${name}"`);
    await button.click();
    await handle.dispose();
  }

  waitForText(text: string | RegExp, timeoutMs = 15_000): Promise<void> {
    return waitForBodyText(() => this.page.evaluate(() => document.body?.innerText ?? ''), text, this.url, timeoutMs);
  }

  async frame(urlPart: string): Promise<Evaluator> {
    return evaluator(await waitForFrame(() => this.page.frames(), urlPart));
  }

  async moveMouse(x: number, y: number): Promise<void> {
    await this.page.mouse.move(x, y, { steps: 4 });
  }

  async pressKey(key: 'Escape' | 'Enter'): Promise<void> {
    await this.page.keyboard.press(key);
  }

  /** The card host, serialised with its closed shadow tree (BiDi can see through it). */
  private async cardNode(): Promise<SerialisedNode | null> {
    const reply = (await bidi(this.session.browser).send('script.callFunction', {
      functionDeclaration: '() => document.querySelector("ip-reputation-lens")',
      target: { context: contextOf(this.page) },
      awaitPromise: false,
      resultOwnership: 'none',
      serializationOptions: { maxDomDepth: null, includeShadowTree: 'all' },
    })) as { result: { type: string; result?: SerialisedNode } };
    const node = reply.result.result;
    return node?.type === 'node' ? node : null;
  }

  async readCard(): Promise<CardSnapshot | null> {
    const host = await this.cardNode();
    const shadow = host?.value?.shadowRoot;
    if (!shadow?.value) return null;
    const parts: string[] = [];
    const buttons: string[] = [];
    const walk = (n: SerialisedNode, inStyle: boolean, out: string[]) => {
      const v = n.value;
      if (!v) return;
      if (v.nodeType === 3 && !inStyle) out.push(v.nodeValue ?? '');
      const style = inStyle || v.localName === 'style';
      if (v.localName === 'button') {
        const own: string[] = [];
        for (const c of v.children ?? []) walk(c, style, own);
        buttons.push(v.attributes?.['aria-label'] ?? own.join(' ').replace(/\s+/g, ' ').trim());
      }
      for (const c of v.children ?? []) walk(c, style, out);
    };
    walk(shadow, false, parts);
    if (parts.length === 0 && buttons.length === 0) return null;
    return { text: parts.join(' ').replace(/\s+/g, ' ').trim(), shadowRootMode: shadow.value.mode ?? null, buttons };
  }

  async cardBox(): Promise<Box | null> {
    let card: string | undefined;
    const walk = (n: SerialisedNode | null | undefined) => {
      const v = n?.value;
      if (!v || card) return;
      if (v.localName === 'div' && /(^|\s)card(\s|$)/.test(v.attributes?.class ?? '')) card = n!.sharedId;
      walk(v.shadowRoot);
      for (const c of v.children ?? []) walk(c);
    };
    walk(await this.cardNode());
    if (!card) return null;
    const reply = (await bidi(this.session.browser).send('script.callFunction', {
      functionDeclaration: '(c) => { const r = c.getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; }',
      arguments: [{ sharedId: card }],
      target: { context: contextOf(this.page) },
      awaitPromise: false,
      resultOwnership: 'none',
    })) as { result: { result?: { value?: { value: number }[] } } };
    const [x, y, width, height] = (reply.result.result?.value ?? []).map((v) => v.value);
    if (x === undefined || y === undefined || width === undefined || height === undefined) return null;
    return { x, y, width, height };
  }

  async clickCardButton(name: string): Promise<void> {
    const host = await this.cardNode();
    let found: string | undefined;
    const walk = (n: SerialisedNode | null | undefined) => {
      const v = n?.value;
      if (!v || found) return;
      if (v.localName === 'button') {
        const texts: string[] = [];
        const collect = (c: SerialisedNode) => {
          if (c.value?.nodeType === 3) texts.push(c.value.nodeValue ?? '');
          for (const d of c.value?.children ?? []) collect(d);
        };
        collect(n!);
        const label = v.attributes?.['aria-label'] ?? texts.join(' ').replace(/\s+/g, ' ').trim();
        if (label === name) found = n!.sharedId;
      }
      walk(v.shadowRoot);
      for (const c of v.children ?? []) walk(c);
    };
    walk(host);
    if (!found) throw new Error(`no card button named "${name}"`);
    const reply = (await bidi(this.session.browser).send('script.callFunction', {
      functionDeclaration: '(b) => { const r = b.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; }',
      arguments: [{ sharedId: found }],
      target: { context: contextOf(this.page) },
      awaitPromise: false,
      resultOwnership: 'none',
    })) as { result: { result?: { value?: { value: number }[] } } };
    const [x, y] = (reply.result.result?.value ?? []).map((v) => v.value);
    if (x === undefined || y === undefined) throw new Error(`card button "${name}" has no position`);
    await this.page.mouse.move(x, y, { steps: 4 });
    await this.page.mouse.click(x, y);
  }

  close(): Promise<void> {
    return this.page.close();
  }
}

export class FirefoxDriver implements ExtensionDriver {
  readonly browserName = 'firefox';
  constructor(readonly session: FirefoxSession) {}

  async openExtensionPage(pathAndQuery: string): Promise<Tab> {
    return new FirefoxTab(this.session, await this.session.openExtensionPage(pathAndQuery), this.session.extensionUrl(pathAndQuery));
  }

  async openPage(url: string): Promise<Tab> {
    return new FirefoxTab(this.session, await this.session.openPage(url), url);
  }

  async suspendBackground(): Promise<void> {
    // Nothing to force: Firefox suspends an idle event page by itself after
    // extensions.background.idle.timeout (set short for the test profile).
    await waitUntil(() => this.session.backgroundState(), (s) => s === 'stopped', 'the background to be suspended', BACKGROUND_IDLE_MS * 6);
  }

  async backgroundRunning(): Promise<boolean> {
    return (await this.session.backgroundState()) === 'running';
  }
}
