/**
 * The background's status (quota snapshot, queue, cache size, last error) as signals, with the
 * two actions the quota meter offers: reload the status and refresh the quota from the free
 * /account call.
 */
import { signal } from '@preact/signals';
import type { LookupStatus } from '../../lookup/types';
import type { ReplyError } from '../../protocol';
import type { UiServices } from './services';
import type { StatusMemo } from './status-memo';

export function createStatusStore(services: Pick<UiServices, 'send'>, memo?: StatusMemo) {
  const status = signal<LookupStatus | null>(memo?.recall() ?? null);
  const error = signal<ReplyError | null>(null);
  const refreshing = signal(false);

  async function load(): Promise<void> {
    const reply = await services.send('ui:get-status', {});
    if (reply.ok) {
      status.value = reply.value;
      error.value = null;
      memo?.remember(reply.value);
    } else {
      error.value = reply.error;
    }
  }

  async function refreshQuota(): Promise<void> {
    if (refreshing.value) return;
    refreshing.value = true;
    try {
      const reply = await services.send('ui:refresh-quota', {});
      if (!reply.ok) {
        error.value = reply.error;
        return;
      }
      error.value = null;
      // The refresh answers only the quota; reload the rest (cache size, last error) after it.
      if (status.value) status.value = { ...status.value, quota: reply.value };
      await load();
    } finally {
      refreshing.value = false;
    }
  }

  return { status, error, refreshing, load, refreshQuota };
}
export type StatusStore = ReturnType<typeof createStatusStore>;
