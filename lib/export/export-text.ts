/**
 * Text helpers both export formats share: timestamps, labels made from the API's free text,
 * and free text carried as data with its bidi controls made visible (lib/visible-text.ts), so
 * a case tool shows what the API sent rather than text reordered by a hidden control.
 */
import { showBidiControls } from '../visible-text';
import { SEVERITY_LABEL } from '../severity';
import type { ExportContext, ExportItem } from './export-items';

/** RFC 3339 in UTC with milliseconds (`2025-01-01T12:00:00.000Z`), as STIX 2.1 requires. */
export function rfc3339(epochMs: number, fallbackMs: number): string {
  const at = Number.isFinite(epochMs) && !Number.isNaN(new Date(epochMs).getTime()) ? epochMs : fallbackMs;
  return new Date(at).toISOString();
}

export function dataText(text: string): string {
  return showBidiControls(text);
}

/**
 * Labels from the reputation text (`"Known attacker, bot"` -> `known-attacker`, `bot`): split
 * on commas, semicolons and slashes; letters and digits kept, every other run (quotes,
 * brackets, controls, spaces) becomes one dash. At most 10 labels of 50 characters.
 */
export function reputationLabels(reputation: string | null): string[] {
  if (!reputation) return [];
  const parts = reputation
    .normalize('NFKC')
    .toLowerCase()
    .split(/[,;/|]+/)
    .map((p) => p.replace(/[^\p{L}\p{N}]+/gu, '-').replace(/^-+|-+$/g, '').slice(0, 50).replace(/-+$/, ''))
    .filter(Boolean);
  return [...new Set(parts)].slice(0, 10);
}

/** `Score 82 of 100 (High); reputation "malicious"; 120 hits; last attack …`: one line about an IP. */
export function itemSummary(item: ExportItem): string {
  const parts = [
    item.found ? (item.score !== null ? `Score ${item.score} of 100 (${SEVERITY_LABEL[item.severity]})` : SEVERITY_LABEL[item.severity]) : 'Not in the threat database',
  ];
  if (item.whitelisted) parts.push('whitelisted by the reputation service');
  if (item.reputation) parts.push(`reputation "${dataText(item.reputation)}"`);
  if (item.threatLevel) parts.push(`threat level ${item.threatLevel}`);
  if (item.totalHits !== null) parts.push(`${item.totalHits} hits`);
  if (item.lastAttack) parts.push(`last attack ${item.lastAttack}`);
  if (item.description) parts.push(`"${dataText(item.description)}"`);
  return parts.join('; ');
}

/** Where and when, for the STIX note and the MISP event's info. */
export function originText(context: ExportContext): string {
  const origin = context.origin;
  if (origin.kind === 'lookup') return 'looked up in IP Reputation Lens';
  const title = origin.title?.trim() ? `"${dataText(origin.title.trim())}"` : '';
  const url = origin.url ? `<${dataText(origin.url)}>` : '';
  if (!title && !url) return 'seen on a web page (address not included)';
  return `seen on the web page ${[title, url].filter(Boolean).join(' ')}`;
}
