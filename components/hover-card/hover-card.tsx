/**
 * The card shown when the pointer rests on a marked IP, and the one listing the IPs of a
 * selection (context menu "Look up IP reputation"). Everything from the API or the page goes
 * through Preact as text.
 */
import type { CardView } from '@/lib/page/card/card-store';
import { CardActions } from './card-actions';
import { CardPivots } from './card-pivots';
import { IpView } from './ip-view';

/** What to show and what the buttons do: the store's view (lib/page/card/card-store.ts). */
export type HoverCardProps = CardView;

export function HoverCard(props: HoverCardProps) {
  const { entries, title, thresholds, onDetails, onCopy, onCheckBlock, onClose } = props;
  const single = entries.length === 1 && !title;
  const label = single ? `IP reputation: ${entries[0]!.ip}` : (title ?? 'IP reputation');
  return (
    <div class="card-body" role="dialog" aria-label={label} aria-modal="false">
      <div class="card-top">
        <button type="button" class="close" aria-label="Close (Escape)" title="Close (Escape)" onClick={onClose}>
          ×
        </button>
      </div>
      {!single && <p class="title">{title}</p>}
      {entries.length === 0 && <p class="rep-note">No IP address in the selected text.</p>}
      <div class="list">
        {entries.map((e) => (
          <IpView key={e.ip} ip={e.ip} result={e.result} thresholds={thresholds} headingLevel={single ? 2 : 3}>
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
