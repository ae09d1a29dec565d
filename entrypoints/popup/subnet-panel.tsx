/**
 * The popup's subnet check (lib/ui/subnet-store.ts): the offer with its worst-case cost and
 * the quota left, the refusal of a block above the API's limit with a pick of the /24 (or
 * /120) to check instead, and the answer: the summary and the found IPs, riskiest first, each
 * opening its full card.
 */
import { ErrorNotice } from '@/components/error-notice';
import { IpList } from '@/components/ip-list';
import { formatCount, formatScore } from '@/lib/format';
import type { QuotaSnapshot } from '@/lib/lookup/types';
import type { SubnetReply } from '@/lib/messaging';
import type { SeverityThresholds } from '@/lib/severity';
import type { DetailsStore } from '@/lib/ui/popup/details-store';
import { subnetCost } from '@/lib/ui/popup/subnet-cost';
import { tooLargeMessage, type SubnetStore } from '@/lib/ui/popup/subnet-store';

export interface SubnetPanelProps {
  store: SubnetStore;
  details: DetailsStore;
  thresholds: SeverityThresholds;
  quota: QuotaSnapshot | undefined;
  now: number;
  onOpenOptions: () => void;
  onRefreshQuota: () => void;
}

function CostLines({ prefix, version, quota }: { prefix: number; version: 4 | 6; quota: QuotaSnapshot | undefined }) {
  const cost = subnetCost({ prefix, version }, quota);
  return (
    <>
      <p class="subnet-cost">{cost.text}</p>
      <p class={cost.mayExceed ? 'field-error' : 'muted'}>
        {cost.quotaText}
        {cost.mayExceed ? ' This check may use more than what is left.' : ''}
      </p>
    </>
  );
}

function Summary({ reply }: { reply: SubnetReply }) {
  const s = reply.summary;
  const found = s?.foundCount ?? reply.found.length;
  return (
    <div class="lookup-summary subnet-summary">
      <p>
        {reply.cidr}: found {formatCount(found)}
        {s?.total != null ? ` of ${formatCount(s.total)} addresses` : ''} in the database; charged {formatCount(reply.cost)}.
      </p>
      {s && (
        <p class="muted">
          Malicious {formatCount(s.malicious)} · clean {formatCount(s.clean)} · average score {formatScore(s.averageScore)}
        </p>
      )}
    </div>
  );
}

export function SubnetPanel(props: SubnetPanelProps) {
  const { store } = props;
  const state = store.state.value;
  if (state.phase === 'idle') return null;
  const checkButton = (cidr: string, disabled = false) => (
    <button type="button" class="btn btn-primary" disabled={disabled} onClick={() => void store.check()}>
      Check {cidr}
    </button>
  );

  return (
    <div class="subnet-panel" aria-live="polite">
      {state.phase === 'offer' && (
        <div class="notice" role="status">
          <p class="notice-title">
            {state.block.cidr} is a block of {state.block.version === 4 ? 'IPv4' : 'IPv6'} addresses
            {state.host ? ` (the /${state.block.prefix} that holds ${state.host})` : ''}
          </p>
          <CostLines prefix={state.block.prefix} version={state.block.version} quota={props.quota} />
          {checkButton(state.block.cidr)}
        </div>
      )}
      {state.phase === 'too-large' && (
        <div class="notice notice-warn" role="status">
          <p class="notice-title">{tooLargeMessage(state.block)}</p>
          <label for="subnet-pick">Check the /{state.block.version === 4 ? 24 : 120} that holds this IP instead</label>
          <input
            id="subnet-pick"
            type="text"
            spellcheck={false}
            autoComplete="off"
            value={state.pickText}
            aria-invalid={state.pickError !== null}
            onInput={(e) => store.pickIp((e.target as HTMLInputElement).value)}
          />
          {state.pickError && (
            <p class="field-error" role="alert">
              {state.pickError}
            </p>
          )}
          {state.pick && (
            <>
              <CostLines prefix={state.pick.prefix} version={state.pick.version} quota={props.quota} />
              {checkButton(state.pick.cidr)}
            </>
          )}
        </div>
      )}
      {state.phase === 'loading' && <p role="status">Checking {state.block.cidr}…</p>}
      {state.phase === 'error' && (
        <ErrorNotice
          error={state.error}
          context={`${state.block.cidr} not checked`}
          actions={{ retry: () => void store.check(), 'open-options': props.onOpenOptions, 'refresh-quota': props.onRefreshQuota }}
        />
      )}
      {state.phase === 'result' && (
        <>
          <Summary reply={state.reply} />
          {state.reply.found.length > 0 && (
            <IpList
              rows={state.reply.found.map((result) => ({ ip: result.ip, count: 1, result }))}
              thresholds={props.thresholds}
              details={props.details}
              caption={`IPs found in ${state.reply.cidr}`}
              source="subnet"
              fileLabel={`subnet-${state.reply.cidr.replace(/[/:]/g, '_')}`}
              now={props.now}
              onOpenOptions={props.onOpenOptions}
            />
          )}
        </>
      )}
    </div>
  );
}
