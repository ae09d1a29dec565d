/** One line under an options section: saved, saving, or why nothing was saved. */
import type { SaveStatus } from '@/lib/ui/options/section-form';

export function SaveStatusLine({ status, formError }: { status: SaveStatus; formError?: string }) {
  let text = '';
  let cls = 'save-status';
  if (status.state === 'saving') text = 'Saving…';
  else if (status.state === 'saved') text = 'Saved.';
  else if (status.state === 'invalid') {
    text = `Not saved: ${formError ?? 'fix the fields marked above'}. The previous values stay in force.`;
    cls += ' field-error';
  } else if (status.state === 'failed') {
    text = `Could not save: ${status.message}`;
    cls += ' field-error';
  }
  return (
    <p class={cls} role="status">
      {text}
    </p>
  );
}
