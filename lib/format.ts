/**
 * Formatting for everything a person reads about a lookup. Every function returns a string
 * that is safe to show: never "Invalid Date", "undefined" or "NaN".
 */
import type { SkipReason } from './lookup/types';

const DASH = '—';

/** `95`, `13.01`, or a dash when the server sent no score. */
export function formatScore(score: number | null | undefined): string {
  if (typeof score !== 'number' || !Number.isFinite(score)) return DASH;
  return Number.isInteger(score) ? String(score) : score.toFixed(2).replace(/\.?0+$/, '');
}

// One shared formatter: toLocaleString builds a new one per call, ~100x slower in long tables.
const countFormat = new Intl.NumberFormat('en-US');

/** `12,345`, or a dash. */
export function formatCount(value: number | null | undefined): string {
  if (typeof value !== 'number' || !Number.isFinite(value)) return DASH;
  return countFormat.format(value);
}

/** Epoch ms of an ISO string, or null when it does not parse. */
export function parseIso(iso: string | null | undefined): number | null {
  if (!iso) return null;
  const ms = Date.parse(iso);
  return Number.isFinite(ms) ? ms : null;
}

/** `2025-11-29 09:37:40 UTC`: analysts correlate with logs, which are mostly in UTC. */
export function formatAbsolute(iso: string | null | undefined): string | null {
  const ms = parseIso(iso);
  if (ms === null) return null;
  return `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 24 * 3600_000],
  ['month', 30 * 24 * 3600_000],
  ['week', 7 * 24 * 3600_000],
  ['day', 24 * 3600_000],
  ['hour', 3600_000],
  ['minute', 60_000],
  ['second', 1000],
];
// Built on first use: it costs tens of ms, which at module load would land in the content
// script's first task on every scanned page.
let relativeFormat: Intl.RelativeTimeFormat | undefined;

/** `3 days ago`, `in 2 hours` (clock skew), `now`. */
export function formatRelative(iso: string | null | undefined, now: number = Date.now()): string | null {
  const ms = parseIso(iso);
  if (ms === null) return null;
  const diff = ms - now;
  for (const [unit, size] of UNITS) {
    if (Math.abs(diff) >= size || unit === 'second') {
      relativeFormat ??= new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
      return relativeFormat.format(Math.round(diff / size), unit);
    }
  }
  return null;
}

export interface LastAttackText {
  /** What to show first: `3 days ago`, `never` or `unknown`. */
  primary: string;
  /** The absolute time, when there is one. */
  absolute: string | null;
}

/**
 * A missing last attack means "never" when the IP has no hits or is whitelisted (the service
 * sends `""` for those), and "unknown" otherwise (bulk rows often carry null).
 */
export function formatLastAttack(
  iso: string | null | undefined,
  context: { totalHits?: number | null; whitelisted?: boolean },
  now: number = Date.now(),
): LastAttackText {
  const relative = formatRelative(iso, now);
  if (relative !== null) return { primary: relative, absolute: formatAbsolute(iso) };
  const never = context.whitelisted === true || context.totalHits === 0;
  return { primary: never ? 'never' : 'unknown', absolute: null };
}

const SKIP_TEXT: Record<SkipReason, string> = {
  private: 'Private address (RFC 1918 / unique local): not sent to the API.',
  loopback: 'Loopback address: not sent to the API.',
  'link-local': 'Link-local address: not sent to the API.',
  shared: 'Carrier-grade NAT address (100.64.0.0/10): not sent to the API.',
  multicast: 'Multicast address: not sent to the API.',
  broadcast: 'Broadcast address: not sent to the API.',
  documentation: 'Documentation range (TEST-NET / 2001:db8::/32): not sent to the API.',
  benchmarking: 'Benchmarking range (198.18.0.0/15): not sent to the API.',
  unspecified: 'Unspecified address: not sent to the API.',
  reserved: 'Reserved address, not globally routable: not sent to the API.',
  invalid: 'Not a valid IP address.',
  'quota-reserve': 'Automatic lookups stopped at your quota reserve. Look it up manually to use the reserve.',
  'quota-exhausted': 'The API usage limit is reached: no lookups until the quota resets.',
  'page-cap': 'Not looked up: this page reached its cap of automatic lookups this hour. Look up the rest from the toolbar popup.',
  'site-cap': 'Not looked up: this site reached its daily ceiling of automatic lookups. Look up the rest from the toolbar popup.',
  interrupted:
    'The extension restarted while this address was being looked up; the API may have charged for it already, so it is not asked again automatically. Look it up by hand to ask again.',
  'automatic-off': 'Automatic lookups are off (Options › Lookup policy).',
  'no-key': 'No API key is set: add one in Options.',
};

export function describeSkip(reason: SkipReason): string {
  return SKIP_TEXT[reason] ?? 'Not looked up.';
}

/** Why a skipped IP was not looked up; the cap's refusals name the cap that applied. */
export function describeSkipped(result: { reason: SkipReason; limit?: number }): string {
  const limit = result.limit;
  if (limit === undefined || !Number.isFinite(limit) || limit < 0) return describeSkip(result.reason);
  const n = formatCount(limit);
  if (result.reason === 'page-cap') {
    return `Not looked up: this page reached its cap of ${n} automatic lookups this hour. Look up the rest from the toolbar popup.`;
  }
  if (result.reason === 'site-cap') {
    return `Not looked up: this site reached its daily ceiling of ${n} automatic lookups. Look up the rest from the toolbar popup.`;
  }
  return describeSkip(result.reason);
}
