/**
 * `last_attack` arrives as ISO with `Z`, as `2025-11-29T09:37:40.604584+0000` (microseconds and
 * an offset without a colon, which Date.parse rejects in some engines), as `""` for whitelisted
 * IPs and as null in bulk rows. Everything becomes an ISO `Z` string or null: the UI shows
 * "never"/"unknown" instead of "Invalid Date".
 */
const TIMESTAMP =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

export function toIsoTimestamp(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const match = TIMESTAMP.exec(value.trim());
  if (!match) return null;
  const [, y, mo, d, h = '0', mi = '0', s = '0', fraction = '', zone = 'Z'] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  const ms = Number(fraction.padEnd(3, '0').slice(0, 3));
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return null;
  // Date.UTC rolls Feb 30 over to March 2: compare the day back to reject it.
  const local = Date.UTC(year, month - 1, day, hour, minute, second, ms);
  if (new Date(local).getUTCDate() !== day) return null;
  const offsetMinutes = zoneOffsetMinutes(zone!);
  if (offsetMinutes === null) return null;
  // A time without a zone is taken as UTC: the service stores UTC throughout.
  return new Date(local - offsetMinutes * 60_000).toISOString();
}

function zoneOffsetMinutes(zone: string): number | null {
  if (zone.toUpperCase() === 'Z') return 0;
  const digits = zone.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = digits.length > 2 ? Number(digits.slice(2, 4)) : 0;
  if (hours > 14 || minutes > 59) return null;
  const sign = zone.startsWith('-') ? -1 : 1;
  return sign * (hours * 60 + minutes);
}
