/**
 * After a 429 the background pauses every lookup until the server's Retry-After has passed;
 * a lookup started meanwhile waits. Say so, with when it resumes, instead of a silent spinner.
 */
import { formatAbsolute, formatRelative } from '@/lib/format';
import type { LookupStatus } from '@/lib/lookup/types';
import { describeError } from '@/lib/ui/shared/error-messages';
import { isoOrNull } from '@/lib/ui/shared/export-rows';

export function PauseNotice({ status, now }: { status: LookupStatus; now: number }) {
  if (status.pausedUntil === null || status.pausedUntil <= now) return null;
  const error = status.lastError?.kind === 'rate-limited' ? status.lastError : { kind: 'rate-limited' as const, message: 'Rate limit exceeded', status: 429 };
  const d = describeError(error);
  const iso = isoOrNull(status.pausedUntil);
  const when = formatRelative(iso, now);
  return (
    <div class="notice notice-warn" role="status" data-error-kind="rate-limited">
      <p class="notice-title">{d.title}: lookups are paused</p>
      <p>{d.message}</p>
      <p>
        Lookups resume {when ?? 'soon'}
        {iso ? ` (${formatAbsolute(iso)})` : ''}; anything you look up now waits until then.
      </p>
      <p class="notice-detail">Details: {d.detail}</p>
    </div>
  );
}
