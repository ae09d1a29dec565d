/**
 * The popup: quota meter, "Look up" and "This page". It owns the stores and wires them to the
 * background through the injected UiServices; the sections only render.
 */
import { useEffect, useMemo } from 'preact/hooks';
import { ErrorNotice } from '@/components/error-notice';
import { PauseNotice } from '@/components/pause-notice';
import { QuotaMeter } from '@/components/quota-meter';
import { DEFAULT_SETTINGS } from '@/lib/settings/defaults';
import { markRendered, PERF_MARKS } from '@/lib/ui/popup/perf-marks';
import { createPopupStores, type PopupStores } from '@/lib/ui/popup/popup-stores';
import { useServices } from '@/lib/ui/shared/services-context';
import { LookupSection } from './lookup-section';
import { PageSection } from './page-section';

/** `stores` comes already started from the entry point; tests let the app make its own. */
export function PopupApp(props: { stores?: PopupStores }) {
  const services = useServices();
  const stores = useMemo(() => props.stores ?? createPopupStores(services), [services, props.stores]);
  const { status, page } = stores;
  useEffect(() => stores.start(), [stores]);

  const settings = stores.settings.value;
  const thresholds = (settings ?? DEFAULT_SETTINGS).thresholds;
  const mediumIndicators = (settings ?? DEFAULT_SETTINGS).exportOptions.mediumIndicators;
  const noKey = settings !== null && settings.apiKey === '';
  const now = services.now();
  const openOptions = () => void services.openOptions();
  const quota = status.status.value?.quota;

  return (
    <main class="popup">
      <header class="app-head">
        <h1>IP Reputation Lens</h1>
        <button type="button" class="btn btn-small" onClick={openOptions}>
          Settings
        </button>
      </header>
      {noKey && (
        <div class="notice notice-warn" role="alert">
          <p class="notice-title">No API key is set</p>
          <p>Lookups need a key for the threat API. Add yours in Settings; it stays in this browser.</p>
          <button type="button" class="btn btn-primary" onClick={openOptions}>
            Open settings to add a key
          </button>
        </div>
      )}
      {quota ? (
        <QuotaMeter
          quota={quota}
          failure={status.status.value?.lastError ?? null}
          now={now}
          refreshing={status.refreshing.value}
          onRefresh={() => void status.refreshQuota()}
          onRendered={() => markRendered(PERF_MARKS.quota)}
        />
      ) : status.error.value ? (
        <ErrorNotice error={status.error.value} context="Quota unavailable" actions={{ retry: () => void status.load(), 'open-options': openOptions }} />
      ) : (
        <p class="quota-loading" role="status">
          Reading quota…
        </p>
      )}
      {status.status.value && <PauseNotice status={status.status.value} now={now} />}
      <LookupSection
        store={stores.lookup}
        details={stores.details}
        thresholds={thresholds}
        sendPrivate={(settings ?? DEFAULT_SETTINGS).lookupPolicy.sendPrivate}
        now={now}
        onOpenOptions={openOptions}
        onRefreshQuota={() => void status.refreshQuota()}
        subnet={stores.subnet}
        quota={quota}
        mediumIndicators={mediumIndicators}
      />
      <PageSection
        store={page}
        quota={quota}
        details={stores.details}
        thresholds={thresholds}
        now={now}
        onOpenOptions={openOptions}
        onRetryLookups={() => void status.refreshQuota()}
        onRendered={() => markRendered(PERF_MARKS.page)}
        mediumIndicators={mediumIndicators}
      />
    </main>
  );
}
