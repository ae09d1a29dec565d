/**
 * One lookup result as a person reads it: used by the hover card, the popup's single lookup
 * and the popup's row details. Everything from the API is rendered as text (Preact escapes it).
 */
import type { ComponentChildren } from 'preact';
import type { IpInfo } from '@/lib/api/types';
import { describeSkipped, formatCount, formatLastAttack, formatScore } from '@/lib/format';
import type { LookupResult } from '@/lib/lookup/types';
import { severityOf, type SeverityThresholds } from '@/lib/severity';
import { showBidiControls as visible } from '@/lib/visible-text';
import { IpText } from './ip-text';
import { SeverityBadge } from './severity-badge';
import { TeamLines } from './team-lines';

export interface ReputationDetailsProps {
  result: LookupResult;
  thresholds: SeverityThresholds;
  /** Turns an error into plain language; defaults to the server's own text. */
  describeError?: (error: Extract<LookupResult, { status: 'error' }>['error']) => string;
  /** Epoch ms used for "3 days ago" (tests pin it). */
  now?: number;
  /** Actions under the details (Details button, Copy IP...). */
  children?: ComponentChildren;
  /** Heading level of the IP line inside the host page/card. */
  headingLevel?: 2 | 3;
  /**
   * A compact first view (the hover card): score, reputation, hits, last attack and the
   * actions; the threat level, description, whitelist entry and network details behind a
   * "More" button. Without it everything shows at once.
   */
  more?: { open: boolean; onToggle: () => void };
}

const IPINFO_FIELDS: [keyof IpInfo, string][] = [
  ['asn', 'ASN'],
  ['as_name', 'AS name'],
  ['as_domain', 'AS domain'],
  ['isp', 'ISP'],
  ['country', 'Country'],
  ['country_code', 'Country code'],
  ['continent', 'Continent'],
  ['continent_code', 'Continent code'],
];

function Row({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <div class="rep-row">
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}

type Found = Extract<LookupResult, { status: 'found' }>;

/**
 * The badge's severity is the only level shown: the API's own `threat_level` (bulk answers only,
 * and ranked on its own scale) is not repeated here, since a second level beside the badge told
 * the analyst "High" and "MEDIUM" for one IP. The export keeps it as `api_threat_level`.
 *
 * The summary is what a first look needs: how bad, how sure, how often, how recently.
 */
function FoundSummary({ result, now }: { result: Found; now: number }) {
  const d = result.data;
  const last = formatLastAttack(d.lastAttack, { totalHits: d.totalHits, whitelisted: d.whitelisted }, now);
  return (
    <dl class="rep-fields">
      <Row label="Score">{formatScore(d.score)}{d.score !== null ? ' / 100' : ''}</Row>
      <Row label="Reputation">{d.reputation !== null ? visible(d.reputation) : d.whitelisted ? 'whitelisted' : '—'}</Row>
      <Row label="Total hits">{formatCount(d.totalHits)}</Row>
      <Row label="Last attack">
        <span class="rep-last">{last.primary}</span>
        {last.absolute && <span class="rep-abs"> ({last.absolute})</span>}
      </Row>
    </dl>
  );
}

function networkRows(result: Found): [keyof IpInfo, string][] {
  const info = result.data.ipInfo;
  return info ? IPINFO_FIELDS.filter(([key]) => typeof info[key] === 'string' && info[key] !== '') : [];
}

/** Whether the answer holds more than the summary shows. */
export function hasMore(result: LookupResult): boolean {
  if (result.status !== 'found') return false;
  const d = result.data;
  return !!d.description || d.whitelisted || networkRows(result).length > 0;
}

/** The rest of an answer: the API's description, the whitelist entry, the network. */
function FoundMore({ result }: { result: Found }) {
  const d = result.data;
  const info = d.ipInfo;
  const infoRows = networkRows(result);
  return (
    <>
      {d.description && (
        <dl class="rep-fields">
          <Row label="Description">{visible(d.description)}</Row>
        </dl>
      )}
      {d.whitelisted && (
        <div class="rep-whitelist" role="note">
          <strong>Whitelisted</strong>
          {[d.whitelist?.description, d.whitelist?.note, d.whitelist?.value]
            .filter((v): v is string => !!v)
            .map((v) => (
              <span key={v}> · {visible(v)}</span>
            ))}
        </div>
      )}
      {infoRows.length > 0 && (
        <dl class="rep-fields rep-network" aria-label="Network details">
          {infoRows.map(([key, label]) => (
            <Row key={key} label={label}>{visible(String(info![key]))}</Row>
          ))}
        </dl>
      )}
    </>
  );
}

export function ReputationDetails(props: ReputationDetailsProps) {
  const { result, thresholds, children, more } = props;
  const now = props.now ?? Date.now();
  const severity = severityOf(result, thresholds);
  const Heading = props.headingLevel === 3 ? 'h3' : 'h2';
  return (
    <section class={`rep rep-${severity}`} aria-label={`Reputation of ${result.ip}`}>
      <header class="rep-head">
        <Heading class="rep-ip">
          <IpText ip={result.ip} />
        </Heading>
        <SeverityBadge severity={severity} />
      </header>
      {result.status === 'found' && <FoundSummary result={result} now={now} />}
      {result.status === 'found' && !more && <FoundMore result={result} />}
      {result.status === 'not-found' && (
        <p class="rep-note">Not in the threat database: no attacks recorded for this address.</p>
      )}
      {result.status === 'skipped' && <p class="rep-note">{describeSkipped(result)}</p>}
      <TeamLines result={result} now={now} />
      {result.status === 'error' && (
        <p class="rep-note rep-error" role="alert">
          {visible(props.describeError ? props.describeError(result.error) : `Lookup failed: ${result.error.message}`)}
        </p>
      )}
      {children && <div class="rep-actions">{children}</div>}
      {result.status === 'found' && more && hasMore(result) && <MoreDisclosure result={result} more={more} />}
    </section>
  );
}

/** The "More" button and what it shows: a disclosure (button with aria-expanded), Enter and Space open it. */
function MoreDisclosure({ result, more }: { result: Found; more: NonNullable<ReputationDetailsProps['more']> }) {
  const id = `rep-more-${result.ip.replace(/[^0-9a-f]/gi, '-')}`;
  return (
    <div class="rep-more">
      <button type="button" class="more" aria-expanded={more.open} aria-controls={id} onClick={more.onToggle}>
        {more.open ? 'Less' : 'More'}
      </button>
      <div id={id} hidden={!more.open}>
        {more.open && <FoundMore result={result} />}
      </div>
    </div>
  );
}
