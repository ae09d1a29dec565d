/**
 * An IP the service has no hits for. The bulk documentation answers it with a data row
 * (`total_hits: 0`, `ip_rep: "clean"`, `threat_level: "LOW"`, score 10) where checkIP may send a
 * clean row or a free 404. Whatever the shape, it is Clean (severity.ts) and booked free
 * (lookup/quota-costs.ts).
 */
import type { Reputation } from './types';

export function isZeroHitClean(d: Reputation): boolean {
  return !d.whitelisted && d.totalHits === 0 && (d.reputation === null || /^\s*clean\s*$/i.test(d.reputation));
}
