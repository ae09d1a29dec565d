/** The "Severity thresholds" section: four scores that must fall in order. */
import type { SeverityThresholds } from '../../severity';
import { thresholdsSchema } from '../../settings';
import { parseNumberFields } from './number-field';
import type { ParseResult } from './section-form';

export const THRESHOLD_FIELDS = ['critical', 'high', 'medium', 'low'] as const;
export type ThresholdsDraft = Record<(typeof THRESHOLD_FIELDS)[number], string>;

export function thresholdsToDraft(t: SeverityThresholds): ThresholdsDraft {
  return { critical: String(t.critical), high: String(t.high), medium: String(t.medium), low: String(t.low) };
}

export function parseThresholdsDraft(draft: ThresholdsDraft): ParseResult<ThresholdsDraft, SeverityThresholds> {
  const { value, errors } = parseNumberFields(draft, THRESHOLD_FIELDS, thresholdsSchema.shape);
  if (Object.keys(errors).length) return { ok: false, errors };
  const whole = thresholdsSchema.safeParse(value);
  if (!whole.success) {
    const v = value as SeverityThresholds;
    // Name the first pair out of order, so the user knows which field to change.
    const pairs: [keyof ThresholdsDraft, keyof ThresholdsDraft][] = [['critical', 'high'], ['high', 'medium'], ['medium', 'low']];
    const bad = pairs.find(([a, b]) => !(v[a] > v[b]));
    const message = bad
      ? `${label(bad[0])} (${v[bad[0]]}) must be above ${label(bad[1])} (${v[bad[1]]}).`
      : (whole.error.issues[0]?.message ?? 'Thresholds must fall in order.');
    return { ok: false, errors: { form: message, ...(bad ? { [bad[0]]: message } : {}) } };
  }
  return { ok: true, value: whole.data };
}

function label(field: keyof ThresholdsDraft): string {
  return field[0]!.toUpperCase() + field.slice(1);
}
