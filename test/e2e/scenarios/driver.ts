/**
 * The browser-neutral driver the shared scenarios (./*.ts) are written against. Chromium
 * implements it with Playwright and the DevTools protocol (../chromium-driver.ts), Firefox with
 * puppeteer-core over WebDriver BiDi (../../e2e-firefox/firefox-driver.ts). It holds only what a
 * scenario needs: open a tab, type into a labelled field, press a named button, wait for text,
 * run a function in the page, hover, and read the hover card in its closed shadow root.
 */

/** Something that runs a function in a document: a tab or one of its frames. */
export interface Evaluator {
  /** `fn` is serialised and run in the page's own world; argument and result pass as JSON. */
  evaluate<A, R>(fn: (arg: A) => R | Promise<R>, arg: A): Promise<R>;
}

export interface Tab extends Evaluator {
  readonly url: string;
  /** Types `value` into the form control whose label reads exactly `label`, replacing its text. */
  fill(label: string, value: string): Promise<void>;
  /** Clicks (a real pointer click) the button whose accessible name is exactly `name`. */
  clickButton(name: string): Promise<void>;
  /** Ticks the checkbox labelled exactly `label` (a real click when it is not ticked yet). */
  check(label: string): Promise<void>;
  /** Waits until the page's visible text contains `text`; the error shows what the page said. */
  waitForText(text: string | RegExp, timeoutMs?: number): Promise<void>;
  /** The frame whose URL contains `urlPart`. */
  frame(urlPart: string): Promise<Evaluator>;
  /** Moves the pointer to a point of the viewport, in a few steps (hover intent needs motion). */
  moveMouse(x: number, y: number): Promise<void>;
  pressKey(key: 'Escape' | 'Enter'): Promise<void>;
  /** The hover card (closed shadow root), or null when none is open. */
  readCard(): Promise<CardSnapshot | null>;
  /** The card's border box in viewport pixels, or null when none is open. */
  cardBox(): Promise<Box | null>;
  clickCardButton(name: string): Promise<void>;
  close(): Promise<void>;
}

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface CardSnapshot {
  /** All text in the card, in order, whitespace-collapsed (style text left out). */
  text: string;
  shadowRootMode: string | null;
  /** Names of the buttons in the card. */
  buttons: string[];
}

export interface ExtensionDriver {
  readonly browserName: 'chromium' | 'firefox';
  /** A new tab with one of the extension's pages, e.g. "popup.html?tab=3", loaded. */
  openExtensionPage(pathAndQuery: string): Promise<Tab>;
  /** A new tab with a web page, loaded. */
  openPage(url: string): Promise<Tab>;
  /**
   * Makes the browser stop the background (Chromium: stop the service worker; Firefox: let the
   * event page reach its idle timeout) and resolves once it is stopped.
   */
  suspendBackground(): Promise<void>;
  /** Whether the background runs now. */
  backgroundRunning(): Promise<boolean>;
}

/** Polls `probe` until `accept` holds; the error says what was last seen. */
export async function waitUntil<T>(probe: () => Promise<T>, accept: (value: T) => boolean, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  let failure: unknown;
  for (;;) {
    try {
      last = await probe();
      failure = undefined;
      if (accept(last)) return last;
    } catch (error) {
      failure = error;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}; last seen: ${failure ? String(failure) : JSON.stringify(last)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Waits until a page's visible text contains `text` (white space folded) or matches it. */
export async function waitForBodyText(
  readText: () => Promise<string>,
  text: string | RegExp,
  where: string,
  timeoutMs = 15_000,
): Promise<void> {
  const matches = (body: string) => (typeof text === 'string' ? body.replace(/\s+/g, ' ').includes(text) : text.test(body));
  await waitUntil(readText, matches, `"${String(text)}" in ${where}`, timeoutMs);
}

/** Waits for the frame whose URL contains `urlPart`, in either browser's frame list. */
export async function waitForFrame<F extends { url(): string }>(frames: () => F[], urlPart: string): Promise<F> {
  const frame = await waitUntil(async () => frames().find((f) => f.url().includes(urlPart)) ?? null, (f) => f !== null, `a frame at ${urlPart}`);
  return frame!;
}
