/**
 * The content script's only ties to the extension: lookups, the page summary and the display
 * settings go through the background with lib/background-connector.ts over the browser's own
 * runtime (lib/native-runtime.ts: no webextension-polyfill in the page; types only from
 * lib/messaging.ts, so zod stays out of the page). The script never touches storage: it holds
 * the API key (and is closed to content scripts where the browser allows it).
 */
import type { LookupResult } from '@/lib/lookup/types';
import { backgroundConnector } from '@/lib/background-connector';
import { nativeRuntime } from '@/lib/native-runtime';
import { parseDisplaySettings } from '@/lib/page/messages/display-settings';
import type { LookupSender } from '@/lib/page/lookups/lookup-queue';
import { DEFAULT_DISPLAY, type DisplaySettings, type Reply } from '@/lib/protocol';
import { publishedCardFactory, type CardFactory } from '@/components/hover-card/lazy-card';

const sendToBackground = backgroundConnector(nativeRuntime);

export const sendLookup: LookupSender = (ips, priority, answerNow) =>
  sendToBackground('cs:lookup', answerNow ? { ips, priority, now: true } : { ips, priority });

export async function lookupDetailed(ip: string): Promise<Reply<LookupResult>> {
  return sendToBackground('cs:lookup-detailed', { ip });
}

/** The card's "Check 203.0.113.0/24": free; the background opens the extension page that asks for confirmation. */
export function openSubnetCheck(cidr: string): Promise<Reply<{ opened: true }>> {
  return sendToBackground('cs:open-subnet-check', { cidr });
}
/** The card's "Open in …" services (ids and names; the URLs stay in the background). */
export const fetchPivots = () => sendToBackground('cs:get-pivots', {});

/** The background opens the service's page for `ip` in a new tab. */
export const openPivot = (ip: string, pivotId: string) => sendToBackground('cs:open-pivot', { ip, pivotId });

export function sendSummary(riskyIps: string[]): void {
  void sendToBackground('cs:page-summary', { riskyIps });
}

/**
 * The display settings, asked of the background before anything is marked (marks in default
 * colours would change under the analyst's eyes). A background that cannot answer gets the
 * defaults rather than a page that never marks; later changes arrive as tab:display-settings.
 */
export async function readDisplaySettings(): Promise<DisplaySettings> {
  const reply = await sendToBackground('cs:get-display-settings', {});
  return (reply.ok && parseDisplaySettings(reply.value)) || DEFAULT_DISPLAY;
}

/**
 * The hover card's code: the background injects hover-card.js into this frame's isolated
 * world, where it publishes its factory (components/hover-card/lazy-card.ts).
 */
export async function loadCard(): Promise<CardFactory> {
  const loaded = publishedCardFactory();
  if (loaded) return loaded;
  const reply = await sendToBackground('cs:load-card', {});
  if (!reply.ok) throw new Error(reply.error.message);
  const factory = publishedCardFactory();
  if (!factory) throw new Error('The hover card did not load.');
  return factory;
}
