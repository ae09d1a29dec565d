/**
 * Everything the options page edits, as stores, kept in step with storage (another tab or the
 * popup may change a setting while the page is open). Like the popup's stores (see
 * lib/ui/popup/popup-stores.ts), they live here and the page only renders them.
 */
import { signal } from '@preact/signals';
import type { Settings } from '../../settings';
import type { UiServices } from '../shared/services';
import { createStatusStore } from '../shared/status-store';
import { createApiForm } from './api-form';
import { createPivotsStore } from './pivots-store';
import { parsePolicyDraft, policyToDraft } from './policy-form';
import { createSectionForm } from './section-form';
import { createSitesStore } from './sites-store';
import { parseThresholdsDraft, thresholdsToDraft } from './thresholds-form';

export type MarkStyleDraft = { style: string };

export function createOptionsStores(services: UiServices) {
  const save = services.settings.save;
  const stores = {
    loaded: signal(false),
    api: createApiForm(services),
    sites: createSitesStore(services),
    status: createStatusStore(services),
    clearing: signal(false),
    cleared: signal<number | null>(null),
    policy: createSectionForm({ key: 'lookupPolicy', toDraft: policyToDraft, parse: parsePolicyDraft, save }),
    pivots: createPivotsStore(save),
    thresholds: createSectionForm({ key: 'thresholds', toDraft: thresholdsToDraft, parse: parseThresholdsDraft, save }),
    markStyle: createSectionForm<'markStyle', MarkStyleDraft>({
      key: 'markStyle',
      toDraft: (style) => ({ style }),
      parse: (d) =>
        d.style === 'underline' || d.style === 'background'
          ? { ok: true, value: d.style }
          : { ok: false, errors: { style: 'Choose underline or background.' } },
      save,
    }),
  };

  function loadAll(s: Settings, first: boolean): void {
    if (first || !stores.api.dirty.value) stores.api.load(s);
    stores.policy.load(s.lookupPolicy);
    stores.thresholds.load(s.thresholds);
    stores.markStyle.load(s.markStyle);
    stores.pivots.load(s.pivots, first);
    void stores.sites.load(s.sitesToScan);
    stores.loaded.value = true;
  }

  /** Reads everything and follows storage; returns the function that stops following. */
  function start(): () => void {
    let alive = true;
    void services.settings.get().then((s) => alive && loadAll(s, true));
    void stores.status.load();
    const unwatch = services.settings.watch(() => {
      void services.settings.get().then((s) => alive && loadAll(s, false));
    });
    return () => {
      alive = false;
      unwatch();
    };
  }

  async function clearCache(): Promise<void> {
    stores.clearing.value = true;
    try {
      const reply = await services.send('ui:clear-cache', {});
      if (reply.ok) stores.cleared.value = reply.value.cleared;
      else stores.status.error.value = reply.error;
      await stores.status.load();
    } finally {
      stores.clearing.value = false;
    }
  }

  /** The background follows `sitesToScan` in storage (registration sync): only refresh here. */
  async function reloadAfterImport(): Promise<void> {
    loadAll(await services.settings.get(), true);
  }

  return { ...stores, start, clearCache, reloadAfterImport };
}
export type OptionsStores = ReturnType<typeof createOptionsStores>;
