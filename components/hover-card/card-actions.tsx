/**
 * The buttons under a card's reputation: "Details" (a detailed lookup that costs one API
 * request, so the button says so) and "Copy IP".
 */
import type { LookupResult } from '@/lib/lookup/types';
import type { DetailsState } from '@/lib/page/card-store';

/** Private/reserved addresses are never sent, and an answer with ipInfo needs no second ask. */
export function canAskDetails(result: LookupResult | undefined): boolean {
  if (!result) return true;
  if (result.status === 'found') return !result.data.ipInfo;
  if (result.status === 'skipped') return ['quota-reserve', 'page-cap', 'site-cap', 'automatic-off', 'interrupted'].includes(result.reason);
  return true;
}

export interface CardActionsProps {
  ip: string;
  result: LookupResult | undefined;
  details: DetailsState;
  copied: boolean;
  onDetails: () => void;
  onCopy: () => void;
}

export function CardActions({ ip, result, details, copied, onDetails, onCopy }: CardActionsProps) {
  const costId = `cost-${ip.replace(/[^0-9a-f]/gi, '-')}`;
  return (
    <>
      {canAskDetails(result) && (
        <>
          <button type="button" class="details" onClick={onDetails} disabled={details.state === 'loading'} aria-describedby={costId}>
            {details.state === 'loading' ? 'Loading details…' : 'Details'}
          </button>
          <span class="cost" id={costId}>
            Network details cost 1 API request
          </span>
        </>
      )}
      <button type="button" class="copy" onClick={onCopy}>
        {copied ? 'Copied' : 'Copy IP'}
      </button>
      {details.state === 'error' && (
        <p class="status error" role="alert">
          {details.message}
        </p>
      )}
    </>
  );
}
