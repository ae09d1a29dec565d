/**
 * The few settings the page needs (thresholds, mark style, whether private IPs are sent). The
 * content script never reads storage (it holds the API key, and it is closed to content
 * scripts where the browser allows it): the background sends these values, answering
 * `cs:get-display-settings` and pushing `tab:display-settings` on changes. They are checked here
 * by hand, with the same rules as the zod schemas in lib/messaging.ts (a unit test compares
 * both), so zod does not ship to every scanned page. Type and default: lib/protocol.ts.
 */
import type { DisplaySettings } from '../../protocol';
import type { SeverityThresholds } from '../../severity';
import type { MarkStyle } from '../marks/highlight-styles';

const DISPLAY_FIELDS = ['thresholds', 'markStyle', 'sendPrivate'] as const;

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

/** All three fields, valid, and nothing else; null otherwise. */
export function parseDisplaySettings(raw: unknown): DisplaySettings | null {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return null;
  const v = raw as Record<string, unknown>;
  if (Object.keys(v).some((k) => !(DISPLAY_FIELDS as readonly string[]).includes(k))) return null;
  const thresholds = parseThresholds(v.thresholds);
  const markStyle = parseMarkStyle(v.markStyle);
  if (!thresholds || !markStyle || typeof v.sendPrivate !== 'boolean') return null;
  return { thresholds, markStyle, sendPrivate: v.sendPrivate };
}
