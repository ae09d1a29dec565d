/**
 * Copy or download the list on screen (after filters, in the order shown) as CSV or JSON.
 */
import { useState } from 'preact/hooks';
import type { SeverityThresholds } from '@/lib/severity';
import type { IpRow } from '@/lib/ui/shared/ip-rows';
import { exportFileName, rowsToCsv, rowsToJson } from '@/lib/ui/shared/export-rows';
import { useServices } from '@/lib/ui/shared/services-context';

export interface ExportBarProps {
  rows: readonly IpRow[];
  thresholds: SeverityThresholds;
  /** What the list is, for the file name and the JSON `source` (a page URL, "lookup"). */
  source: string;
  fileLabel: string;
}

type Format = 'csv' | 'json';

export function ExportBar({ rows, thresholds, source, fileLabel }: ExportBarProps) {
  const services = useServices();
  const [status, setStatus] = useState('');
  const plural = rows.length === 1 ? 'IP' : 'IPs';

  function render(format: Format): string {
    return format === 'csv'
      ? rowsToCsv(rows, thresholds)
      : rowsToJson(rows, thresholds, { source, exportedAt: services.now() });
  }

  async function copy(format: Format) {
    try {
      await services.copyText(render(format));
      setStatus(`Copied ${rows.length} ${plural} as ${format.toUpperCase()}.`);
    } catch (error) {
      setStatus(`Could not copy: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  function download(format: Format) {
    const name = exportFileName(fileLabel, services.now(), format);
    services.saveFile(name, format === 'csv' ? 'text/csv;charset=utf-8' : 'application/json', render(format));
    setStatus(`Saved ${rows.length} ${plural} to ${name}.`);
  }

  return (
    <div class="export-bar" role="group" aria-label="Export">
      <span class="export-label">Export {rows.length} {plural}:</span>
      <button type="button" class="btn btn-small" onClick={() => void copy('csv')} disabled={!rows.length}>
        Copy CSV
      </button>
      <button type="button" class="btn btn-small" onClick={() => void copy('json')} disabled={!rows.length}>
        Copy JSON
      </button>
      <button type="button" class="btn btn-small" onClick={() => download('csv')} disabled={!rows.length}>
        Download CSV
      </button>
      <button type="button" class="btn btn-small" onClick={() => download('json')} disabled={!rows.length}>
        Download JSON
      </button>
      <span class="export-status" role="status">
        {status}
      </span>
    </div>
  );
}
