/**
 * "This page": every IP the tab's content script found, with filters, sorting, details and
 * export; and the buttons that start or stop scanning this page or this whole site.
 */
import { useLayoutEffect } from 'preact/hooks';
import { ErrorNotice } from '@/components/error-notice';
import { IpList } from '@/components/ip-list';
import type { QuotaSnapshot } from '@/lib/lookup/types';
import type { SeverityThresholds } from '@/lib/severity';
import { restCostText } from '@/lib/ui/popup/rest-cost';
import type { DetailsStore } from '@/lib/ui/popup/details-store';
import type { PageStore } from '@/lib/ui/popup/page-store';
import { useServices } from '@/lib/ui/shared/services-context';
import type { IpRow } from '@/lib/ui/shared/ip-rows';
import { showBidiControls as visible } from '@/lib/visible-text';

export interface PageSectionProps {
  store: PageStore;
  details: DetailsStore;
  thresholds: SeverityThresholds;
  now: number;
  onOpenOptions: () => void;
  /** Asks the server now (the free /account call): if it answers, failed IPs are re-asked. */
  onRetryLookups: () => void;
  onRendered?: () => void;
  /** The quota now, for the cost line of "Look up the rest" (unknown until the meter loads). */
  quota?: QuotaSnapshot | undefined;
  /** Options: medium severity becomes an indicator in case exports. */
  mediumIndicators?: boolean;
}

/**
 * One notice for the whole page when lookups failed: how many, why (the most recent failure),
 * and the next step; the rows themselves say "Lookup failed".
 */
function FailedLookupsNotice({ rows, onOpenOptions, onRetry }: { rows: IpRow[]; onOpenOptions: () => void; onRetry: () => void }) {
  const failed = rows.filter((r) => r.result?.status === 'error');
  const first = failed[0]?.result;
  if (!first || first.status !== 'error') return null;
  const count = failed.length === 1 ? '1 IP' : `${failed.length} IPs`;
  return (
    <div class="page-failures">
      <ErrorNotice
        error={first.error}
        context={`Lookup failed for ${count} on this page`}
        actions={{ 'open-options': onOpenOptions, retry: onRetry }}
      />
      <p class="muted">These are marked "Lookup failed", not "Unknown": the server did not answer for them. They are asked again automatically when it answers.</p>
    </div>
  );
}

function SiteButtons({ store, pageScanned }: { store: PageStore; pageScanned: boolean }) {
  const services = useServices();
  const busy = store.busy.value;
  const pattern = store.sitePattern.value;
  const siteOn = store.matchingPatterns.value.length > 0;
  return (
    <div class="row-buttons">
      {!pageScanned && (
        <button type="button" class="btn btn-primary" disabled={busy !== null} onClick={() => void store.scanPage()}>
          {busy === 'scan-page' ? 'Scanning…' : 'Scan this page'}
        </button>
      )}
      {siteOn ? (
        <button type="button" class="btn" disabled={busy !== null} onClick={() => void store.stopSite()}>
          {busy === 'stop-site' ? 'Stopping…' : 'Stop scanning this site'}
        </button>
      ) : (
        pattern && (
          <button
            type="button"
            class="btn"
            disabled={busy !== null}
            title={`Scan every page on ${pattern} when it loads`}
            onClick={() => {
              // The permission prompt needs the click's user gesture: ask before anything else.
              const granted = services.permissions.request([pattern]);
              void store.scanSite(pattern, granted);
            }}
          >
            {busy === 'scan-site' ? 'Adding site…' : 'Scan this site'}
          </button>
        )
      )}
    </div>
  );
}

/**
 * The per-page cap, in one place: used / cap for the tab and the site; once reached, that it
 * is and how many IPs on this page it left out (marked "Past the cap"); and one control that
 * looks them up, with its cost and the quota left said before the click.
 */
function CapPanel({ store, quota }: { store: PageStore; quota: QuotaSnapshot | undefined }) {
  const cap = store.cap.value;
  const capped = store.cappedIps.value;
  if (!cap && capped.length === 0) return null;
  const busy = store.busy.value;
  const fmt = (n: number) => n.toLocaleString('en-US');
  const reached = capped.length > 0 || (cap !== null && (cap.used >= cap.cap || cap.siteUsed >= cap.siteCap));
  const what = capped.length === 1 ? '1 address on this page was' : `${fmt(capped.length)} addresses on this page were`;
  return (
    <div class={reached ? 'notice cap-notice' : 'muted'} data-testid="page-cap" role={reached ? 'status' : undefined}>
      {cap && (
        <p>
          Automatic lookups for {cap.site}: {fmt(cap.used)} / {fmt(cap.cap)} in this tab this hour; {fmt(cap.siteUsed)} /{' '}
          {fmt(cap.siteCap)} for the site today.
        </p>
      )}
      {reached && (
        <p class="cap-reached">
          {capped.length > 0
            ? `The cap is reached: ${what} not looked up (marked “Past the cap”).`
            : 'The cap is reached: further IPs on this page are not looked up automatically.'}
        </p>
      )}
      {capped.length > 0 && (
        <>
          <button type="button" class="btn" disabled={busy !== null} aria-describedby="rest-cost" onClick={() => void store.lookUpCapped()}>
            {busy === 'look-up-capped' ? 'Looking up…' : `Look up the rest (${fmt(capped.length)})`}
          </button>
          <p class="muted" id="rest-cost">
            {restCostText(capped.length, quota)}
          </p>
        </>
      )}
    </div>
  );
}

export function PageSection(props: PageSectionProps) {
  const { store, thresholds, now } = props;
  const state = store.state.value;
  const loaded = state.phase !== 'loading';
  // Layout effect: marks the moment the list is in the DOM (the benchmark's "page rendered").
  useLayoutEffect(() => {
    if (loaded) props.onRendered?.();
  }, [loaded]);

  return (
    <section class="panel" aria-labelledby="page-heading">
      <h2 id="page-heading">This page</h2>
      {state.phase === 'loading' && <p role="status">Reading this page…</p>}
      {state.phase === 'no-tab' && <p>No browser tab to inspect. Open this popup from the page you want to check.</p>}
      {state.phase === 'unsupported' && (
        <p>This is a browser or extension page: the extension cannot read it. Open the popup on a web page.</p>
      )}
      {state.phase === 'not-scanned' && (
        <>
          <p>This page is not scanned. Scan it once, or scan every page of this site from now on.</p>
          <SiteButtons store={store} pageScanned={false} />
        </>
      )}
      {state.phase === 'ready' && (
        <>
          <p class="page-title" title={state.url}>
            {visible(state.title || state.url)}
          </p>
          {state.scanning && (
            <p class="muted" role="status">
              Still scanning this page: the list may grow.
            </p>
          )}
          {state.limited && (
            <p class="muted" role="status">
              Too many IPs here: marking visible ones only.
            </p>
          )}
          {/* The content script answered, so this page is scanned and followed as it changes. */}
          <SiteButtons store={store} pageScanned />
          <FailedLookupsNotice rows={state.rows} onOpenOptions={props.onOpenOptions} onRetry={props.onRetryLookups} />
          <CapPanel store={store} quota={props.quota} />
          {state.rows.length === 0 ? (
            <p>No IP addresses found on this page yet.</p>
          ) : (
            <IpList
              rows={state.rows}
              thresholds={thresholds}
              details={props.details}
              caption="IPs on this page"
              source={state.url}
              fileLabel={safeHost(state.url)}
              page={{ url: state.url, title: state.title }}
              mediumIndicators={props.mediumIndicators ?? false}
              now={now}
              onOpenOptions={props.onOpenOptions}
            />
          )}
        </>
      )}
      {store.notice.value && (
        <p class="notice" role="status">
          {store.notice.value}
        </p>
      )}
      {store.actionError.value && (
        <ErrorNotice error={store.actionError.value} context="Could not change scanning" actions={{ 'open-options': props.onOpenOptions }} />
      )}
    </section>
  );
}

function safeHost(url: string): string {
  try {
    return new URL(url).hostname || 'page';
  } catch {
    return 'page';
  }
}
