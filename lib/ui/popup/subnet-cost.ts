/**
 * What a subnet check may cost, said before the call: one unit per IP found in the database
 * (documented), so at most one per address in the block; and what is left of the quota.
 */
import { formatCount } from '../../format';
import { blockSize, type CidrBlock } from '../../ip/cidr-block';
import type { QuotaSnapshot } from '../../lookup/types';

export interface SubnetCost {
  worstCase: number;
  /** "Costs 1 request per IP found in the database: at most 256 for this block." */
  text: string;
  /** "Quota left: 740 of 1,000." / "No usage limit." / "Quota left: unknown (refresh the meter)." */
  quotaText: string;
  /** The worst case is more than what is left: the check may stop at the limit. */
  mayExceed: boolean;
}

/** Units left before the limit, or null when unknown or unlimited. */
export function quotaLeft(quota: QuotaSnapshot | undefined | null): number | null {
  if (!quota || quota.unlimited || typeof quota.limit !== 'number' || typeof quota.used !== 'number') return null;
  return Math.max(0, quota.limit - quota.used);
}

export function subnetCost(block: Pick<CidrBlock, 'prefix' | 'version'>, quota: QuotaSnapshot | undefined | null): SubnetCost {
  const worstCase = blockSize(block);
  const text = `Costs 1 request per IP found in the database: at most ${formatCount(worstCase)} for this block.`;
  const left = quotaLeft(quota);
  let quotaText: string;
  if (quota?.unlimited) quotaText = 'No usage limit.';
  else if (left === null) quotaText = 'Quota left: unknown (refresh the meter above).';
  else quotaText = `Quota left: ${formatCount(left)} of ${formatCount(quota!.limit)}.`;
  return { worstCase, text, quotaText, mayExceed: left !== null && worstCase > left };
}
