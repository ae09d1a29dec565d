/**
 * The card shown when the pointer rests on a marked IP, and the one listing the IPs of a
 * selection (context menu "Look up IP reputation"). Everything from the API or the page goes
 * through Preact as text.
 */
import type { CardView } from '@/lib/page/card/card-store';
import { SEVERITY_LABEL, severityOf } from '@/lib/severity';
import { CardActions } from './card-actions';
import { CardPivots } from './card-pivots';
import { IpView } from './ip-view';

/** What to show and what the buttons do: the store's view (lib/page/card/card-store.ts). */
export type HoverCardProps = CardView;

export function HoverCard(props: HoverCardProps) {
  const { entries, title, thresholds, onDetails, onCopy, onCheckBlock, onClose } = props;
  const single = entries.length === 1 && !title;
  // What a screen reader says as the focus comes in: the IP and its severity, the card's gist.
  const first = entries[0];
  const label = single && first ? `IP reputation: ${first.ip}, ${SEVERITY_LABEL[first.result ? severityOf(first.result, thresholds) : 'pending']}` : (title ?? 'IP reputation');
  return (
    <div class="card-body" role="dialog" aria-label={label} aria-modal="false" tabIndex={-1}>
      <div class="card-top">
        {/* The name is text, not aria-label: a label that does not contain what is shown (×) fails WCAG 2.5.3. */}
        <button type="button" class="close" title="Close (Escape)" onClick={onClose}>
          <span aria-hidden="true">×</span>
          <span class="sr-only">Close (Escape)</span>
        </button>
      </div>
      {!single && <p class="title">{title}</p>}
      {entries.length === 0 && <p class="rep-note">{props.emptyText ?? 'No IP address in the selected text.'}</p>}
      <div class="list">
        {entries.map((e) => (
          <IpView key={e.ip} ip={e.ip} result={e.result} thresholds={thresholds} headingLevel={single ? 2 : 3} more={{ open: e.more, onToggle: () => props.onMore(e.ip) }}>
            <CardActions
              ip={e.ip}
              result={e.result}
              details={e.details}
              copied={e.copied}
              copiedDefanged={e.copiedDefanged}
              onDetails={() => onDetails(e.ip)}
              onCopy={() => onCopy(e.ip)}
              block={e.block}
              blockError={e.blockError}
              onCheckBlock={() => onCheckBlock(e.ip)}
              onCopyDefanged={() => props.onCopyDefanged(e.ip)}
              copiedStix={e.copiedStix}
              stixError={e.stixError}
              onCopyStix={props.onCopyStix ? () => props.onCopyStix!(e.ip) : undefined}
            />
            <CardPivots ip={e.ip} pivots={props.pivots} onPivot={(id) => props.onPivot(e.ip, id)} />
          </IpView>
        ))}
      </div>
      {props.pivotError && (
        <p class="status error" role="alert">
          {props.pivotError}
        </p>
      )}
    </div>
  );
}
