/**
 * A list of IPs with their reputation: filter by severity and text, sort by any column, open a
 * row for the full card (and its network details on demand), export what is shown.
 */
import { useId, useMemo, useState } from 'preact/hooks';
import { formatCount, formatLastAttack, formatScore } from '@/lib/format';
import { SEVERITIES, SEVERITY_LABEL, type Severity, type SeverityThresholds } from '@/lib/severity';
import type { DetailsStore } from '@/lib/ui/popup/details-store';
import { describeError } from '@/lib/ui/shared/error-messages';
import { sightingsCell, sightingsText } from '@/lib/team-text';
import {
  COLUMN_LABEL,
  columnsFor,
  countBySeverity,
  filterRows,
  foundData,
  nextSort,
  rowGateway,
  rowSeverity,
  sortRows,
  type Column,
  type IpRow,
  type SortState,
} from '@/lib/ui/shared/ip-rows';
import { ErrorNotice } from './error-notice';
import { ExportBar } from './export-bar';
import { IpText } from './ip-text';
import { PivotLinks } from './pivot-links';
import { showBidiControls as visible } from '@/lib/visible-text';
import { ReputationDetails } from './reputation-details';
import { SeverityBadge } from './severity-badge';

/**
 * Rows drawn at first: the riskiest come first, and filters and export cover every row, so
 * drawing hundreds of rows (a few hundred ms on a busy laptop) before the analyst asks is waste.
 */
export const PAGE_SIZE = 50;

export interface IpListProps {
  rows: readonly IpRow[];
  thresholds: SeverityThresholds;
  details: DetailsStore;
  /** Table caption, e.g. "IPs on this page". */
  caption: string;
  source: string;
  fileLabel: string;
  now: number;
  onOpenOptions?: () => void;
  /** The page the list is from, for case exports that include its address. */
  page?: { url: string; title: string } | undefined;
  /** Options: medium severity becomes an indicator in case exports. */
  mediumIndicators?: boolean;
}

const ARIA_SORT = { asc: 'ascending', desc: 'descending' } as const;

function cellText(row: IpRow, column: Exclude<Column, 'ip' | 'severity'>, now: number): string {
  if (column === 'team') return sightingsCell(rowGateway(row)?.sightings);
  const data = foundData(row);
  switch (column) {
    case 'score':
      return formatScore(data?.score);
    case 'reputation':
      return data?.reputation ? visible(data.reputation) : data?.whitelisted ? 'whitelisted' : '—';
    case 'hits':
      return formatCount(data?.totalHits);
    case 'lastAttack':
      return data ? formatLastAttack(data.lastAttack, { totalHits: data.totalHits, whitelisted: data.whitelisted }, now).primary : '—';
    case 'count':
      return formatCount(row.count);
  }
}

function errorLine(error: Parameters<typeof describeError>[0]): string {
  const d = describeError(error);
  return `${d.title}. ${d.message} ${d.nextStep}`;
}

export function IpList(props: IpListProps) {
  const { rows, thresholds, details, now } = props;
  const [severity, setSeverity] = useState<Severity | 'all'>('all');
  const [text, setText] = useState('');
  const [sort, setSort] = useState<SortState | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const [limit, setLimit] = useState(PAGE_SIZE);
  // Two lists can share the popup (lookup results, this page): ids must not collide.
  const id = useId();

  const counts = useMemo(() => countBySeverity(rows, thresholds), [rows, thresholds]);
  const columns = useMemo(() => columnsFor(rows), [rows]);
  const dataColumns = columns.filter((c): c is Exclude<Column, 'ip' | 'severity'> => c !== 'ip' && c !== 'severity');
  const shown = useMemo(
    () => sortRows(filterRows(rows, { severity, text }, thresholds), sort, thresholds),
    [rows, severity, text, sort, thresholds],
  );
  const detailResults = details.results.value;
  const detailErrors = details.errors.value;
  const loadingIp = details.loading.value;

  return (
    <div class="ip-list">
      <div class="filters">
        <span class="field-inline">
          <label for={`${id}-severity`}>Severity</label>
          <select id={`${id}-severity`} value={severity} onChange={(e) => setSeverity(e.currentTarget.value as Severity | 'all')}>
            <option value="all">All ({rows.length})</option>
            {SEVERITIES.filter((s) => counts[s]).map((s) => (
              <option key={s} value={s}>
                {SEVERITY_LABEL[s]} ({counts[s]})
              </option>
            ))}
          </select>
        </span>
        <span class="field-inline field-grow">
          <label for={`${id}-filter`}>Filter</label>
          <input
            id={`${id}-filter`}
            type="search"
            value={text}
            placeholder="IP, reputation, country…"
            onInput={(e) => setText(e.currentTarget.value)}
          />
        </span>
      </div>
      <p class="list-count" role="status">
        {shown.length === rows.length ? `${rows.length} IPs` : `${shown.length} of ${rows.length} IPs match`}
        {sort ? '' : ', riskiest first'}
      </p>
      {shown.length > 0 && (
        <div class="table-wrap">
          <table class="ip-table">
            <caption class="visually-hidden">{props.caption}</caption>
            <thead>
              <tr>
                {columns.map((column) => (
                  <th
                    key={column}
                    scope="col"
                    class={`col-${column}`}
                    aria-sort={sort?.column === column ? ARIA_SORT[sort.direction] : undefined}
                  >
                    <button type="button" class="sort-button" onClick={() => setSort(nextSort(sort, column))}>
                      {COLUMN_LABEL[column]}
                      <span aria-hidden="true" class="sort-arrow">
                        {sort?.column === column ? (sort.direction === 'asc' ? ' ▲' : ' ▼') : ''}
                      </span>
                    </button>
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {shown.slice(0, limit).map((row) => {
                const open = selected === row.ip;
                const sev = rowSeverity(row, thresholds);
                const result = detailResults[row.ip] ?? row.result;
                const data = result?.status === 'found' ? result.data : null;
                const detailsId = `${id}-details-${row.ip.replace(/[^0-9a-f]/gi, '-')}`;
                return [
                  <tr key={row.ip} class={`row sev-row-${sev}${open ? ' row-open' : ''}`} onClick={() => setSelected(open ? null : row.ip)}>
                    <th scope="row" class="col-ip">
                      <button
                        type="button"
                        class="ip-button"
                        aria-expanded={open}
                        aria-controls={open ? detailsId : undefined}
                        onClick={(e) => {
                          e.stopPropagation();
                          setSelected(open ? null : row.ip);
                        }}
                      >
                        <IpText ip={row.ip} />
                      </button>
                    </th>
                    <td class="col-severity">
                      <SeverityBadge severity={sev} />
                    </td>
                    {dataColumns.map((c) => {
                      const sightings = c === 'team' ? rowGateway(row)?.sightings : null;
                      return (
                        <td key={c} class={`col-${c}`} title={sightings ? visible(sightingsText(sightings, now)) : undefined}>
                          {cellText(row, c, now)}
                        </td>
                      );
                    })}
                  </tr>,
                  open && (
                    <tr key={`${row.ip}-details`} class="row-details">
                      <td colSpan={columns.length} id={detailsId}>
                        {result ? (
                          <ReputationDetails result={result} thresholds={thresholds} now={now} headingLevel={3} describeError={errorLine}>
                            {data && !data.ipInfo && (
                              <button
                                type="button"
                                class="btn btn-small"
                                disabled={loadingIp === row.ip}
                                onClick={() => void details.load(row.ip)}
                              >
                                {loadingIp === row.ip ? 'Loading network details…' : 'Load network details (uses 1 request)'}
                              </button>
                            )}
                            <button type="button" class="btn btn-small" onClick={() => setSelected(null)}>
                              Close details
                            </button>
                            <PivotLinks ip={row.ip} />
                          </ReputationDetails>
                        ) : (
                          <p>Looking up {row.ip}…</p>
                        )}
                        {detailErrors[row.ip] && (
                          <ErrorNotice
                            error={detailErrors[row.ip]!}
                            context="Network details"
                            actions={{ retry: () => void details.load(row.ip), 'open-options': props.onOpenOptions }}
                          />
                        )}
                      </td>
                    </tr>
                  ),
                ];
              })}
            </tbody>
          </table>
        </div>
      )}
      {shown.length > limit && (
        <button type="button" class="btn btn-small" onClick={() => setLimit(shown.length)}>
          Show all {shown.length} IPs
        </button>
      )}
      <ExportBar
        rows={shown}
        thresholds={thresholds}
        source={props.source}
        fileLabel={props.fileLabel}
        page={props.page}
        mediumIndicators={props.mediumIndicators ?? false}
      />
    </div>
  );
}
