/** Mark style (underline or background), with a live preview drawn like the page marks. */
import { MarkPreview } from '@/components/mark-preview';
import { SaveStatusLine } from '@/components/save-status';
import type { ManagedView } from '@/lib/settings';
import { isLocked, SET_BY_ORGANISATION } from '@/lib/ui/options/managed-locks';
import type { MarkStyleDraft } from '@/lib/ui/options/options-stores';
import type { SectionForm } from '@/lib/ui/options/section-form';

const CHOICES = [
  { value: 'underline', label: 'Underline', help: 'Coloured underline; the page keeps its look.' },
  { value: 'background', label: 'Background', help: 'Coloured background; easier to spot in dense tables.' },
] as const;

export function MarkStyleSection({ form, managed }: { form: SectionForm<'markStyle', MarkStyleDraft>; managed: ManagedView }) {
  const draft = form.draft.value;
  const locked = isLocked(managed, 'markStyle');
  if (!draft) return null;
  const style = draft.style === 'background' ? 'background' : 'underline';
  return (
    <section class="panel" aria-labelledby="marks-heading">
      <h2 id="marks-heading">Marks on pages</h2>
      <fieldset class="choice-group">
        <legend>Mark style</legend>
        {locked && <p class="managed-value">{SET_BY_ORGANISATION}</p>}
        {CHOICES.map((c) => (
          <div key={c.value} class="field field-check">
            <input
              id={`mark-${c.value}`}
              type="radio"
              name="mark-style"
              value={c.value}
              checked={style === c.value}
              disabled={locked}
              aria-describedby={`mark-${c.value}-help`}
              onChange={() => {
                form.set('style', c.value);
                void form.commit();
              }}
            />
            <div>
              <label for={`mark-${c.value}`}>{c.label}</label>
              <p id={`mark-${c.value}-help`} class="help">
                {c.help}
              </p>
            </div>
          </div>
        ))}
      </fieldset>
      <MarkPreview style={style} />
      <SaveStatusLine status={form.status.value} />
    </section>
  );
}
