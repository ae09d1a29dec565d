/**
 * The extension runtime as the browser itself gives it, for the content script only.
 * `wxt/browser` is webextension-polyfill here (wxt.config.ts), ~3 KB gzip in a script injected
 * into every scanned page, and the content script needs nothing it adds: `runtime.id`, `getURL`,
 * `sendMessage` (a promise natively in Chromium's MV3 and in Firefox) and `onMessage`, answered
 * through `sendResponse`, which both browsers support (Chromium ignores a promise returned by a
 * listener, hence `answerWith`). The background and the extension pages keep the polyfill.
 */
import type { SenderInfo } from './message-router';

export type NativeListener = (message: unknown, sender: SenderInfo, sendResponse: (reply: unknown) => void) => boolean;

export interface NativeRuntime {
  /** Gone once the extension is reloaded or removed: this script is then orphaned. */
  readonly id?: string;
  getURL(path: string): string;
  sendMessage(message: unknown): Promise<unknown>;
  readonly onMessage: {
    addListener(listener: NativeListener): void;
    removeListener(listener: NativeListener): void;
  };
}

type ExtensionGlobals = { browser?: { runtime?: NativeRuntime }; chrome?: { runtime?: NativeRuntime } };

/** Firefox's promise-based `browser` where there is one, else Chromium's `chrome`. */
export function nativeRuntime(scope: object = globalThis): NativeRuntime | undefined {
  const g = scope as ExtensionGlobals;
  return g.browser?.runtime ?? g.chrome?.runtime;
}

/**
 * An onMessage listener for a router that answers its own messages with a promise and returns
 * undefined for the rest: those stay unanswered (false), so another listener may answer them.
 */
export function answerWith(route: (message: unknown, sender: SenderInfo) => Promise<unknown> | undefined): NativeListener {
  return (message, sender, sendResponse) => {
    const reply = route(message, sender);
    if (!reply) return false;
    // The router turns every failure into an error reply; a rejection would mean a bug, and the
    // sender then sees its channel close ("unreachable") rather than wait forever.
    reply.then(sendResponse, () => sendResponse(undefined));
    return true;
  };
}
