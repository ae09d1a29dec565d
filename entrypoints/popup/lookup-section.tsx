/**
 * "Look up": one IP gets a detailed lookup with every ipInfo field; pasted text gets every IP
 * in it extracted, the private ones listed as skipped, the rest looked up in bulk and listed
 * riskiest first. Invalid input gets an inline message and sends nothing.
 */
import { useRef } from 'preact/hooks';
import { ErrorNotice } from '@/components/error-notice';
import { ExportBar } from '@/components/export-bar';
import { IpList } from '@/components/ip-list';
import { PivotLinks } from '@/components/pivot-links';
import { ReputationDetails } from '@/components/reputation-details';
import { describeSkip } from '@/lib/format';
import type { LookupResult } from '@/lib/lookup/types';
import type { ReplyError } from '@/lib/protocol';
import type { SeverityThresholds } from '@/lib/severity';
import type { DetailsStore } from '@/lib/ui/popup/details-store';
import { describeError } from '@/lib/ui/shared/error-messages';
import { mayBePaid, type LookupStore, type TextSummary } from '@/lib/ui/popup/lookup-store';
import type { QuotaSnapshot } from '@/lib/lookup/types';
import type { SubnetStore } from '@/lib/ui/popup/subnet-store';
import { SubnetPanel } from './subnet-panel';

export interface LookupSectionProps {
  store: LookupStore;
  details: DetailsStore;
  thresholds: SeverityThresholds;
  sendPrivate: boolean;
  now: number;
  onOpenOptions: () => void;
  onRefreshQuota: () => void;
  /** A CIDR typed here becomes a subnet check offer (optional: tests of the IP box omit it). */
  subnet?: SubnetStore;
  quota?: QuotaSnapshot | undefined;
  /** Options: medium severity becomes an indicator in case exports. */
  mediumIndicators?: boolean;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
}

/**
 * Answers that may already have been paid are asked again only on the analyst's word, with the
 * cost said on the button: bulk bills 1 unit per IP found, checkIP 1 per request.
 */
function TryAgainPaid({ ips, onTryAgain }: { ips: string[]; onTryAgain: (ips: string[]) => void }) {
  if (!ips.length) return null;
  const n = ips.length;
  return (
    <div class="notice" role="status">
      <p class="notice-title">{plural(n, 'answer')} may already have been paid</p>
      <p>
        {n === 1 ? 'This IP was' : 'These IPs were'} sent, but the answer was lost (the server was slow, or the extension was
        stopped). The server may have billed {n === 1 ? 'it' : 'them'}, so {n === 1 ? 'it is' : 'they are'} not asked again
        automatically. Asking again costs up to {plural(n, 'unit')} (1 per IP the database knows).
      </p>
      <button type="button" class="btn" onClick={() => onTryAgain(ips)}>
        Try again (up to {plural(n, 'unit')})
      </button>
    </div>
  );
}

function Summary({ summary }: { summary: TextSummary }) {
  const skipped = summary.skipped;
  return (
    <div class="lookup-summary">
      <p>
        Found {plural(summary.unique, 'IP address', 'IP addresses')}
        {summary.occurrences !== summary.unique ? ` (${plural(summary.occurrences, 'occurrence')})` : ''}; looked up{' '}
        {summary.lookedUp.toLocaleString('en-US')}
        {skipped.length ? `, skipped ${skipped.length.toLocaleString('en-US')} as private or reserved` : ''}.
      </p>
      {skipped.length > 0 && (
        <p class="muted">
          Skipped: {skipped.slice(0, 20).map((s) => `${s.ip} (${s.ipClass})`).join(', ')}
          {skipped.length > 20 ? ` and ${skipped.length - 20} more` : ''}.
        </p>
      )}
      {summary.truncated > 0 && (
        <p class="muted">
          {plural(summary.truncated, 'more IP')} were not looked up: one lookup takes at most 10,000 addresses.
        </p>
      )}
    </div>
  );
}

/**
 * A single lookup that failed, or was refused for want of a key or quota, gets the full error
 * notice (what happened, next step, action) rather than a one-line note in the card.
 */
function singleError(result: LookupResult): ReplyError | null {
  if (result.status === 'error') return result.error;
  if (result.status === 'skipped' && result.reason === 'quota-exhausted') {
    return { kind: 'quota-exhausted', message: describeSkip(result.reason) };
  }
  if (result.status === 'skipped' && result.reason === 'no-key') return { kind: 'missing-key', message: describeSkip(result.reason) };
  return null;
}

export function LookupSection(props: LookupSectionProps) {
  const { store, thresholds, now } = props;
  const input = useRef<HTMLTextAreaElement>(null);
  const state = store.state.value;

  function submit(text = input.current?.value ?? '') {
    // A block is offered with its cost, never looked up as an IP on Enter.
    if (props.subnet?.offerFor(text)) {
      store.clear();
      return;
    }
    props.subnet?.clear();
    void store.submit(text, { sendPrivate: props.sendPrivate });
  }

  return (
    <section class="panel" aria-labelledby="lookup-heading">
      <h2 id="lookup-heading">Look up</h2>
      <form
        class="lookup-form"
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        <label for="lookup-input">IP address or text</label>
        <textarea
          id="lookup-input"
          ref={input}
          rows={2}
          autoFocus
          spellcheck={false}
          autoComplete="off"
          aria-invalid={state.phase === 'invalid'}
          aria-describedby={state.phase === 'invalid' ? 'lookup-help lookup-error' : 'lookup-help'}
          placeholder="203.0.113.7, or paste a log excerpt"
          onKeyDown={(e) => {
            // Enter looks up (one IP is typed far more often than text); Shift+Enter adds a line.
            if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
              e.preventDefault();
              submit();
            }
          }}
          onInput={() => {
            if (store.state.value.phase === 'invalid') store.clear();
          }}
        />
        <p id="lookup-help" class="help">
          One IP shows every detail (1 request). Pasted text: every IP in it is looked up at once. A block such as
          203.0.113.0/24 is offered as a subnet check, with its cost. Enter looks up,
          Shift+Enter adds a line.
        </p>
        {state.phase === 'invalid' && (
          <p id="lookup-error" class="field-error" role="alert">
            {state.message}
          </p>
        )}
        <div class="row-buttons">
          <button type="submit" class="btn btn-primary" disabled={state.phase === 'loading'}>
            Look up
          </button>
          {(state.phase !== 'idle' || props.subnet?.state.value.phase !== 'idle') && (
            <button
              type="button"
              class="btn"
              onClick={() => {
                if (input.current) input.current.value = '';
                store.clear();
                props.subnet?.clear();
                input.current?.focus();
              }}
            >
              Clear
            </button>
          )}
        </div>
      </form>
      {props.subnet && (
        <SubnetPanel
          store={props.subnet}
          details={props.details}
          thresholds={thresholds}
          quota={props.quota}
          now={now}
          onOpenOptions={props.onOpenOptions}
          onRefreshQuota={props.onRefreshQuota}
        />
      )}
      <div class="lookup-result" aria-live="polite">
        {state.phase === 'loading' && <p role="status">Looking up {state.what}…</p>}
        {state.phase === 'single' && mayBePaid(state.result) && (
          <TryAgainPaid ips={[state.result.ip]} onTryAgain={(ips) => void store.tryAgain(ips)} />
        )}
        {state.phase === 'single' && singleError(state.result) && (
          <ErrorNotice
            error={singleError(state.result)!}
            context={`${state.result.ip} not looked up`}
            actions={{
              // The notice above is the way to ask again an answer that may be paid.
              retry: () => (mayBePaid(state.result) ? undefined : submit(state.result.ip)),
              'open-options': props.onOpenOptions,
              'refresh-quota': props.onRefreshQuota,
            }}
          />
        )}
        {state.phase === 'single' && !singleError(state.result) && (
          <ReputationDetails
            result={state.result}
            thresholds={thresholds}
            now={now}
            headingLevel={3}
            describeError={(error) => {
              const d = describeError(error);
              return `${d.title}. ${d.message} ${d.nextStep}`;
            }}
          >
            <PivotLinks ip={state.result.ip} />
          </ReputationDetails>
        )}
        {state.phase === 'single' && !singleError(state.result) && (
          <ExportBar
            rows={[{ ip: state.result.ip, count: 1, result: state.result }]}
            thresholds={thresholds}
            source="lookup"
            fileLabel={state.result.ip}
            mediumIndicators={props.mediumIndicators ?? false}
          />
        )}
        {state.phase === 'single-skipped' && (
          <div class="notice" role="status">
            <p class="notice-title">{state.ip} was not looked up</p>
            <p>{describeSkip(state.ipClass)}</p>
            <p class="muted">To send such addresses, turn on "Send private IPs" in Settings › Lookup policy.</p>
          </div>
        )}
        {state.phase === 'error' && (
          <ErrorNotice
            error={state.error}
            context="Lookup failed"
            actions={{
              retry: () => submit(state.retry),
              'open-options': props.onOpenOptions,
              'refresh-quota': props.onRefreshQuota,
            }}
          />
        )}
        {state.phase === 'list' && (
          <>
            <Summary summary={state.summary} />
            <TryAgainPaid ips={state.rows.filter((row) => row.result && mayBePaid(row.result)).map((row) => row.ip)} onTryAgain={(ips) => void store.tryAgain(ips)} />
            <IpList
              rows={state.rows}
              thresholds={thresholds}
              details={props.details}
              caption="IPs in the pasted text"
              source="lookup"
              fileLabel="lookup"
              mediumIndicators={props.mediumIndicators ?? false}
              now={now}
              onOpenOptions={props.onOpenOptions}
            />
          </>
        )}
      </div>
    </section>
  );
}
