/**
 * One table for every error the UI can receive: each API error kind (lib/api/errors.ts) and
 * each protocol error kind (lib/messaging.ts) gets a plain-language title, what happened, the
 * next step and the one action that helps. `Record<...>` makes a new kind a compile error here.
 */
import type { ApiErrorKind } from '../../api/errors';
import type { ProtocolErrorKind, ReplyError } from '../../protocol';

export type ErrorAction = 'open-options' | 'retry' | 'refresh-quota' | 'none';

export interface ErrorText {
  title: string;
  message: string;
  nextStep: string;
  action: ErrorAction;
}

export const ERROR_TEXT: Record<ApiErrorKind | ProtocolErrorKind, ErrorText> = {
  'missing-key': {
    title: 'No API key',
    message: 'The API needs a key and none is set.',
    nextStep: 'Add your key under Settings › API and press Save.',
    action: 'open-options',
  },
  'invalid-key': {
    title: 'Invalid key',
    message: 'The server rejected the API key: it is wrong, revoked or expired.',
    nextStep: 'Copy the key again from API Settings in your account dashboard, paste it in Settings and save.',
    action: 'open-options',
  },
  'sign-in-again': {
    title: 'Sign in again',
    message: "Your sign-in with your team's gateway has ended (it expired, or you or an administrator signed you out), so nothing was looked up.",
    nextStep: 'Open Settings and press "Sign in with your organisation".',
    action: 'open-options',
  },
  'quota-exhausted': {
    title: 'Quota exhausted',
    message: 'This key has used every request its plan allows for the current billing period.',
    nextStep: 'Lookups work again when the period resets. Ask your administrator for a higher limit or use another key.',
    action: 'refresh-quota',
  },
  refused: {
    title: 'Refused by the server',
    message: 'The server refused this request (HTTP 403) although it accepts the key: its own words are below.',
    nextStep: 'Your plan or the key\'s permissions may not include this lookup. Check them in your account dashboard.',
    action: 'none',
  },
  redirected: {
    title: 'API moved',
    message: 'The API answered with a redirect. The extension does not follow it, so your key is not sent to another address.',
    nextStep: 'If the new address is the real API, set it as "API base URL" in Settings.',
    action: 'open-options',
  },
  'rate-limited': {
    title: 'Too many requests',
    message: 'The server is rate limiting this key (HTTP 429). Each refused request still counts toward the quota, so the extension waits before asking again.',
    nextStep: 'Wait a minute and try again. Automatic lookups resume on their own.',
    action: 'retry',
  },
  'bad-request': {
    title: 'Request refused',
    message: 'The server refused the request as malformed (HTTP 400).',
    nextStep: 'Check the IP address. If it is valid, the API base URL may point to a different service.',
    action: 'none',
  },
  'not-found': {
    title: 'Wrong API address',
    message: 'The server answered "not found": the API base URL does not point to the lookup API.',
    nextStep: 'Check "API base URL" in Settings; it usually ends in /api/v1.',
    action: 'open-options',
  },
  server: {
    title: 'Server error',
    message: 'The API failed on its side (HTTP 5xx), even after retries.',
    nextStep: 'Try again in a few minutes. The problem is with the service, not your settings.',
    action: 'retry',
  },
  network: {
    title: 'Network error',
    message: 'The API server could not be reached: it is offline, the address is wrong, or a proxy or firewall blocks it.',
    nextStep: 'Check "API base URL" in Settings and your network connection, then try again.',
    action: 'open-options',
  },
  timeout: {
    title: 'Timed out',
    message: 'The API server took too long to answer.',
    nextStep: 'Try again. If it keeps happening, the server or your proxy is overloaded.',
    action: 'retry',
  },
  'bad-response': {
    title: 'Unexpected answer',
    message: "The server answered, but not in this API's format.",
    nextStep: 'Check "API base URL" in Settings: it may point to a web page or another service.',
    action: 'open-options',
  },
  'invalid-message': {
    title: 'Internal error',
    message: 'The extension background refused a request it did not understand.',
    nextStep: 'Reload the extension. If this persists, report it with the details below.',
    action: 'none',
  },
  forbidden: {
    title: 'Request refused',
    message: 'The extension background does not accept this request from this page.',
    nextStep: 'Close and reopen the popup or the settings page.',
    action: 'none',
  },
  internal: {
    title: 'Something went wrong',
    message: 'The extension hit an unexpected error.',
    nextStep: 'Try again. If this persists, reload the extension and report the details below.',
    action: 'retry',
  },
  unreachable: {
    title: 'Extension not responding',
    message: 'A part of the extension did not answer.',
    nextStep: 'Close and reopen the popup. If it persists, reload the extension in the browser\'s extensions page.',
    action: 'retry',
  },
};

export interface DescribedError extends ErrorText {
  kind: ReplyError['kind'];
  /** The server's own words and status, for the details line. */
  detail: string;
}

function seconds(ms: number): string {
  const s = Math.max(1, Math.round(ms / 1000));
  return s === 1 ? '1 second' : `${s} seconds`;
}

export function describeError(error: ReplyError): DescribedError {
  const text = ERROR_TEXT[error.kind] ?? ERROR_TEXT.internal;
  const status = 'status' in error && typeof error.status === 'number' ? `HTTP ${error.status}: ` : '';
  let nextStep = text.nextStep;
  if ('retryAfterMs' in error && typeof error.retryAfterMs === 'number') {
    nextStep = `The server asked to wait ${seconds(error.retryAfterMs)}. ${nextStep}`;
  }
  return { ...text, nextStep, kind: error.kind, detail: `${status}${error.message || 'no details'}` };
}
