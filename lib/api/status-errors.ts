/**
 * Turns a non-2xx answer into the ApiError kind the UI can explain. The 403s share one status
 * for "invalid", "expired" and "usage limit exceeded" and the spec gives no codes. The
 * authentication page names those three texts; any other 403 text is `refused` here and is
 * confirmed with the free /account before anyone calls the key invalid (refused-403.ts).
 */
import { ApiError, type ApiErrorKind } from './errors';

const QUOTA_WORDS = /usage limit|limit (exceeded|reached)|quota|exceeded/i;
const KEY_WORDS = /\b(invalid|expired|revoked|unknown|disabled)\b.*\bkey\b|\bkey\b.*\b(invalid|expired|revoked|disabled)\b/i;

export function kindForStatus(status: number, message: string): ApiErrorKind {
  if (status === 400) return 'bad-request';
  if (status === 401) return 'missing-key';
  if (status === 403) return QUOTA_WORDS.test(message) ? 'quota-exhausted' : KEY_WORDS.test(message) ? 'invalid-key' : 'refused';
  if (status === 404) return 'not-found';
  if (status === 408) return 'timeout';
  if (status === 429) return 'rate-limited';
  if (status >= 500) return 'server';
  if (status >= 400) return 'bad-request';
  return 'bad-response';
}

/** Longest server text quoted in a message. */
const MAX_QUOTE = 160;

/**
 * Server text made fit to quote: control and bidi-override characters removed (they could
 * reorder what the user reads), whitespace collapsed, cut short.
 */
export function sanitizeServerText(text: string): string {
  const clean = text
    // eslint-disable-next-line no-control-regex -- stripping control characters is the point
    .replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return clean.length > MAX_QUOTE ? `${clean.slice(0, MAX_QUOTE - 1)}…` : clean;
}

/**
 * The server's own words: `message` from the general error body, `statusMessage` from
 * test-key's odd 401, else the `<title>` of an HTML error page, else a short plain-text body
 * (a text/plain 429), else the status line.
 */
export function serverMessage(status: number, json: unknown, text: string): string {
  if (json && typeof json === 'object') {
    const body = json as Record<string, unknown>;
    for (const field of ['message', 'statusMessage', 'error']) {
      const value = body[field];
      if (typeof value === 'string' && value.trim()) return sanitizeServerText(value);
    }
  }
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(text)?.[1];
  if (title?.trim()) return sanitizeServerText(title);
  if (json === undefined && text.trim() && !/<[a-z!]/i.test(text)) return sanitizeServerText(text);
  return `HTTP ${status}`;
}

export function errorForStatus(
  status: number,
  json: unknown,
  text: string,
  retryAfterMs?: number,
): ApiError {
  const message = serverMessage(status, json, text);
  // The team gateway's stable code for an ended sign-in session (docs/gateway.md): the analyst
  // must sign in with the organisation again; no key to fix, nothing to retry.
  if (status === 403 && isSignInAgain(json)) {
    return new ApiError({ kind: 'sign-in-again', status, message: `Your sign-in with the team gateway has ended (the gateway said "${message}").` });
  }
  const kind = kindForStatus(status, message);
  return new ApiError({ kind, message, status, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) });
}

function isSignInAgain(json: unknown): boolean {
  return !!json && typeof json === 'object' && (json as Record<string, unknown>).code === 'sign_in_again';
}
