/**
 * The options page: API, sites to scan, lookup policy, thresholds, mark style, import/export.
 * Its stores (lib/ui/options/options-stores.ts) keep in step with storage; this only renders.
 */
import { useEffect, useMemo } from 'preact/hooks';
import { createOptionsStores } from '@/lib/ui/options/options-stores';
import { useServices } from '@/lib/ui/shared/services-context';
import { ApiSection } from './api-section';
import { ManagedNotice } from './managed-notice';
import { ExportSection } from './export-section';
import { GatewaySection } from './gateway-section';
import { MarkStyleSection } from './mark-style-section';
import { PivotsSection } from './pivots-section';
import { PolicySection } from './policy-section';
import { SitesSection } from './sites-section';
import { ThresholdsSection } from './thresholds-section';
import { TransferSection } from './transfer-section';

export function OptionsApp() {
  const services = useServices();
  const stores = useMemo(() => createOptionsStores(services), [services]);

  useEffect(() => stores.start(), [stores]);

  if (!stores.loaded.value) {
    return (
      <main class="options">
        <h1>IP Reputation Lens settings</h1>
        <p role="status">Loading settings…</p>
      </main>
    );
  }
  const status = stores.status.status.value;
  const managed = stores.managed.value;
  return (
    <main class="options">
      <h1>IP Reputation Lens settings</h1>
      <ManagedNotice
        view={managed}
        missingApiAccess={stores.missingApiAccess.value}
        onGrantApi={() => void stores.grantApiAccess()}
      />
      <ApiSection form={stores.api} managed={managed} />
      <GatewaySection form={stores.gateway} managed={managed} />
      <SitesSection store={stores.sites} apiBaseUrl={stores.api.stored.value?.apiBaseUrl ?? null} managed={managed} />
      <PolicySection
        form={stores.policy}
        managed={managed}
        cacheSize={status?.cacheSize ?? null}
        clearing={stores.clearing.value}
        cleared={stores.cleared.value}
        onClearCache={() => void stores.clearCache()}
      />
      <ThresholdsSection form={stores.thresholds} managed={managed} />
      <MarkStyleSection form={stores.markStyle} managed={managed} />
      <ExportSection form={stores.exportOptions} />
      <PivotsSection store={stores.pivots} managed={managed} />
      <TransferSection onImported={stores.reloadAfterImport} />
    </main>
  );
}
