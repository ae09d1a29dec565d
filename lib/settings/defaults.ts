/**
 * Every setting's default, without zod: the popup only reads settings, and importing these from
 * here keeps zod (most of the pages' shared code) out of its first load.
 */
import { BUILD_DEFAULTS } from '../build-defaults';
import { DEFAULT_PIVOTS } from '../pivots';
import { DEFAULT_DISPLAY } from '../protocol';
import type { LookupPolicy, Settings } from './schema';

export const DEFAULT_LOOKUP_POLICY: LookupPolicy = {
  sendPrivate: DEFAULT_DISPLAY.sendPrivate,
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
  thresholds: DEFAULT_DISPLAY.thresholds,
  markStyle: DEFAULT_DISPLAY.markStyle,
  pivots: [...DEFAULT_PIVOTS],
  // Off: an indicator feeds blocking and detection; medium is context, not a verdict.
  exportOptions: { mediumIndicators: false },
  // No team gateway: lookups go to apiBaseUrl with apiKey, as before gateways existed.
  gatewayUrl: '',
  gatewayAuth: 'token',
  gatewayToken: '',
};
