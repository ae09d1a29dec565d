/** Severity thresholds: the scores at which an IP becomes critical, high, medium or low. */
import { TextField } from '@/components/fields';
import { SaveStatusLine } from '@/components/save-status';
import type { ManagedView } from '@/lib/settings';
import { isLocked, SET_BY_ORGANISATION } from '@/lib/ui/options/managed-locks';
import type { SectionForm } from '@/lib/ui/options/section-form';
import { THRESHOLD_FIELDS, type ThresholdsDraft } from '@/lib/ui/options/thresholds-form';

const LABELS: Record<keyof ThresholdsDraft, string> = {
  critical: 'Critical from score',
  high: 'High from score',
  medium: 'Medium from score',
  low: 'Low above score',
};

export function ThresholdsSection({ form, managed }: { form: SectionForm<'thresholds', ThresholdsDraft>; managed: ManagedView }) {
  const draft = form.draft.value;
  const locked = isLocked(managed, 'thresholds');
  if (!draft) return null;
  const errors = form.errors.value;
  return (
    <section class="panel" aria-labelledby="thresholds-heading">
      <h2 id="thresholds-heading">Severity thresholds</h2>
      <p class="help">
        Each IP gets one severity, shown by its mark, badge and row. Scores run from 0 to 100: the score decides with
        these thresholds, and a score at or below "Low above" is clean. Whitelisted IPs are Whitelisted and IPs with no
        recorded attacks are Clean, whatever their score. The API's own threat level counts only for an IP without a
        score.
      </p>
      {locked && <p class="managed-value">{SET_BY_ORGANISATION}</p>}
      <div class="field-grid">
        {THRESHOLD_FIELDS.map((key) => (
          <TextField
            key={key}
            id={`threshold-${key}`}
            label={LABELS[key]}
            inputMode="decimal"
            value={draft[key]}
            error={errors[key]}
            disabled={locked}
            onInput={(v) => form.set(key, v)}
            onCommit={() => void form.commit()}
          />
        ))}
      </div>
      {errors.form && (
        <p class="field-error" role="alert">
          {errors.form}
        </p>
      )}
      <SaveStatusLine status={form.status.value} formError={errors.form} />
    </section>
  );
}
