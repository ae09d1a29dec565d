/**
 * The few settings the page needs (thresholds, mark style, whether private IPs are sent), read
 * straight from storage.local. The content script does not import lib/settings.ts: its zod
 * schemas would multiply the script's size for three values. The keys are lib/settings.ts's
 * `local:` items (a unit test keeps them in step); anything malformed falls back to the
 * default, as getSetting() does.
 */
import { DEFAULT_THRESHOLDS, type SeverityThresholds } from '../severity';
import type { MarkStyle } from './highlight-styles';
import type { DisplaySettings } from './page-lens';

/** storage.local keys (WXT stores `local:x` under `x`). */
export const DISPLAY_KEYS = { thresholds: 'thresholds', markStyle: 'markStyle', lookupPolicy: 'lookupPolicy' } as const;

export const DEFAULT_DISPLAY: DisplaySettings = {
  thresholds: DEFAULT_THRESHOLDS,
  markStyle: 'underline',
  sendPrivate: false,
};

function isScore(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= 100;
}

export function parseThresholds(raw: unknown): SeverityThresholds | null {
  if (!raw || typeof raw !== 'object') return null;
  const t = raw as Record<string, unknown>;
  if (!isScore(t.critical) || !isScore(t.high) || !isScore(t.medium) || !isScore(t.low)) return null;
  if (!(t.critical > t.high && t.high > t.medium && t.medium > t.low)) return null;
  return { critical: t.critical, high: t.high, medium: t.medium, low: t.low };
}

export function parseMarkStyle(raw: unknown): MarkStyle | null {
  return raw === 'underline' || raw === 'background' ? raw : null;
}

export function parseSendPrivate(raw: unknown): boolean | null {
  if (!raw || typeof raw !== 'object') return null;
  const v = (raw as Record<string, unknown>).sendPrivate;
  return typeof v === 'boolean' ? v : null;
}

/** From a storage.local `get` (or the new values of an onChanged event): only keys present. */
export function parseDisplaySettings(values: Record<string, unknown>): Partial<DisplaySettings> {
  const out: Partial<DisplaySettings> = {};
  if (DISPLAY_KEYS.thresholds in values) out.thresholds = parseThresholds(values[DISPLAY_KEYS.thresholds]) ?? DEFAULT_DISPLAY.thresholds;
  if (DISPLAY_KEYS.markStyle in values) out.markStyle = parseMarkStyle(values[DISPLAY_KEYS.markStyle]) ?? DEFAULT_DISPLAY.markStyle;
  if (DISPLAY_KEYS.lookupPolicy in values) out.sendPrivate = parseSendPrivate(values[DISPLAY_KEYS.lookupPolicy]) ?? DEFAULT_DISPLAY.sendPrivate;
  return out;
}
