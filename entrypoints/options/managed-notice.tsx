/**
 * Says that the organisation manages some settings, and which policy values were ignored
 * (invalid for this version), so an analyst can tell the administrator exactly what to fix.
 */
import type { ManagedView } from '@/lib/settings';

export function ManagedNotice({ view, missingApiAccess, onGrantApi }: { view: ManagedView; missingApiAccess: string | null; onGrantApi: () => void }) {
  if (!view.locked.length && !view.problems.length) return null;
  return (
    <section class="panel managed-notice" aria-labelledby="managed-heading">
      <h2 id="managed-heading">Managed by your organisation</h2>
      {view.locked.length > 0 && (
        <p>Settings marked "Set by your organisation" come from your administrator's policy and cannot be changed here.</p>
      )}
      {missingApiAccess && (
        <div class="notice notice-warn" role="alert">
          <p>
            Your organisation set the API address, but this browser has not granted access to {missingApiAccess}. Nothing
            is looked up until you grant it.
          </p>
          <button type="button" class="btn" onClick={onGrantApi}>
            Grant access to {missingApiAccess}
          </button>
        </div>
      )}
      {view.problems.length > 0 && (
        <div class="notice notice-warn" role="alert">
          <p class="notice-title">Some policy values were ignored; tell your administrator:</p>
          <ul>
            {view.problems.map((p) => (
              <li key={p}>{p}</li>
            ))}
          </ul>
        </div>
      )}
    </section>
  );
}
