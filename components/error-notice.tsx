/**
 * Any error the background or the API returns, in plain language with the next step and the
 * one button that helps (lib/ui/error-messages.ts holds the words).
 */
import type { ReplyError } from '@/lib/protocol';
import { describeError, type ErrorAction } from '@/lib/ui/shared/error-messages';
import { showBidiControls as visible } from '@/lib/visible-text';

const ACTION_LABEL: Record<Exclude<ErrorAction, 'none'>, string> = {
  'open-options': 'Open settings',
  retry: 'Try again',
  'refresh-quota': 'Refresh quota',
};

export interface ErrorNoticeProps {
  error: ReplyError;
  /** Handlers for the actions this page can take; an action without one shows no button. */
  actions?: Partial<Record<Exclude<ErrorAction, 'none'>, () => void>>;
  /** Short context, e.g. "Lookup failed". */
  context?: string;
}

export function ErrorNotice({ error, actions = {}, context }: ErrorNoticeProps) {
  const d = describeError(error);
  const handler = d.action !== 'none' ? actions[d.action] : undefined;
  return (
    <div class="notice notice-error" role="alert" data-error-kind={d.kind}>
      <p class="notice-title">
        {context ? `${context}: ` : ''}
        {d.title}
      </p>
      <p>{d.message}</p>
      <p class="notice-next">{d.nextStep}</p>
      <p class="notice-detail">Details: {visible(d.detail)}</p>
      {handler && d.action !== 'none' && (
        <button type="button" class="btn" onClick={handler}>
          {ACTION_LABEL[d.action]}
        </button>
      )}
    </div>
  );
}
