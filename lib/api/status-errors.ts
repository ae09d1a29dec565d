/**
 * Turns a non-2xx answer into the ApiError kind the UI can explain. The 403s share one status
 * for "invalid", "expired" and "usage limit exceeded" and the spec gives no codes, so the
 * message text is all we have to tell quota exhaustion apart.
 */
import { ApiError, type ApiErrorKind } from './errors';

const QUOTA_WORDS = /limit|quota|usage|exceed/i;

export function kindForStatus(status: number, message: string): ApiErrorKind {
  if (status === 400) return 'bad-request';
  if (status === 401) return 'missing-key';
  if (status === 403) return QUOTA_WORDS.test(message) ? 'quota-exhausted' : 'invalid-key';
  if (status === 404) return 'not-found';
  if (status === 408) return 'timeout';
  if (status === 429) return 'rate-limited';
  if (status >= 500) return 'server';
  if (status >= 400) return 'bad-request';
  return 'bad-response';
}

/**
 * The server's own words: `message` from the general error body, `statusMessage` from
 * test-key's odd 401, else the `<title>` of an HTML error page, else the status line.
 */
export function serverMessage(status: number, json: unknown, text: string): string {
  if (json && typeof json === 'object') {
    const body = json as Record<string, unknown>;
    for (const field of ['message', 'statusMessage', 'error']) {
      const value = body[field];
      if (typeof value === 'string' && value.trim()) return value.trim();
    }
  }
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(text)?.[1]?.trim();
  if (title) return title.slice(0, 200);
  return `HTTP ${status}`;
}

export function errorForStatus(
  status: number,
  json: unknown,
  text: string,
  retryAfterMs?: number,
): ApiError {
  const message = serverMessage(status, json, text);
  const kind = kindForStatus(status, message);
  return new ApiError({ kind, message, status, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) });
}
