/**
 * Detailed lookups (with ipInfo) asked for one row at a time. A detailed lookup is a manual
 * `checkIP?detailed=true` that costs one request unless cached, so it runs only on a click.
 */
import { signal } from '@preact/signals';
import type { LookupResult } from '../../lookup/types';
import type { ReplyError } from '../../protocol';
import type { UiServices } from '../shared/services';

export function createDetailsStore(services: Pick<UiServices, 'send'>) {
  const results = signal<Readonly<Record<string, LookupResult>>>({});
  const loading = signal<string | null>(null);
  const errors = signal<Readonly<Record<string, ReplyError>>>({});

  async function load(ip: string): Promise<LookupResult | null> {
    loading.value = ip;
    try {
      const reply = await services.send('ui:lookup', { ips: [ip], detailed: true });
      if (!reply.ok) {
        errors.value = { ...errors.value, [ip]: reply.error };
        return null;
      }
      const result = reply.value.find((r) => r.ip === ip) ?? reply.value[0];
      if (!result) return null;
      const { [ip]: _dropped, ...rest } = errors.value;
      errors.value = rest;
      results.value = { ...results.value, [ip]: result };
      return result;
    } finally {
      if (loading.value === ip) loading.value = null;
    }
  }

  return { results, loading, errors, load };
}
export type DetailsStore = ReturnType<typeof createDetailsStore>;
