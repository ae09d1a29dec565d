/**
 * Sites to scan: add (asks the browser for access to that site, in the click), remove, and
 * for each site whether the access is granted, with a button to grant it when it is not.
 */
import { ErrorNotice } from '@/components/error-notice';
import type { ManagedView } from '@/lib/settings';
import { isLocked, SET_BY_ORGANISATION } from '@/lib/ui/options/managed-locks';
import type { SitesStore } from '@/lib/ui/options/sites-store';
import { useServices } from '@/lib/ui/shared/services-context';

export function SitesSection({ store, apiBaseUrl, managed }: { store: SitesStore; apiBaseUrl: string | null; managed: ManagedView }) {
  const services = useServices();
  // A managed list: each site may still need the analyst's "Grant access" (a policy cannot grant it).
  const locked = isLocked(managed, 'sitesToScan');
  const patterns = store.patterns.value;
  const granted = store.granted.value;
  const busy = store.busy.value;
  const parsed = store.parsed.value;
  const draftError = store.draftError.value;

  return (
    <section class="panel" aria-labelledby="sites-heading">
      <h2 id="sites-heading">Sites to scan</h2>
      <p class="help">
        Pages on these sites are scanned for IP addresses as they load. On any other page, use "Scan this page" in the
        popup.
      </p>
      {locked && (
        <p class="managed-value">
          {SET_BY_ORGANISATION} Sites cannot be added or removed here; grant access to any site marked "Access not granted".
        </p>
      )}
      {patterns.length === 0 ? (
        <p class="muted">No sites yet.</p>
      ) : (
        <ul class="site-list" aria-label="Sites to scan">
          {patterns.map((p) => (
            <li key={p} class="site-item">
              <code class="site-pattern">{p}</code>
              <span class={granted[p] ? 'site-ok' : 'site-missing'}>
                {granted[p] ? 'Access granted' : 'Access not granted: not scanned'}
              </span>
              {!granted[p] && (
                <button
                  type="button"
                  class="btn btn-small"
                  disabled={busy !== null}
                  aria-label={`Grant access to ${p}`}
                  onClick={() => void store.grant(p, services.permissions.request([p]))}
                >
                  Grant access
                </button>
              )}
              {!locked && (
                <button
                  type="button"
                  class="btn btn-small"
                  disabled={busy !== null}
                  aria-label={`Remove ${p}`}
                  onClick={() => void store.remove(p, apiBaseUrl)}
                >
                  Remove
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {!locked && (
        <form
          class="site-add"
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            const p = store.parsed.value;
            if (!p.ok || draftError) return;
            // The permission prompt needs this click's user gesture: ask before any await.
            void store.add(p.pattern, services.permissions.request([p.pattern]));
          }}
        >
          <div class="field">
            <label for="site-input">Site to add</label>
            <div class="field-control">
              <input
                id="site-input"
                type="text"
                value={store.draft.value}
                placeholder="https://kibana.example.org/*"
                spellcheck={false}
                autoComplete="off"
                aria-invalid={draftError ? true : undefined}
                aria-describedby="site-input-help"
                onInput={(e) => (store.draft.value = e.currentTarget.value)}
              />
              <button type="submit" class="btn" disabled={busy !== null || !parsed.ok || !!draftError}>
                Add site
              </button>
            </div>
            <p id="site-input-help" class={draftError ? 'field-error' : 'help'}>
              {draftError ??
                (parsed.ok && parsed.converted
                  ? `Will add ${parsed.pattern}`
                  : 'A match pattern (https://*.example.org/*), a URL or a host name.')}
            </p>
          </div>
        </form>
      )}
      {store.notice.value && (
        <p class="notice" role="status">
          {store.notice.value}
        </p>
      )}
      {store.error.value && <ErrorNotice error={store.error.value} context="Could not change the sites" />}
    </section>
  );
}
