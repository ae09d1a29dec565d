/**
 * What "Look up the rest" may cost, said before the click: one unit per address at most
 * (cached answers are free), and what is left of the quota, reserve included, since those
 * lookups stop at the reserve as the page's own do.
 */
import { formatCount } from '../../format';
import type { QuotaSnapshot } from '../../lookup/types';
import { quotaLeft } from './subnet-cost';

export function restCostText(count: number, quota: QuotaSnapshot | undefined | null): string {
  const units = `Up to ${formatCount(count)} API ${count === 1 ? 'unit' : 'units'} (cached answers are free).`;
  if (quota?.unlimited) return `${units} No usage limit.`;
  const left = quotaLeft(quota);
  if (left === null) return `${units} Quota left: unknown (refresh the meter above).`;
  const reserve = typeof quota?.reserve === 'number' && quota.reserve > 0 ? quota.reserve : 0;
  const aboveReserve = Math.max(0, left - reserve);
  const kept = reserve ? `, ${formatCount(reserve)} of it kept in reserve` : '';
  const fits = count > aboveReserve ? ` Only ${formatCount(aboveReserve)} fit before the reserve; the rest stay past the cap.` : '';
  return `${units} Quota left: ${formatCount(left)}${kept}.${fits}`;
}
