/**
 * One error type for every failure of the API client. `kind` tells the UI what to say; the
 * status and the server's own message are kept for the details line.
 */
export const API_ERROR_KINDS = [
  'missing-key', // 401, or no key configured
  'invalid-key', // 403 Invalid API key / expired
  'quota-exhausted', // 403 whose message speaks of a limit, quota or usage
  'rate-limited', // 429 (after retries)
  'bad-request', // 400 (also: input rejected before sending)
  'not-found', // 404 on an endpoint that is not a lookup (wrong base URL)
  'server', // 5xx (after retries)
  'network', // fetch rejected: DNS, refused, offline, CORS, permission
  'timeout', // no answer in time
  'bad-response', // not JSON, or not the documented shape
] as const;

export type ApiErrorKind = (typeof API_ERROR_KINDS)[number];

/** Plain, serialisable form (for messages between extension contexts). */
export interface ApiErrorData {
  kind: ApiErrorKind;
  message: string;
  status?: number;
  /** Milliseconds the server asked us to wait (Retry-After), when it did. */
  retryAfterMs?: number;
}

export class ApiError extends Error implements ApiErrorData {
  override readonly name = 'ApiError';
  readonly kind: ApiErrorKind;
  readonly status?: number;
  readonly retryAfterMs?: number;

  constructor(data: ApiErrorData, options?: { cause?: unknown }) {
    super(data.message, options);
    this.kind = data.kind;
    if (data.status !== undefined) this.status = data.status;
    if (data.retryAfterMs !== undefined) this.retryAfterMs = data.retryAfterMs;
  }

  toJSON(): ApiErrorData {
    const out: ApiErrorData = { kind: this.kind, message: this.message };
    if (this.status !== undefined) out.status = this.status;
    if (this.retryAfterMs !== undefined) out.retryAfterMs = this.retryAfterMs;
    return out;
  }
}

export function isApiError(value: unknown): value is ApiError {
  return value instanceof ApiError;
}
