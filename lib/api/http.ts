/**
 * One HTTP exchange with the service: URL, auth header, per-attempt timeout, JSON decoding and
 * the mapping of every failure to an ApiError. Retries wrap it (retry.ts).
 *
 * Redirects are never followed (`redirect: 'manual'`): a 301/308 would carry the key to
 * another address, and fetch turns a redirected POST into a GET. The error names the target
 * when it can be seen (Node's fetch shows the Location; a browser's opaque redirect hides it).
 */
import { ApiError } from './errors';
import { redactSecrets } from './redact';
import { parseRetryAfter, withRetry } from './retry';
import { errorForStatus, sanitizeServerText, serverMessage } from './status-errors';
import type { CircuitView } from './circuit';
import type { ApiClientOptions, ApiTimers, RetryPolicy } from './types';

export const DEFAULT_TIMEOUT_MS = 15_000;

export interface HttpRequest {
  method: 'GET' | 'POST';
  /** Path below the base URL, e.g. `/checkIP`. */
  path: string;
  query?: Record<string, string>;
  body?: unknown;
  signal?: AbortSignal;
  /**
   * checkIP may answer 404 for an IP it does not know. Only a 404 in the API's error shape
   * (`error: true` and a message) counts as that answer: an HTML page or a framework's route
   * 404 means the base URL is wrong.
   */
  notFoundIsAnswer?: boolean;
  /**
   * The call costs quota. A paid call whose answer may have been lost after it reached the
   * service (timeout, reset, gateway 5xx) and every 429 (billed) are handed back to the caller,
   * which learns the cost from /account, instead of being retried here.
   */
  paid?: boolean;
}

export interface HttpAnswer {
  status: number;
  json: unknown;
}

export interface Transport {
  send(request: HttpRequest): Promise<HttpAnswer>;
}

export function createTransport(options: ApiClientOptions, policy: RetryPolicy): Transport {
  // Replaced when a team gateway's session is renewed (options.renewKey).
  let apiKey = options.apiKey.trim();
  /** Every key this transport held: any of them is taken out of an error's words. */
  const heldKeys = [apiKey];
  const base = options.baseUrl.trim().replace(/\/+$/, '');
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const { circuit } = options;
  const timers = options.timers ?? GLOBAL_TIMERS;
  // Looked up per call, and called unbound-safe: `fetch` detached from globalThis throws
  // "Illegal invocation" in Chromium service workers.
  const fetchFn: typeof fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));

  function keyHeader(): Record<string, string> {
    if (options.authHeader === 'none') return {};
    return options.authHeader === 'x-api-key' ? { 'X-API-Key': apiKey } : { Authorization: `Bearer ${apiKey}` };
  }

  const headers = (hasBody: boolean): Record<string, string> => ({
    Accept: 'application/json',
    ...keyHeader(),
    ...(hasBody ? { 'Content-Type': 'application/json' } : {}),
  });

  /**
   * One request under the endpoint's circuit: refused without sending while it is open (or
   * its one probe is out), and its outcome reported so that only this endpoint's own answers
   * close it again.
   */
  async function attempt(request: HttpRequest, url: string): Promise<HttpAnswer> {
    if (!circuit) return attemptOnce(request, url, timeoutMs);
    // A circuit shared by processes (gateway replicas) is read from its store first.
    const permit = circuit.shared ? await circuit.acquire(request.path) : circuit.tryAcquire(request.path);
    if (!permit) throw circuitOpenError(request.path, circuit.view(request.path), timers.now());
    const started = timers.now();
    try {
      const answer = await attemptOnce(request, url, circuit.view(request.path).timeoutMs);
      permit.succeeded(timers.now() - started);
      return answer;
    } catch (error) {
      if (error instanceof ApiError) permit.failed(error.toJSON());
      else permit.abandoned();
      throw error;
    }
  }

  async function attemptOnce(request: HttpRequest, url: string, timeoutMs: number): Promise<HttpAnswer> {
    const { signal } = request;
    const controller = new AbortController();
    let timedOut = false;
    const timer = timers.setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const onAbort = () => controller.abort(signal!.reason);
    signal?.addEventListener('abort', onAbort, { once: true });

    // Cancellation by the caller is not a failure: rethrow its reason untouched.
    const failure = (cause: unknown): unknown => {
      if (signal?.aborted) return signal.reason;
      if (timedOut) {
        return new ApiError(
          { kind: 'timeout', message: `No answer from the API within ${timeoutMs / 1000} s.`, lostAfterSend: true },
          { cause },
        );
      }
      const detail = cause instanceof Error ? cause.message : String(cause);
      return new ApiError(
        { kind: 'network', message: `Could not reach the API (${detail}).`, ...(neverSent(cause) ? {} : { lostAfterSend: true }) },
        { cause },
      );
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
      return interpret(response, text, request, url);
    } finally {
      timers.clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  return {
    send(request) {
      return sendRenewing(request).catch((error: unknown) => {
        throw error instanceof ApiError ? sanitized(error) : error;
      });
    },
  };

  /** A request refused for an ended gateway session goes once more with a renewed one. */
  async function sendRenewing(request: HttpRequest): Promise<HttpAnswer> {
    const keyUsed = apiKey;
    try {
      return await sendOnce(request);
    } catch (error) {
      if (!(error instanceof ApiError) || error.kind !== 'sign-in-again' || !options.renewKey) throw error;
      // Another request may have renewed it meanwhile: use that one rather than renew twice.
      const renewed = apiKey !== keyUsed ? apiKey : await options.renewKey().catch(() => null);
      if (!renewed) throw error;
      apiKey = renewed.trim();
      heldKeys.push(apiKey);
      return sendOnce(request);
    }
  }

  /** Every error leaves with the key and other credentials taken out of its words. */
  function sanitized(error: ApiError): ApiError {
    const message = redactSecrets(error.message, heldKeys);
    if (message === error.message) return error;
    return new ApiError({ ...error.toJSON(), message });
  }

  function sendOnce(request: HttpRequest): Promise<HttpAnswer> {
    if (!apiKey && options.authHeader !== 'none') {
      return Promise.reject(new ApiError({ kind: 'missing-key', message: 'No API key is configured.' }));
    }
    const url = buildUrl(base, request.path, request.query);
    if (!url) {
      // The URL itself is not quoted: it may hold credentials.
      return Promise.reject(new ApiError({ kind: 'network', message: 'The API base URL is not a valid http(s) URL.' }));
    }
    return withRetry(() => attempt(request, url), {
      policy,
      paid: request.paid === true,
      now: () => timers.now(),
      setTimeout: (callback, ms) => timers.setTimeout(callback, ms),
      clearTimeout: (handle) => timers.clearTimeout(handle),
      ...(request.signal ? { signal: request.signal } : {}),
    });
  }
}

const GLOBAL_TIMERS: ApiTimers = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => globalThis.setTimeout(callback, ms),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof globalThis.setTimeout>),
};

/** Said without sending anything: which endpoint, what failed, and when one request checks it again. */
function circuitOpenError(path: string, view: CircuitView, now: number): ApiError {
  const reason = view.reason ?? { kind: 'server' as const, message: 'It failed just now.' };
  const waitMs = Math.max(0, (view.retryAt ?? now) - now);
  const when = waitMs >= 60_000 ? `${Math.ceil(waitMs / 60_000)} min` : `${Math.max(1, Math.ceil(waitMs / 1000))} s`;
  const checking = view.state === 'half-open' ? 'one request is checking whether it answers again' : `one small request checks it again in ${when}`;
  return new ApiError({
    kind: reason.kind,
    ...(reason.status !== undefined ? { status: reason.status } : {}),
    message: `Not sent: the API's ${path} failed just now (${reason.message.replace(/\.$/, '')}); ${checking}.`,
    retryAfterMs: waitMs,
    circuitOpen: true,
  });
}

function interpret(response: Response, text: string, request: HttpRequest, url: string): HttpAnswer {
  const json = parseJson(text);
  const { status } = response;
  if (response.type === 'opaqueredirect' || (status >= 300 && status < 400)) throw redirectError(response, url);
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
  if (status === 404) {
    if (request.notFoundIsAnswer && isApiErrorShape(json)) return { status, json };
    const where = url.split('?')[0];
    throw new ApiError({
      kind: 'not-found',
      status,
      message: `The base URL does not look like this API: ${where} answered 404 (${serverMessage(status, json, text)}).`,
    });
  }
  const error = errorForStatus(status, json, text, parseRetryAfter(response.headers.get('retry-after')));
  // A 5xx in the API's own error shape comes from the service, which bills no 5xx; any other
  // (a gateway's page) may stand for a call the service served and billed.
  if (status >= 500 && !isApiErrorShape(json)) return throwLost(error);
  throw error;
}

function throwLost(error: ApiError): never {
  throw new ApiError({ ...error.toJSON(), lostAfterSend: true });
}

/** The general error body of the spec: `{ error: true, statusCode, message }`. */
function isApiErrorShape(json: unknown): boolean {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return false;
  const body = json as Record<string, unknown>;
  return body.error === true && typeof body.message === 'string';
}

function redirectError(response: Response, url: string): ApiError {
  const location = response.headers.get('location');
  let target = 'an address the browser does not reveal';
  if (location) {
    try {
      // Origin and path only: a Location may carry credentials or a token in its query.
      const resolved = new URL(location, url);
      target = sanitizeServerText(`${resolved.origin}${resolved.pathname}`);
    } catch {
      target = `"${sanitizeServerText(location)}"`;
    }
  }
  return new ApiError({
    kind: 'redirected',
    ...(response.status ? { status: response.status } : {}),
    message:
      `The API redirects to ${target}. Redirects are not followed, so the key is not sent there; ` +
      'if the API has moved, set that address as the API base URL.',
  });
}

/**
 * Failures that provably happened before the request left: the name did not resolve, the
 * connection was refused or the network was unreachable (codes from Node's fetch; a browser's
 * "Failed to fetch" tells nothing, so it counts as maybe sent). Only these are safe to retry
 * for a paid call.
 */
const UNSENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

function neverSent(cause: unknown): boolean {
  for (let error = cause, depth = 0; error && depth < 5; depth++) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && UNSENT_CODES.has(code)) return true;
    error = (error as { cause?: unknown }).cause;
  }
  return typeof navigator !== 'undefined' && navigator.onLine === false;
}

/**
 * `redirect: 'manual'` gives browsers an opaque answer (type `opaqueredirect`, status 0, no
 * Location); Node and test doubles give the 3xx itself with its Location.
 */
function isRedirect(response: Response): boolean {
  return response.type === 'opaqueredirect' || (response.status >= 300 && response.status < 400);
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
