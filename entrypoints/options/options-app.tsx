/**
 * The options page: API, sites to scan, lookup policy, thresholds, mark style, import/export.
 * It owns the section stores and keeps them in step with storage (another tab or the popup
 * may change a setting while this page is open).
 */
import { signal } from '@preact/signals';
import { useEffect, useMemo } from 'preact/hooks';
import { type Settings } from '@/lib/settings';
import { createApiForm } from '@/lib/ui/api-form';
import { parsePolicyDraft, policyToDraft } from '@/lib/ui/policy-form';
import { createSectionForm } from '@/lib/ui/section-form';
import { useServices } from '@/lib/ui/services-context';
import type { UiServices } from '@/lib/ui/services';
import { createSitesStore } from '@/lib/ui/sites-store';
import { createStatusStore } from '@/lib/ui/status-store';
import { parseThresholdsDraft, thresholdsToDraft } from '@/lib/ui/thresholds-form';
import { ApiSection } from './api-section';
import { MarkStyleSection, type MarkStyleDraft } from './mark-style-section';
import { PolicySection } from './policy-section';
import { SitesSection } from './sites-section';
import { ThresholdsSection } from './thresholds-section';
import { TransferSection } from './transfer-section';

function createOptionsStores(services: UiServices) {
  const save = services.settings.save;
  return {
    loaded: signal(false),
    api: createApiForm(services),
    sites: createSitesStore(services),
    status: createStatusStore(services),
    clearing: signal(false),
    cleared: signal<number | null>(null),
    policy: createSectionForm({ key: 'lookupPolicy', toDraft: policyToDraft, parse: parsePolicyDraft, save }),
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
}
type OptionsStores = ReturnType<typeof createOptionsStores>;

function loadAll(stores: OptionsStores, s: Settings, first: boolean): void {
  if (first || !stores.api.dirty.value) stores.api.load(s);
  stores.policy.load(s.lookupPolicy);
  stores.thresholds.load(s.thresholds);
  stores.markStyle.load(s.markStyle);
  void stores.sites.load(s.sitesToScan);
  stores.loaded.value = true;
}

export function OptionsApp() {
  const services = useServices();
  const stores = useMemo(() => createOptionsStores(services), [services]);

  useEffect(() => {
    let alive = true;
    void services.settings.get().then((s) => alive && loadAll(stores, s, true));
    void stores.status.load();
    const unwatch = services.settings.watch(() => {
      void services.settings.get().then((s) => alive && loadAll(stores, s, false));
    });
    return () => {
      alive = false;
      unwatch();
    };
  }, [stores]);

  async function clearCache() {
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
  async function reloadAfterImport() {
    loadAll(stores, await services.settings.get(), true);
  }

  if (!stores.loaded.value) {
    return (
      <main class="options">
        <h1>IP Reputation Lens settings</h1>
        <p role="status">Loading settings…</p>
      </main>
    );
  }
  const status = stores.status.status.value;
  return (
    <main class="options">
      <h1>IP Reputation Lens settings</h1>
      <ApiSection form={stores.api} />
      <SitesSection store={stores.sites} apiBaseUrl={stores.api.stored.value?.apiBaseUrl ?? null} />
      <PolicySection
        form={stores.policy}
        cacheSize={status?.cacheSize ?? null}
        clearing={stores.clearing.value}
        cleared={stores.cleared.value}
        onClearCache={() => void clearCache()}
      />
      <ThresholdsSection form={stores.thresholds} />
      <MarkStyleSection form={stores.markStyle} />
      <TransferSection onImported={reloadAfterImport} />
    </main>
  );
}
