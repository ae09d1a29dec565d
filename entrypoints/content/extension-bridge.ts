/**
 * The content script's only ties to the extension: lookups and the page summary go to the
 * background through lib/message-client.ts (types only from lib/messaging.ts, so zod stays out
 * of the page), and settings come from storage.local.
 */
import { browser } from 'wxt/browser';
import type { LookupResult } from '@/lib/lookup/types';
import { sendToBackground } from '@/lib/message-client';
import { DISPLAY_KEYS, parseDisplaySettings, DEFAULT_DISPLAY } from '@/lib/page/display-settings';
import type { LookupSender } from '@/lib/page/lookup-queue';
import type { DisplaySettings } from '@/lib/page/page-lens';
import type { Outcome } from '@/components/hover-card/card-controller';

export const sendLookup: LookupSender = async (ips, priority) => {
  const reply = await sendToBackground('cs:lookup', { ips, priority });
  return reply.ok ? { ok: true, results: reply.value } : { ok: false, error: reply.error };
};

export async function lookupDetailed(ip: string): Promise<Outcome<LookupResult>> {
  return sendToBackground('cs:lookup-detailed', { ip });
}

export function sendSummary(riskyIps: string[]): void {
  void sendToBackground('cs:page-summary', { riskyIps });
}

export async function readDisplaySettings(): Promise<DisplaySettings> {
  try {
    const values = await browser.storage.local.get(Object.values(DISPLAY_KEYS));
    return { ...DEFAULT_DISPLAY, ...parseDisplaySettings(values) };
  } catch {
    return DEFAULT_DISPLAY;
  }
}

/** Calls back with the display settings that changed (options page edits apply live). */
export function watchDisplaySettings(onChange: (patch: Partial<DisplaySettings>) => void, signal: AbortSignal): void {
  const listener = (changes: Record<string, { newValue?: unknown }>, area: string) => {
    if (area !== 'local') return;
    const present: Record<string, unknown> = {};
    for (const key of Object.values(DISPLAY_KEYS)) if (key in changes) present[key] = changes[key]!.newValue;
    const patch = parseDisplaySettings(present);
    if (Object.keys(patch).length) onChange(patch);
  };
  browser.storage.onChanged.addListener(listener);
  signal.addEventListener('abort', () => browser.storage.onChanged.removeListener(listener));
}
