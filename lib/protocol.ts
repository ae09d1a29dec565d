/**
 * What every context of the extension agrees on, without zod: the reply envelope, the page's
 * IP rows, the display settings and their one default, and the limits both sides check. The
 * background's zod schemas (lib/messaging.ts) and the content script's hand-written parser
 * (lib/page/messages/tab-messages.ts) both build on these, so the content script never ships zod.
 */
import type { ApiErrorData } from './api/errors';
import type { LookupResult } from './lookup/types';
import type { MarkStyle } from './page/marks/highlight-styles';
import { DEFAULT_THRESHOLDS, type SeverityThresholds } from './severity';

/** Errors that are not the API's: the message itself was refused or the handler failed. */
export type ProtocolErrorKind = 'invalid-message' | 'forbidden' | 'internal' | 'unreachable';
export interface ProtocolError {
  kind: ProtocolErrorKind;
  message: string;
}

export type ReplyError = ApiErrorData | ProtocolError;
/** Every message is answered with one: a failure reaches the caller as a typed error, never `undefined`. */
export type Reply<T> = { ok: true; value: T } | { ok: false; error: ReplyError };

/** One row of the popup's "This page" list. */
export interface PageIp {
  ip: string;
  version: 4 | 6;
  count: number;
  result?: LookupResult;
}

/** What the content script needs of the settings; it never sees the rest (the key above all). */
export interface DisplaySettings {
  thresholds: SeverityThresholds;
  markStyle: MarkStyle;
  /** Ask for private/reserved addresses too (off by default: they are marked "skipped"). */
  sendPrivate: boolean;
}

/**
 * The display settings' defaults, the only copy: the stored settings' defaults take them from
 * here, and the page uses them until the background answers, or if it never does.
 */
export const DEFAULT_DISPLAY: DisplaySettings = {
  thresholds: DEFAULT_THRESHOLDS,
  markStyle: 'underline',
  sendPrivate: false,
};

/**
 * Most risky IPs one frame reports. The badge shows "999+" beyond 999, so a frame with more
 * needs to send no more for the tab's count to read right.
 */
export const MAX_REPORTED_RISKY_IPS = 1_000;

/** Longest selection text `tab:show-lookup` carries. */
export const MAX_SHOW_LOOKUP_TEXT = 100_000;

/** A subnet check: one block's addresses at most (API_MAX_ADDRESSES in lib/ip/cidr-block.ts). */
export const MAX_UPDATED_IPS = 256;
