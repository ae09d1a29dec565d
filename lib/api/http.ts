/**
 * One HTTP exchange with the service: URL, auth header, per-attempt timeout, JSON decoding and
 * the mapping of every failure to an ApiError. Retries wrap it (retry.ts).
 */
import { ApiError } from './errors';
import { redactSecrets } from './redact';
import { parseRetryAfter, withRetry } from './retry';
import { errorForStatus } from './status-errors';
import type { ApiClientOptions, RetryPolicy } from './types';

export const DEFAULT_TIMEOUT_MS = 15_000;

export interface HttpRequest {
  method: 'GET' | 'POST';
  /** Path below the base URL, e.g. `/checkIP`. */
  path: string;
  query?: Record<string, string>;
  body?: unknown;
  signal?: AbortSignal;
  /**
   * checkIP may answer 404 for an IP it does not know. Only a JSON 404 counts as that answer:
   * an HTML 404 means the base URL is wrong.
   */
  notFoundIsAnswer?: boolean;
}

export interface HttpAnswer {
  status: number;
  json: unknown;
}

export interface Transport {
  send(request: HttpRequest): Promise<HttpAnswer>;
}

export function createTransport(options: ApiClientOptions, policy: RetryPolicy): Transport {
  const apiKey = options.apiKey.trim();
  const base = options.baseUrl.trim().replace(/\/+$/, '');
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  // Looked up per call, and called unbound-safe: `fetch` detached from globalThis throws
  // "Illegal invocation" in Chromium service workers.
  const fetchFn: typeof fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));

  const headers = (hasBody: boolean): Record<string, string> => ({
    Accept: 'application/json',
    ...(options.authHeader === 'x-api-key' ? { 'X-API-Key': apiKey } : { Authorization: `Bearer ${apiKey}` }),
    ...(hasBody ? { 'Content-Type': 'application/json' } : {}),
  });

  async function attempt(request: HttpRequest, url: string): Promise<HttpAnswer> {
    const { signal } = request;
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const onAbort = () => controller.abort(signal!.reason);
    signal?.addEventListener('abort', onAbort, { once: true });

    // Cancellation by the caller is not a failure: rethrow its reason untouched.
    const failure = (cause: unknown): unknown => {
      if (signal?.aborted) return signal.reason;
      if (timedOut) {
        return new ApiError({ kind: 'timeout', message: `No answer from the API within ${timeoutMs / 1000} s.` }, { cause });
      }
      const detail = cause instanceof Error ? cause.message : String(cause);
      return new ApiError({ kind: 'network', message: `Could not reach the API (${detail}).` }, { cause });
    };

    try {
      let response: Response;
      let text: string;
      try {
        response = await fetchFn(url, {
          method: request.method,
          headers: headers(request.body !== undefined),
          body: request.body === undefined ? undefined : JSON.stringify(request.body),
          signal: controller.signal,
          // Host permissions would otherwise attach the user's ipswamp.com session cookies.
          credentials: 'omit',
          // Never follow a redirect: an X-API-Key header goes along to the new origin (only
          // Authorization is dropped), so a 302/307 would hand the key to whoever it names.
          redirect: 'manual',
        });
        if (isRedirect(response)) throw redirectError(response, url);
        text = await response.text();
      } catch (cause) {
        if (cause instanceof ApiError) throw cause;
        throw failure(cause);
      }
      return interpret(response, text, request);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  return {
    send(request) {
      return sendOnce(request).catch((error: unknown) => {
        throw error instanceof ApiError ? sanitized(error) : error;
      });
    },
  };

  /** Every error leaves with the key and other credentials taken out of its words. */
  function sanitized(error: ApiError): ApiError {
    const message = redactSecrets(error.message, [apiKey]);
    if (message === error.message) return error;
    return new ApiError({ ...error.toJSON(), message });
  }

  function sendOnce(request: HttpRequest): Promise<HttpAnswer> {
    if (!apiKey) {
      return Promise.reject(new ApiError({ kind: 'missing-key', message: 'No API key is configured.' }));
    }
    const url = buildUrl(base, request.path, request.query);
    if (!url) {
      // The URL itself is not quoted: it may hold credentials.
      return Promise.reject(new ApiError({ kind: 'network', message: 'The API base URL is not a valid http(s) URL.' }));
    }
    return withRetry(() => attempt(request, url), {
      policy,
      ...(request.signal ? { signal: request.signal } : {}),
    });
  }
}

function interpret(response: Response, text: string, request: HttpRequest): HttpAnswer {
  const json = parseJson(text);
  const { status } = response;
  if (response.ok) {
    if (json === undefined) {
      throw new ApiError({
        kind: 'bad-response',
        status,
        message: 'The API answered with something that is not JSON (a sign-in page, or a wrong base URL?).',
      });
    }
    return { status, json };
  }
  if (status === 404 && request.notFoundIsAnswer && json !== null && typeof json === 'object') {
    return { status, json };
  }
  throw errorForStatus(status, json, text, parseRetryAfter(response.headers.get('retry-after')));
}

/**
 * `redirect: 'manual'` gives browsers an opaque answer (type `opaqueredirect`, status 0, no
 * Location); Node and test doubles give the 3xx itself with its Location.
 */
function isRedirect(response: Response): boolean {
  return response.type === 'opaqueredirect' || (response.status >= 300 && response.status < 400);
}

function redirectError(response: Response, url: string): ApiError {
  const location = response.headers.get('location');
  let target: string | null = null;
  if (location) {
    try {
      // Origin and path only: a Location may carry credentials or a token in its query.
      const resolved = new URL(location, url);
      target = `${resolved.origin}${resolved.pathname}`;
    } catch {
      target = null;
    }
  }
  const where = target ? ` to ${target}` : ' to another address (the browser does not show where)';
  return new ApiError({
    kind: 'bad-response',
    ...(response.status ? { status: response.status } : {}),
    message: `The API server redirected the request${where}. Redirects are not followed, so the key is not sent there: set "API base URL" to the final address if you trust it.`,
  });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

export function buildUrl(base: string, path: string, query?: Record<string, string>): string | null {
  let url: URL;
  try {
    url = new URL(base + path);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  for (const [name, value] of Object.entries(query ?? {})) url.searchParams.set(name, value);
  return url.toString();
}
