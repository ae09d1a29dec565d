/** What the STIX and MISP exports report as malicious: high and critical always, medium by choice. */
import { SaveStatusLine } from '@/components/save-status';
import type { ExportOptionsDraft } from '@/lib/ui/options/options-stores';
import type { SectionForm } from '@/lib/ui/options/section-form';

export function ExportSection({ form }: { form: SectionForm<'exportOptions', ExportOptionsDraft> }) {
  const draft = form.draft.value;
  if (!draft) return null;
  return (
    <section class="panel" aria-labelledby="export-heading">
      <h2 id="export-heading">Exports for case tools</h2>
      <div class="field field-check">
        <input
          id="export-medium"
          type="checkbox"
          checked={draft.mediumIndicators}
          aria-describedby="export-medium-help"
          onChange={(e) => {
            form.set('mediumIndicators', e.currentTarget.checked);
            void form.commit();
          }}
        />
        <div>
          <label for="export-medium">Report medium-risk IPs as indicators too</label>
          <p id="export-medium-help" class="help">
            STIX 2.1 exports make an indicator, and MISP exports set to_ids, for high and critical IPs. With this on,
            medium ones get them too. Whitelisted, clean, private, skipped and failed IPs never do.
          </p>
        </div>
      </div>
      <SaveStatusLine status={form.status.value} />
    </section>
  );
}
