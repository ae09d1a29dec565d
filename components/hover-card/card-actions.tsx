/**
 * The buttons under a card's reputation: "Details" (a detailed lookup that costs one API
 * request, so the button says so), "Copy IP", "Copy defanged" (`1[.]2[.]3[.]4`, safe to paste
 * into a ticket or chat without becoming a link), "Copy as STIX" (a STIX 2.1 bundle the
 * background builds), and "Check 203.0.113.0/24", which opens the
 * extension's subnet check where the analyst sees the cost and the quota left and confirms.
 */
import type { LookupResult } from '@/lib/lookup/types';
import type { DetailsState } from '@/lib/page/card/card-store';

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
  copiedDefanged: boolean;
  onDetails: () => void;
  onCopy: () => void;
  onCopyDefanged: () => void;
  copiedStix?: boolean;
  stixError?: string | null;
  /** Absent: no "Copy as STIX" button. */
  onCopyStix?: (() => void) | undefined;
  /** The /24 (/120) that holds the IP; null: no subnet check offered. */
  block?: string | null;
  blockError?: string | null;
  onCheckBlock?: () => void;
}

export function CardActions({
  ip,
  result,
  details,
  copied,
  copiedDefanged,
  onDetails,
  onCopy,
  onCopyDefanged,
  copiedStix,
  stixError,
  onCopyStix,
  block,
  blockError,
  onCheckBlock,
}: CardActionsProps) {
  const costId = `cost-${ip.replace(/[^0-9a-f]/gi, '-')}`;
  const blockCostId = `block-cost-${ip.replace(/[^0-9a-f]/gi, '-')}`;
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
      <button type="button" class="copy-defanged" onClick={onCopyDefanged} title="Copy with [.] and [:], so it cannot become a link">
        {copiedDefanged ? 'Copied defanged' : 'Copy defanged'}
      </button>
      {onCopyStix && (
        <button type="button" class="copy-stix" onClick={onCopyStix} title="A STIX 2.1 bundle for OpenCTI, TheHive or MISP (no page address)">
          {copiedStix ? 'Copied STIX' : 'Copy as STIX'}
        </button>
      )}
      {block && onCheckBlock && (
        <>
          <button type="button" class="check-block" onClick={onCheckBlock} aria-describedby={blockCostId}>
            Check {block}
          </button>
          <span class="cost" id={blockCostId}>
            Up to 256 API requests (1 per address found); the extension shows the cost and the quota left before you confirm
          </span>
        </>
      )}
      {blockError && (
        <p class="status error" role="alert">
          {blockError}
        </p>
      )}
      {stixError && (
        <p class="status error" role="alert">
          {stixError}
        </p>
      )}
      {details.state === 'error' && (
        <p class="status error" role="alert">
          {details.message}
        </p>
      )}
    </>
  );
}
