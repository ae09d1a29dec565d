/**
 * One call for "export these rows for a case tool": the popup's export dialog and the
 * background's "Copy as STIX" (card, context menu) both use it, so both give the same file.
 * The popup loads this module only when the analyst exports (it brings the uuid package).
 */
import type { SeverityThresholds } from '../severity';
import type { IpRow } from '../ui/shared/ip-rows';
import { isIndicator, toExportSet, type ExportContext } from './export-items';
import { buildMispEvent, mispJson, type MispIpType } from './misp';
import { buildStixBundle, stixJson } from './stix';

export type CaseFormat = 'stix' | 'misp';

export const CASE_FORMAT_LABEL: Record<CaseFormat, string> = { stix: 'STIX 2.1', misp: 'MISP event' };

export interface CaseExportRequest {
  format: CaseFormat;
  rows: readonly IpRow[];
  thresholds: SeverityThresholds;
  context: ExportContext;
  /** MISP only: how the attributes are typed. */
  attributeType?: MispIpType;
}

export interface CaseExport {
  text: string;
  /** IPs in the file (observables / attributes). */
  exported: number;
  /** Of those, reported as malicious (STIX indicators, MISP to_ids). */
  indicators: number;
  /** Private, not looked up, failed or pending: not in the file. */
  leftOut: number;
}

export function renderCaseExport(request: CaseExportRequest, newUuid?: () => string): CaseExport {
  const set = toExportSet(request.rows, request.thresholds);
  const deps = newUuid ? { newUuid } : {};
  const text =
    request.format === 'stix'
      ? stixJson(buildStixBundle(set, request.context, deps))
      : mispJson(buildMispEvent(set, request.context, { attributeType: request.attributeType ?? 'ip-dst', ...deps }));
  return {
    text,
    exported: set.items.length,
    indicators: set.items.filter((i) => isIndicator(i.severity, request.context.mediumIndicators)).length,
    leftOut: set.leftOut.length,
  };
}
