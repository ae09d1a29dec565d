/**
 * The zod-free half of lib/settings: defaults and the site-pattern grammar. The popup only
 * reads settings, and importing these from here keeps zod (most of the pages' shared code)
 * out of its first load; lib/settings re-exports them beside the schemas.
 */
import { BUILD_DEFAULTS } from './build-defaults';
import { DEFAULT_THRESHOLDS } from './severity';
import type { LookupPolicy, Settings } from './settings';

export const DEFAULT_LOOKUP_POLICY: LookupPolicy = {
  sendPrivate: false,
  automatic: true,
  perPageCap: 500,
  siteDailyCap: 2_000,
  reservePercent: 10,
  ttlFoundMinutes: 24 * 60,
  ttlNotFoundMinutes: 6 * 60,
  ttlDetailedMinutes: 7 * 24 * 60,
  cacheMaxEntries: 50_000,
};

export const DEFAULT_SETTINGS: Settings = {
  apiBaseUrl: BUILD_DEFAULTS.apiBaseUrl,
  apiKey: BUILD_DEFAULTS.apiKey,
  authHeader: 'authorization',
  sitesToScan: BUILD_DEFAULTS.sitesToScan,
  lookupPolicy: DEFAULT_LOOKUP_POLICY,
  thresholds: DEFAULT_THRESHOLDS,
  markStyle: 'underline',
};

/** A Chrome match pattern for "Sites to scan", e.g. `https://kibana.example.org/*`. */
export const SITE_PATTERN = /^(https?|\*):\/\/(\*|\*\.[^/*:]+|[^/*:]+)(:\d{1,5})?\/.*$/;
export const SITE_PATTERN_HINT = 'Use a match pattern such as https://kibana.example.org/* or https://*.example.org/*';
