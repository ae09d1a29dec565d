/** Numbers and times as the dashboard writes them (en-GB: day before month, 24-hour clock). */
const counts = new Intl.NumberFormat('en-GB');
const percent = new Intl.NumberFormat('en-GB', { style: 'percent', maximumFractionDigits: 1 });

export const formatCount = (n: number) => counts.format(n);
export const formatPercent = (share: number | null) => (share === null ? 'no lookups yet' : percent.format(share));
export const formatDay = (day: string) => day.slice(5);

export function formatTime(iso: string | null): string {
  if (!iso) return 'never';
  return `${iso.slice(0, 16).replace('T', ' ')} UTC`;
}

/** A limit of null is no limit at all. */
export function formatLimit(limit: number | null): string {
  return limit === null ? 'no limit' : formatCount(limit);
}
