/**
 * How long to wait for an endpoint's answer, adapted to a slow server. A timeout does not mean
 * the server is gone: a busy gateway may answer a bulk call after 17 s when we gave up at 15 s,
 * and it billed the call all the same. Asking again with the same timeout pays again for
 * nothing, so after a timeout the next request to that endpoint waits longer (twice as long, up
 * to a cap); a prompt answer later brings the wait back down step by step.
 *
 * The cap in the extension is 28 s: Chromium stops an extension's service worker whose fetch
 * has waited 30 s for its response, which would lose the answer anyway. A server-side caller
 * (the team gateway) may choose a higher cap.
 */
export interface SlowTimeoutRule {
  /** The timeout of a healthy endpoint. */
  baseMs: number;
  /** The longest wait after timeouts. */
  capMs: number;
}

export const DEFAULT_SLOW_TIMEOUT: SlowTimeoutRule = { baseMs: 15_000, capMs: 28_000 };

/** The timeout after a request timed out at `currentMs`. */
export function raisedTimeout(currentMs: number, rule: SlowTimeoutRule): number {
  return Math.min(rule.capMs, Math.max(rule.baseMs, currentMs * 2));
}

/**
 * The timeout after an answer that took `elapsedMs` at `currentMs`: back one step (halved, not
 * below the base) only when the answer came well within the base; a slow answer keeps the wait.
 */
export function relaxedTimeout(currentMs: number, elapsedMs: number, rule: SlowTimeoutRule): number {
  if (currentMs <= rule.baseMs || elapsedMs > rule.baseMs / 2) return Math.max(rule.baseMs, Math.min(currentMs, rule.capMs));
  return Math.max(rule.baseMs, Math.round(currentMs / 2));
}
