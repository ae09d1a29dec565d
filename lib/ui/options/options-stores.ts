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
import { createGatewayForm } from './gateway-form';
import { isLocked, NO_MANAGED_VIEW } from './managed-locks';
import { originPatternForUrl } from '../shared/site-pattern';
import { createPivotsStore } from './pivots-store';
import { parsePolicyDraft, policyToDraft } from './policy-form';
import { createSectionForm } from './section-form';
import { createSitesStore } from './sites-store';
import { parseThresholdsDraft, thresholdsToDraft } from './thresholds-form';

export type MarkStyleDraft = { style: string };
export type ExportOptionsDraft = { mediumIndicators: boolean };

export function createOptionsStores(services: UiServices) {
  const save = services.settings.save;
  const stores = {
    loaded: signal(false),
    /** The organisation's locks (lib/settings/managed.ts); none without a policy. */
    managed: signal(NO_MANAGED_VIEW),
    /**
     * The origin of an API address the organisation set, while the browser has not granted it:
     * a policy cannot grant host access, so options offers "Grant access" (a user gesture).
     */
    missingApiAccess: signal<string | null>(null),
    api: createApiForm(services),
    gateway: createGatewayForm(services),
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
    exportOptions: createSectionForm<'exportOptions', ExportOptionsDraft>({
      key: 'exportOptions',
      toDraft: (o) => ({ mediumIndicators: o.mediumIndicators }),
      parse: (d) => ({ ok: true, value: { mediumIndicators: d.mediumIndicators } }),
      save,
    }),
  };

  async function loadManaged(s: Settings): Promise<void> {
    const view = (await services.settings.policy?.()) ?? NO_MANAGED_VIEW;
    stores.managed.value = view;
    stores.api.keyManaged.value = view.keyManaged || view.proxyAddsKey;
    const origin = isLocked(view, 'apiBaseUrl') ? originPatternForUrl(s.apiBaseUrl) : null;
    const granted = origin ? await services.permissions.contains([origin]).catch(() => false) : true;
    stores.missingApiAccess.value = granted ? null : origin;
  }

  /** "Grant access" to the organisation's API origin. Call from the click (user gesture). */
  async function grantApiAccess(): Promise<void> {
    const origin = stores.missingApiAccess.value;
    if (!origin) return;
    const granted = await services.permissions.request([origin]).catch(() => false);
    if (granted) stores.missingApiAccess.value = null;
  }

  /** Locks first, so a locked field is never shown editable, even for a moment. */
  async function loadAll(s: Settings, first: boolean, newest: () => boolean = () => true): Promise<void> {
    await loadManaged(s);
    if (!newest()) return;
    // A save of the API section in flight loads its own result, and keeps what was changed meanwhile.
    if (first || (!stores.api.dirty.value && stores.api.phase.value !== 'saving')) stores.api.load(s);
    stores.gateway.load(s, first);
    stores.policy.load(s.lookupPolicy);
    stores.thresholds.load(s.thresholds);
    stores.markStyle.load(s.markStyle);
    stores.exportOptions.load(s.exportOptions);
    stores.pivots.load(s.pivots, first);
    void stores.sites.load(s.sitesToScan);
    stores.loaded.value = true;
  }

  /** Reads everything and follows storage; returns the function that stops following. */
  function start(): () => void {
    let alive = true;
    // Only the newest read is shown: two fast saves fire two changes, and a read started after
    // the first must not land after the second's and put the older value back on screen.
    let reads = 0;
    let shown = false;
    const read = () => {
      const mine = ++reads;
      void services.settings.get().then((s) => {
        if (!alive || mine !== reads) return;
        const first = !shown;
        shown = true;
        return loadAll(s, first, () => alive && mine === reads);
      });
    };
    read();
    void stores.status.load();
    const unwatch = services.settings.watch(read);
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
    await loadAll(await services.settings.get(), true);
  }

  return { ...stores, start, clearCache, reloadAfterImport, grantApiAccess };
}
export type OptionsStores = ReturnType<typeof createOptionsStores>;
