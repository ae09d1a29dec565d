/**
 * One error type for every failure of the API client. `kind` tells the UI what to say; the
 * status and the server's own message are kept for the details line.
 */
export const API_ERROR_KINDS = [
  'missing-key', // 401, or no key configured
  'invalid-key', // 403 Invalid API key / expired (or an unknown 403 that /account also refuses)
  'sign-in-again', // 403 code "sign_in_again": the team gateway's sign-in session ended, refreshing failed
  'quota-exhausted', // 403 whose message speaks of a limit (or an unknown 403 while /account shows none left)
  'refused', // 403 with a text we do not know, for a key /account accepts: the server's words are quoted
  'redirected', // 3xx: requests are not followed elsewhere (the key would go with them)
  'rate-limited', // 429 (after retries)
  'bad-request', // 400 (also: input rejected before sending)
  'not-found', // 404 that is not checkIP's "IP not in database" (wrong base URL)
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
  /**
   * The request may have reached the service (and been billed) but its answer was lost: a
   * timeout, a reset, a gateway's 5xx. A paid call that fails so is not retried blindly.
   */
  lostAfterSend?: boolean;
  /**
   * Nothing was sent: the endpoint's circuit is open after an outage (circuit.ts), and
   * `retryAfterMs` says when one request will check it again.
   */
  circuitOpen?: boolean;
}

export class ApiError extends Error implements ApiErrorData {
  override readonly name = 'ApiError';
  // Declared, not defined as class fields: each is set in the constructor only when it has a
  // value, so an error carries no undefined own properties, and the content script (which
  // carries this class) no field list.
  declare readonly kind: ApiErrorKind;
  declare readonly status?: number;
  declare readonly retryAfterMs?: number;
  declare readonly lostAfterSend?: boolean;
  declare readonly circuitOpen?: boolean;

  constructor(data: ApiErrorData, options?: { cause?: unknown }) {
    super(data.message, options);
    this.kind = data.kind;
    copyOptional(data, this);
  }

  toJSON(): ApiErrorData {
    return copyOptional(this, { kind: this.kind, message: this.message });
  }
}

/**
 * The optional fields, copied only when set (a flag only when true). One loop rather than a line
 * a field: the content script carries this class (its message router answers with it), and
 * every byte there is parsed on each scanned page.
 */
const OPTIONAL_FIELDS = ['status', 'retryAfterMs', 'lostAfterSend', 'circuitOpen'] as const;

function copyOptional<T extends object>(from: ApiErrorData, to: T): T {
  for (const key of OPTIONAL_FIELDS) {
    const value = from[key];
    // Numbers (0 included) and true; never undefined or a false flag.
    if (value || value === 0) (to as Record<string, unknown>)[key] = value;
  }
  return to;
}

export function isApiError(value: unknown): value is ApiError {
  return value instanceof ApiError;
}
