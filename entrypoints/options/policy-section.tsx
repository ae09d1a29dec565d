/**
 * Lookup policy: private IPs, automatic lookups, per-page cap, quota reserve, cache times and
 * size, and "Clear cache" with the number of entries.
 */
import { CheckboxField, TextField } from '@/components/fields';
import { SaveStatusLine } from '@/components/save-status';
import type { ManagedView } from '@/lib/settings';
import { isLocked, lockedHelp } from '@/lib/ui/options/managed-locks';
import type { PolicyDraft } from '@/lib/ui/options/policy-form';
import type { SectionForm } from '@/lib/ui/options/section-form';
import { formatCount } from '@/lib/format';

type NumberKey = Exclude<keyof PolicyDraft, 'sendPrivate' | 'automatic'>;

const NUMBER_FIELDS: { key: NumberKey; label: string; help: string }[] = [
  {
    key: 'perPageCap',
    label: 'Per-page cap',
    help: 'At most this many IPs per tab and site (all frames, reloads included) are looked up automatically each hour.',
  },
  {
    key: 'siteDailyCap',
    label: 'Daily cap per site',
    help: 'At most this many IPs per site and day, all tabs together, are looked up automatically.',
  },
  {
    key: 'reservePercent',
    label: 'Quota reserve (%)',
    help: 'Automatic lookups stop when this share of the limit is left; manual lookups may use it.',
  },
  { key: 'ttlFoundMinutes', label: 'Cache time for known IPs (minutes)', help: 'How long a reputation is reused before it is asked again.' },
  { key: 'ttlNotFoundMinutes', label: 'Cache time for unknown IPs (minutes)', help: 'For IPs the database does not know.' },
  { key: 'ttlDetailedMinutes', label: 'Cache time for network details (minutes)', help: 'ASN, ISP and country change rarely.' },
  { key: 'cacheMaxEntries', label: 'Cache size (entries)', help: 'The oldest entries go first when the cache is full.' },
];

const TOGGLES: { key: 'sendPrivate' | 'automatic'; id: string; label: string; help: string }[] = [
  {
    key: 'sendPrivate',
    id: 'policy-send-private',
    label: 'Send private IPs',
    help: 'Off: private, loopback and other non-public addresses are never sent to the API (they reveal your network).',
  },
  {
    key: 'automatic',
    id: 'policy-automatic',
    label: 'Automatic lookups',
    help: 'On: IPs on scanned pages are looked up without a click. Off: only what you look up yourself.',
  },
];

export interface PolicySectionProps {
  form: SectionForm<'lookupPolicy', PolicyDraft>;
  cacheSize: number | null;
  clearing: boolean;
  cleared: number | null;
  onClearCache: () => void;
  managed: ManagedView;
}

export function PolicySection({ form, cacheSize, clearing, cleared, onClearCache, managed }: PolicySectionProps) {
  const draft = form.draft.value;
  if (!draft) return null;
  const errors = form.errors.value;
  // A toggle is a complete edit: save at once (with the rest of the section, if valid).
  const toggle = (key: 'sendPrivate' | 'automatic') => (checked: boolean) => {
    form.set(key, checked);
    void form.commit();
  };
  return (
    <section class="panel" aria-labelledby="policy-heading">
      <h2 id="policy-heading">Lookup policy</h2>
      {TOGGLES.map((t) => (
        <CheckboxField
          key={t.key}
          id={t.id}
          label={t.label}
          checked={draft[t.key]}
          help={lockedHelp(managed, `lookupPolicy.${t.key}`, t.help)}
          disabled={isLocked(managed, `lookupPolicy.${t.key}`)}
          onChange={toggle(t.key)}
        />
      ))}
      <div class="field-grid">
        {NUMBER_FIELDS.map((f) => (
          <TextField
            key={f.key}
            id={`policy-${f.key}`}
            label={f.label}
            inputMode="numeric"
            value={draft[f.key]}
            error={errors[f.key]}
            help={lockedHelp(managed, `lookupPolicy.${f.key}`, f.help)}
            disabled={isLocked(managed, `lookupPolicy.${f.key}`)}
            onInput={(v) => form.set(f.key, v)}
            onCommit={() => void form.commit()}
          />
        ))}
      </div>
      <SaveStatusLine status={form.status.value} formError={errors.form} />
      <div class="row-buttons">
        <button type="button" class="btn" disabled={clearing || cacheSize === 0} onClick={onClearCache}>
          {clearing ? 'Clearing cache…' : `Clear cache (${cacheSize === null ? 'size unknown' : `${formatCount(cacheSize)} ${cacheSize === 1 ? 'entry' : 'entries'}`})`}
        </button>
        {cleared !== null && (
          <span role="status" class="muted">
            Cleared {formatCount(cleared)} {cleared === 1 ? 'entry' : 'entries'}.
          </span>
        )}
      </div>
    </section>
  );
}
