/**
 * The typed protocol between the extension's contexts. Every message has a zod schema for its
 * payload and a reply type; names say the direction:
 *   ui:*  popup / options page  -> background (extension pages only)
 *   cs:*  content script        -> background
 *   tab:* popup / background    -> content script of one tab
 * The receiver validates the payload and the sender before acting (lib/message-router.ts), and
 * always answers with a `Reply` envelope (lib/protocol.ts). These zod schemas are the
 * background's; the content script checks its tab:* messages by hand (lib/page/messages/tab-messages.ts).
 */
import { z } from './zod';
import type { AccountInfo, SubnetLookup, TestKeyResult } from './api/types';
import type { PageCapUsage } from './lookup/page-cap';
import type { LookupResult, LookupStatus, QuotaSnapshot } from './lookup/types';
import {
  MAX_REPORTED_RISKY_IPS,
  MAX_SHOW_LOOKUP_TEXT,
  MAX_UPDATED_IPS,
  type DisplaySettings,
  type PageIp,
  type ProtocolError,
} from './protocol';
import { PIVOT_ID, type PivotChoice } from './pivots';
import { gatewayUrlSchema, markStyleSchema, settingsSchema, thresholdsSchema, type GatewayInfo, type Settings, type SignInState } from './settings';

const ip = z.string().min(2).max(100);
const ipList = z.array(ip).min(1).max(10_000);
/** What the content script needs of the settings; it never sees the rest (the key above all). */
const displaySettings = z
  .object({ thresholds: thresholdsSchema, markStyle: markStyleSchema, sendPrivate: z.boolean() })
  .strict() satisfies z.ZodType<DisplaySettings>;

export const messageSchemas = {
  // ----- UI -> background -----
  /**
   * `retryLost`: the analyst's "Try again" for IPs whose paid answer was lost (the popup stated
   * the cost). `resent`: set by the message client when it sends the lookup again after its
   * channel closed, which is not the analyst asking again.
   */
  'ui:lookup': z.object({ ips: ipList, detailed: z.boolean().optional(), retryLost: z.boolean().optional(), resent: z.boolean().optional() }).strict(),
  'ui:verify-key': z.object({}).strict(),
  'ui:test-key': z.object({}).strict(),
  'ui:get-status': z.object({}).strict(),
  'ui:refresh-quota': z.object({}).strict(),
  'ui:clear-cache': z.object({}).strict(),
  /** `/checkSubnet` for one block of at most 256 addresses (the popup states its cost first). */
  'ui:check-subnet': z.object({ cidr: z.string().min(3).max(64) }).strict(),
  /** Register (or unregister) the content script for a site; permission is asked by the UI. */
  'ui:set-site-scanning': z.object({ pattern: z.string().min(1).max(2048), enabled: z.boolean() }).strict(),
  /** Scan one tab once (activeTab). */
  'ui:scan-tab': z.object({ tabId: z.number().int().nonnegative() }).strict(),
  /** The automatic-lookup cap of a tab's site: used / cap (the popup shows it). */
  'ui:get-page-cap': z.object({ tabId: z.number().int().nonnegative() }).strict(),
  /** Lift a reached cap of a tab's site, once per window; the tab's pages ask again. */
  /**
   * The popup's one cap control, "Look up the rest": these IPs of the tab, past its cap, are
   * looked up as the analyst asked; the site's daily ceiling and the quota reserve still hold.
   */
  'ui:look-up-past-cap': z.object({ tabId: z.number().int().nonnegative(), ips: ipList }).strict(),
  /**
   * The options page's saves (lib/background/settings-handlers.ts): validated here field by
   * field, then written by the worker, which outlives a page closed right after a change.
   */
  'ui:save-settings': z.object({ patch: settingsSchema.partial().strict() }).strict(),
  /** Whether a team gateway offers sign-in with the organisation (its GET /auth/info). */
  'ui:gateway-info': z.object({ gatewayUrl: gatewayUrlSchema.refine((v) => v !== '', 'No gateway address.') }).strict(),
  /** Sign in with the organisation at the saved gateway (lib/background/gateway-sign-in.ts). */
  'ui:sign-in': z.object({}).strict(),
  'ui:sign-out': z.object({}).strict(),
  /** Who is signed in and until when; never a token. */
  'ui:get-sign-in': z.object({}).strict(),
  // ----- content script -> background -----
  /** `now`: answer what is known without a call, leave out the IPs queued for one (ask again). */
  'cs:lookup': z
    .object({ ips: ipList, priority: z.enum(['visible', 'background']), now: z.boolean().optional() })
    .strict(),
  /** The hover card's "Details" button: a user action, so it may use the quota reserve. */
  'cs:lookup-detailed': z.object({ ip }).strict(),
  /**
   * This frame's distinct high and critical IPs, for the toolbar badge: IPs rather than a count,
   * so the background counts an IP shown in several frames of a tab once.
   */
  'cs:page-summary': z.object({ riskyIps: z.array(ip).max(MAX_REPORTED_RISKY_IPS) }).strict(),
  /** The display settings, asked once as the script starts; changes then come as tab:display-settings. */
  'cs:get-display-settings': z.object({}).strict(),
  /** The hover card's code, injected into the asking frame at its first hover. */
  'cs:load-card': z.object({}).strict(),
  /**
   * The card's "Check 203.0.113.0/24": free. The background opens the popup page with the block,
   * where the analyst sees its cost and the quota left and confirms (the paid call is a ui:*).
   */
  'cs:open-subnet-check': z.object({ cidr: z.string().min(3).max(64) }).strict(),
  /** The hover card's "Open in …" services: ids and names only, never their URLs. */
  'cs:get-pivots': z.object({}).strict(),
  /** Open `ip` in one service; the background builds the URL and opens the tab. */
  'cs:open-pivot': z.object({ ip, pivotId: z.string().regex(PIVOT_ID) }).strict(),
  /**
   * The card's "Copy as STIX": a STIX 2.1 bundle of one IP this frame was told about, built in
   * the background from its own answer (lib/background/stix-handlers.ts).
   */
  'cs:copy-stix': z.object({ ip }).strict(),
  // ----- to the content script of a tab -----
  'tab:get-page-ips': z.object({}).strict(),
  'tab:show-lookup': z.object({ text: z.string().max(MAX_SHOW_LOOKUP_TEXT) }).strict(),
  /** Background -> every tab: the API server changed, the page's results are another server's. */
  'tab:results-stale': z.object({}).strict(),
  /** Background -> every tab: lookups were failing and the server answers again: re-ask the failed IPs. */
  'tab:lookups-recovered': z.object({}).strict(),
  /** Background -> every tab: new answers for these IPs are cached (a subnet check); pages showing them ask the cache. */
  'tab:results-updated': z.object({ ips: z.array(ip).min(1).max(MAX_UPDATED_IPS) }).strict(),
  /** Background -> every tab: the display settings changed (options page edits apply live). */
  'tab:display-settings': displaySettings,
} as const;

export type MessageType = keyof typeof messageSchemas;
export type MessagePayload<T extends MessageType> = z.infer<(typeof messageSchemas)[T]>;

export interface SubnetReply {
  cidr: string;
  summary: SubnetLookup['summary'];
  /** Found IPs only, as the API lists them. */
  found: LookupResult[];
  /** Units charged (one per IP found). */
  cost: number;
}

export interface MessageReplies {
  'ui:lookup': LookupResult[];
  'ui:verify-key': AccountInfo;
  'ui:test-key': TestKeyResult;
  'ui:get-status': LookupStatus;
  'ui:refresh-quota': QuotaSnapshot;
  'ui:clear-cache': { cleared: number };
  'ui:check-subnet': SubnetReply;
  'ui:set-site-scanning': { patterns: string[] };
  'ui:scan-tab': { injected: boolean };
  'ui:get-page-cap': PageCapUsage;
  'ui:look-up-past-cap': LookupResult[];
  /** The settings in force after the save (the key included: only extension pages may ask). */
  'ui:save-settings': Settings;
  'ui:gateway-info': GatewayInfo;
  'ui:sign-in': SignInState;
  'ui:sign-out': SignInState;
  'ui:get-sign-in': SignInState;
  'cs:lookup': LookupResult[];
  'cs:lookup-detailed': LookupResult;
  'cs:page-summary': { ok: true };
  'cs:get-display-settings': DisplaySettings;
  'cs:load-card': { loaded: true };
  'cs:open-subnet-check': { opened: true };
  'cs:get-pivots': { pivots: PivotChoice[] };
  'cs:open-pivot': { opened: true };
  /** The bundle's JSON text, and how many indicators it holds (0 or 1). */
  'cs:copy-stix': { text: string; indicators: number };
  /** `scanning`: the scan or its lookups are still running, so the list may still grow. */
  /** `limited`: the page was past its limits (too many IPs): only what is on screen is marked. */
  'tab:get-page-ips': { url: string; title: string; ips: PageIp[]; scanning: boolean; limited?: boolean };
  'tab:show-lookup': { ok: true };
  'tab:results-stale': { ok: true };
  'tab:lookups-recovered': { ok: true };
  'tab:results-updated': { ok: true };
  'tab:display-settings': { ok: true };
}

export interface Envelope<T extends MessageType = MessageType> {
  type: T;
  payload: MessagePayload<T>;
}

/** A valid message, a refusal of a malformed one, or null for one this side does not answer. */
export type ParsedMessage = { ok: true; envelope: Envelope } | { ok: false; error: ProtocolError };
/** How a router checks what it receives (see lib/message-router.ts). */
export type MessageParser = (raw: unknown) => ParsedMessage | null;

const envelopeSchema = z.object({ type: z.string(), payload: z.unknown() }).strict();

/** Parses an incoming message for the background's router; a typed refusal when it is not valid. */
export function parseEnvelope(raw: unknown): ParsedMessage {
  const outer = envelopeSchema.safeParse(raw);
  if (!outer.success || !(outer.data.type in messageSchemas)) {
    return { ok: false, error: { kind: 'invalid-message', message: 'Unknown message.' } };
  }
  const type = outer.data.type as MessageType;
  const payload = messageSchemas[type].safeParse(outer.data.payload ?? {});
  if (!payload.success) {
    const issue = payload.error.issues[0];
    return {
      ok: false,
      error: {
        kind: 'invalid-message',
        message: `Invalid ${type} message: ${issue ? `${issue.path.join('.') || 'payload'}: ${issue.message}` : 'bad payload'}.`,
      },
    };
  }
  return { ok: true, envelope: { type, payload: payload.data } as Envelope };
}
