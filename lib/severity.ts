/**
 * Severity of a lookup result, as marks and cards show it. The highlight names are a public
 * contract (console admins and tests rely on them): `ip-rep-<severity>`.
 */
import { isZeroHitClean } from './api/zero-hit';
import type { LookupResult, SkipReason } from './lookup/types';

/** The refusals of the cap on automatic lookups: the tab's cap or the site's daily ceiling. */
export function isCapReason(reason: SkipReason): boolean {
  return reason === 'page-cap' || reason === 'site-cap';
}

export const SEVERITIES = [
  'critical',
  'high',
  'medium',
  'low',
  'clean',
  'whitelisted',
  // The lookup itself failed (timeout, network, server error, rate limit, rejected key): not
  // the same as "not in the database", and re-asked when the server answers again.
  'failed',
  'unknown',
  // Public, but not looked up because the tab or site reached its cap of automatic lookups
  // (a bound on API spend): never drawn like a private address, since one click looks it up.
  'capped',
  'skipped',
  'pending',
] as const;
export type Severity = (typeof SEVERITIES)[number];

export interface SeverityThresholds {
  critical: number;
  high: number;
  medium: number;
  /** A score strictly above this is `low`; at or below it is `clean`. */
  low: number;
}

export const DEFAULT_THRESHOLDS: SeverityThresholds = { critical: 80, high: 50, medium: 25, low: 0 };

/** Sort key: lower is riskier. */
export const SEVERITY_RANK: Record<Severity, number> = Object.fromEntries(
  SEVERITIES.map((s, i) => [s, i]),
) as Record<Severity, number>;

export function highlightName(severity: Severity): string {
  return `ip-rep-${severity}`;
}

export function severityFromScore(score: number, t: SeverityThresholds): Severity {
  if (score >= t.critical) return 'critical';
  if (score >= t.high) return 'high';
  if (score >= t.medium) return 'medium';
  if (score > t.low) return 'low';
  return 'clean';
}

/**
 * One severity per IP, whichever call answered it: whitelisted first, then zero hits (Clean),
 * then the score with the user's thresholds, and `threat_level` only when there is no score.
 * The score comes first because only bulk rows carry a threat_level: ranking by it would give
 * one IP two severities (bulk "HIGH" for 82, single "critical" for the same 82).
 */
export function severityOf(result: LookupResult | undefined, t: SeverityThresholds): Severity {
  if (!result) return 'pending';
  switch (result.status) {
    case 'skipped':
      return isCapReason(result.reason) ? 'capped' : 'skipped';
    case 'not-found':
      return 'unknown';
    case 'error':
      return 'failed';
    case 'found': {
      const d = result.data;
      if (d.whitelisted) return 'whitelisted';
      if (isZeroHitClean(d)) return 'clean';
      if (d.score !== null) return severityFromScore(d.score, t);
      if (d.threatLevel && d.threatLevel !== 'UNKNOWN') {
        return d.threatLevel.toLowerCase() as Severity;
      }
      return 'unknown';
    }
  }
}

export const SEVERITY_LABEL: Record<Severity, string> = {
  critical: 'Critical',
  high: 'High',
  medium: 'Medium',
  low: 'Low',
  clean: 'Clean',
  whitelisted: 'Whitelisted',
  failed: 'Lookup failed',
  unknown: 'Unknown',
  capped: 'Past the cap',
  skipped: 'Not looked up',
  pending: 'Looking up…',
};
