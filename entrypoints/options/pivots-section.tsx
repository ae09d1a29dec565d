/**
 * "Open in …": the pivot services of the hover card, the popup rows and the context menu.
 * Each can be renamed, pointed elsewhere, turned off or removed; the list can be reset.
 */
import { SaveStatusLine } from '@/components/save-status';
import { IP_PLACEHOLDER } from '@/lib/pivots';
import type { ManagedView } from '@/lib/settings';
import { isLocked, SET_BY_ORGANISATION } from '@/lib/ui/options/managed-locks';
import type { PivotsStore } from '@/lib/ui/options/pivots-store';

export function PivotsSection({ store, managed }: { store: PivotsStore; managed: ManagedView }) {
  const locked = isLocked(managed, 'pivots');
  const rows = store.draft.value;
  const errors = store.errors.value;
  return (
    <section class="panel" aria-labelledby="pivots-heading">
      <h2 id="pivots-heading">Open in …</h2>
      <p class="help" id="pivots-privacy">
        Links to other services' pages about an IP, offered by the hover card (the O key opens the first), the popup's rows and
        the context menu. Opening one of these links is the only way an IP address goes to a third party: the extension sends
        nothing to these services by itself, only your browser does when you open a link.
      </p>
      <p class="help">
        Each URL must start with https:// and contain {IP_PLACEHOLDER} once, where the address goes (IPv6 addresses are
        percent-encoded), for example https://www.shodan.io/host/{IP_PLACEHOLDER}.
      </p>
      {locked && <p class="managed-value">{SET_BY_ORGANISATION}</p>}
      {/* A disabled fieldset disables every field and button inside it: the organisation's list. */}
      <fieldset class="pivot-fieldset" disabled={locked}>
      <ul class="pivot-list">
        {rows.map((p, i) => {
          const e = errors.rows[i] ?? {};
          const label = p.name.trim() || `service ${i + 1}`;
          return (
            <li key={p.id} class="pivot-item">
              <input
                id={`pivot-${p.id}-on`}
                type="checkbox"
                checked={p.enabled}
                aria-label={`Offer ${label}`}
                onChange={(ev) => void store.setEnabled(i, ev.currentTarget.checked)}
              />
              <div class="pivot-fields">
                <label>
                  <span class="visually-hidden">Name of {label}</span>
                  <input
                    class="pivot-name"
                    type="text"
                    value={p.name}
                    placeholder="Name"
                    spellcheck={false}
                    aria-invalid={e.name ? true : undefined}
                    aria-describedby={e.name ? `pivot-${p.id}-name-error` : undefined}
                    onInput={(ev) => store.edit(i, { name: ev.currentTarget.value })}
                    onChange={() => void store.commit()}
                  />
                </label>
                <label>
                  <span class="visually-hidden">URL template of {label}</span>
                  <input
                    class="pivot-url"
                    type="url"
                    value={p.urlTemplate}
                    spellcheck={false}
                    aria-invalid={e.urlTemplate ? true : undefined}
                    aria-describedby={e.urlTemplate ? `pivot-${p.id}-url-error` : undefined}
                    onInput={(ev) => store.edit(i, { urlTemplate: ev.currentTarget.value })}
                    onChange={() => void store.commit()}
                  />
                </label>
                {e.name && (
                  <p id={`pivot-${p.id}-name-error`} class="field-error">
                    {e.name}
                  </p>
                )}
                {e.urlTemplate && (
                  <p id={`pivot-${p.id}-url-error`} class="field-error">
                    {e.urlTemplate}
                  </p>
                )}
              </div>
              <button type="button" class="btn btn-small" aria-label={`Remove ${label}`} onClick={() => void store.remove(i)}>
                Remove
              </button>
            </li>
          );
        })}
      </ul>
      {rows.length === 0 && <p class="muted">No service: the card, popup and context menu offer no links.</p>}
      <SaveStatusLine status={store.status.value} {...(errors.form ? { formError: errors.form } : {})} />
      <div class="row-buttons">
        <button type="button" class="btn" disabled={store.room.value <= 0} onClick={() => store.add()}>
          Add a service
        </button>
        <button type="button" class="btn" onClick={() => void store.resetToDefaults()}>
          Reset to defaults
        </button>
      </div>
      </fieldset>
    </section>
  );
}
