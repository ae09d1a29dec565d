/**
 * Copy or download the list on screen (after filters, in the order shown) as CSV or JSON, or
 * for a case tool as a STIX 2.1 bundle or a MISP event, through a short dialog: the MISP
 * attribute type, and whether the page's address goes in (off by default: console URLs can
 * carry tenant names, case numbers and search terms).
 */
import { useId, useState } from 'preact/hooks';
import type { SeverityThresholds } from '@/lib/severity';
import type { IpRow } from '@/lib/ui/shared/ip-rows';
import { exportFileName, rowsToCsv, rowsToJson } from '@/lib/ui/shared/export-rows';
import { useServices } from '@/lib/ui/shared/services-context';
import type { CaseExport, CaseFormat } from '@/lib/export/case-export';
import type { MispIpType } from '@/lib/export/misp';

export interface ExportBarProps {
  rows: readonly IpRow[];
  thresholds: SeverityThresholds;
  /** What the list is, for the file name and the JSON `source` (a page URL, "lookup"). */
  source: string;
  fileLabel: string;
  /** The page the IPs are on (This page list): its address may go into a case export. */
  page?: { url: string; title: string } | undefined;
  /** Options: medium severity becomes an indicator in case exports. */
  mediumIndicators?: boolean;
}

type Format = 'csv' | 'json';

const CASE_LABEL: Record<CaseFormat, string> = { stix: 'STIX 2.1', misp: 'MISP event' };

export function ExportBar({ rows, thresholds, source, fileLabel, page, mediumIndicators = false }: ExportBarProps) {
  const services = useServices();
  const [status, setStatus] = useState('');
  const [dialog, setDialog] = useState<CaseFormat | null>(null);
  const [includePage, setIncludePage] = useState(false);
  const [attributeType, setAttributeType] = useState<MispIpType>('ip-dst');
  const id = useId();
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

  async function renderCase(format: CaseFormat): Promise<CaseExport> {
    // Loaded on demand: the builders and the uuid package stay out of the popup's first load.
    const { renderCaseExport } = await import('@/lib/export/case-export');
    return renderCaseExport({
      format,
      rows,
      thresholds,
      attributeType,
      context: {
        exportedAt: services.now(),
        origin: page ? { kind: 'page', ...(includePage ? { url: page.url, title: page.title } : {}) } : { kind: 'lookup' },
        mediumIndicators,
      },
    });
  }

  function caseSummary(format: CaseFormat, result: CaseExport): string {
    const what = format === 'stix' ? 'indicator' : 'to_ids attribute';
    const left = result.leftOut ? `; ${result.leftOut} left out (private, not looked up, or failed)` : '';
    return `${result.exported} ${result.exported === 1 ? 'IP' : 'IPs'} as ${CASE_LABEL[format]}, ${result.indicators} ${what}${result.indicators === 1 ? '' : 's'}${left}.`;
  }

  async function caseExport(format: CaseFormat, how: 'copy' | 'download') {
    try {
      const result = await renderCase(format);
      if (how === 'copy') {
        await services.copyText(result.text);
        setStatus(`Copied ${caseSummary(format, result)}`);
      } else {
        const name = exportFileName(fileLabel, services.now(), format === 'stix' ? 'stix.json' : 'misp.json');
        services.saveFile(name, format === 'stix' ? 'application/stix+json;version=2.1' : 'application/json', result.text);
        setStatus(`Saved ${caseSummary(format, result)} File: ${name}.`);
      }
      setDialog(null);
    } catch (error) {
      setStatus(`Could not export: ${error instanceof Error ? error.message : String(error)}`);
    }
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
      <button type="button" class="btn btn-small" aria-expanded={dialog === 'stix'} onClick={() => setDialog(dialog === 'stix' ? null : 'stix')} disabled={!rows.length}>
        STIX 2.1…
      </button>
      <button type="button" class="btn btn-small" aria-expanded={dialog === 'misp'} onClick={() => setDialog(dialog === 'misp' ? null : 'misp')} disabled={!rows.length}>
        MISP…
      </button>
      {dialog && (
        <form
          class="export-dialog"
          aria-labelledby={`${id}-case-title`}
          onSubmit={(e) => {
            e.preventDefault();
            void caseExport(dialog, 'copy');
          }}
        >
          <p id={`${id}-case-title`} class="export-dialog-title">
            Export {rows.length} {plural} as {CASE_LABEL[dialog]}
          </p>
          <p class="help">
            {dialog === 'stix'
              ? 'A bundle for OpenCTI, TheHive or a TAXII feed: every answered IP as an observable, high and critical ones as indicators.'
              : 'An event for MISP ("Add event from JSON"): every answered IP as an attribute, to_ids on high and critical ones.'}{' '}
            Private, skipped and failed IPs are left out.
          </p>
          {dialog === 'misp' && (
            <fieldset class="choice-group">
              <legend>Attribute type</legend>
              {(
                [
                  ['ip-dst', 'ip-dst: hosts that were contacted (outbound, C2)'],
                  ['ip-src', 'ip-src: hosts that connected in (scanners, attackers)'],
                ] as const
              ).map(([value, label]) => (
                <label key={value} class="field-check">
                  <input type="radio" name={`${id}-misp-type`} value={value} checked={attributeType === value} onChange={() => setAttributeType(value)} /> {label}
                </label>
              ))}
            </fieldset>
          )}
          {page && (
            <label class="field-check">
              <input type="checkbox" checked={includePage} onChange={(e) => setIncludePage(e.currentTarget.checked)} /> Include the page address
              (title and URL)
            </label>
          )}
          <div class="row-buttons">
            <button type="submit" class="btn btn-small btn-primary">
              Copy {CASE_LABEL[dialog]}
            </button>
            <button type="button" class="btn btn-small" onClick={() => void caseExport(dialog, 'download')}>
              Download {CASE_LABEL[dialog]}
            </button>
            <button type="button" class="btn btn-small" onClick={() => setDialog(null)}>
              Cancel
            </button>
          </div>
        </form>
      )}
      <span class="export-status" role="status">
        {status}
      </span>
    </div>
  );
}
