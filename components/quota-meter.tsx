/**
 * Used / limit from the background's quota ledger, with the reserve marked on the bar and what
 * the state means for automatic lookups. Sets the popup's "quota rendered" performance mark.
 */
import { useLayoutEffect } from 'preact/hooks';
import type { ApiErrorData } from '@/lib/api/errors';
import type { QuotaSnapshot } from '@/lib/lookup/types';
import { quotaView } from '@/lib/ui/shared/quota-view';

export interface QuotaMeterProps {
  quota: QuotaSnapshot;
  now: number;
  refreshing: boolean;
  onRefresh: () => void;
  onRendered?: () => void;
  /** The background's current API failure, if lookups are failing. */
  failure?: ApiErrorData | null;
}

export function QuotaMeter({ quota, now, refreshing, onRefresh, onRendered, failure }: QuotaMeterProps) {
  const view = quotaView(quota, now, failure);
  // Layout effect: runs when the meter is in the DOM, not a frame later (the benchmark's mark).
  useLayoutEffect(() => onRendered?.(), [onRendered]);
  // A calm quota takes one line and a disclosure: the popup is at most 600 px tall, and the
  // lookup field and the page's rows come first. A state that stops lookups says so outside it.
  const calm = view.state === 'ok' || view.state === 'unknown';
  return (
    <section class={`quota quota-${view.state}`} aria-labelledby="quota-heading">
      <div class="quota-head">
        <h2 id="quota-heading" class="quota-title">
          Quota
        </h2>
        <span class="quota-state" data-state={view.state}>
          {view.label}
        </span>
        <span class="quota-usage">{view.usage}</span>
        {view.usedPercent !== null && (
          <div
            class="quota-bar"
            role="meter"
            aria-label="Quota used"
            aria-valuemin={0}
            aria-valuemax={100}
            aria-valuenow={Math.round(view.usedPercent)}
            aria-valuetext={view.usage}
          >
            <div class="quota-fill" style={{ width: `${view.usedPercent}%` }} />
            {view.reserveAt !== null && (
              <div class="quota-reserve" style={{ left: `${view.reserveAt}%` }} title={view.reserveText ?? undefined} />
            )}
          </div>
        )}
        <button type="button" class="btn btn-small" onClick={onRefresh} disabled={refreshing}>
          {refreshing ? 'Refreshing…' : 'Refresh quota'}
        </button>
      </div>
      {view.team && (
        <ul class="quota-team" aria-label="Your budget and the team's pool">
          <li class="quota-small">{view.team.budget}</li>
          <li class="quota-small">{view.team.pool}</li>
        </ul>
      )}
      {!calm && <p class="quota-meaning">{view.meaning}</p>}
      <details class="quota-more">
        <summary>Quota details</summary>
        {calm && <p class="quota-meaning">{view.meaning}</p>}
        {view.scopeText && <p class="quota-small quota-scope">{view.scopeText}</p>}
        {view.reserveText && <p class="quota-small">{view.reserveText}</p>}
        {view.detail && <p class="quota-small">Server said: {view.detail}</p>}
        <p class="quota-small">{view.refreshed}</p>
      </details>
    </section>
  );
}
