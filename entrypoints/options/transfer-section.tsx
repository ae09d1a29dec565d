/**
 * Export the settings to a JSON file (without the API key) and import them back, e.g. to give
 * a team the same thresholds and sites. Import is all-or-nothing.
 */
import { useState } from 'preact/hooks';
import { exportFileName } from '@/lib/ui/shared/export-rows';
import { useServices } from '@/lib/ui/shared/services-context';
import { parseSettingsFile, settingsToFile } from '@/lib/ui/options/settings-file';

type Result = { ok: true; lines: string[] } | { ok: false; lines: string[] };

export function TransferSection({ onImported }: { onImported: () => Promise<void> }) {
  const services = useServices();
  const [result, setResult] = useState<Result | null>(null);

  async function exportSettings() {
    const settings = await services.settings.get();
    const name = exportFileName('settings', services.now(), 'json').replace('ip-reputation-', 'ip-reputation-lens-');
    services.saveFile(name, 'application/json', settingsToFile(settings, services.now()));
    setResult({ ok: true, lines: [`Saved ${name}. It does not contain your API key.`] });
  }

  async function importFile(file: File) {
    const current = await services.settings.get();
    const parsed = parseSettingsFile(await file.text(), current);
    if (!parsed.ok) {
      setResult({ ok: false, lines: ['Nothing was imported:', ...parsed.errors] });
      return;
    }
    try {
      await services.settings.save(parsed.patch);
      await onImported();
      const fields = Object.keys(parsed.patch).length;
      setResult({ ok: true, lines: [`Imported ${fields} setting${fields === 1 ? '' : 's'} from ${file.name}.`, ...parsed.notes] });
    } catch (error) {
      setResult({ ok: false, lines: ['Nothing was imported:', error instanceof Error ? error.message : String(error)] });
    }
  }

  return (
    <section class="panel" aria-labelledby="transfer-heading">
      <h2 id="transfer-heading">Import and export</h2>
      <p class="help">
        The file holds every setting except the API key. Importing one never changes the API server or key header: those
        change only under API, with Save.
      </p>
      <div class="row-buttons">
        <button type="button" class="btn" onClick={() => void exportSettings()}>
          Export settings
        </button>
        <label class="btn file-button" for="import-file">
          Import settings
        </label>
        <input
          id="import-file"
          class="visually-hidden"
          type="file"
          accept="application/json,.json"
          onChange={(e) => {
            const input = e.currentTarget;
            const file = input.files?.[0];
            input.value = '';
            if (file) void importFile(file);
          }}
        />
      </div>
      {result && (
        <div class={result.ok ? 'notice notice-ok' : 'notice notice-error'} role={result.ok ? 'status' : 'alert'}>
          {result.lines.map((line, i) => (
            <p key={i}>{line}</p>
          ))}
        </div>
      )}
    </section>
  );
}
