/**
 * "Sites to scan": the match patterns whose pages the content script scans on load, each with
 * whether the browser granted its host permission. The permission is requested by the caller
 * in the click handler (user gesture); the background registers the content script.
 */
import { computed, signal } from '@preact/signals';
import type { ReplyError } from '../../protocol';
import type { UiServices } from '../shared/services';
import { toSitePattern } from '../shared/site-pattern';
import { releaseHostPermission } from '../shared/host-permissions';

export function createSitesStore(services: Pick<UiServices, 'send' | 'permissions'>) {
  const patterns = signal<string[]>([]);
  const granted = signal<Readonly<Record<string, boolean>>>({});
  const draft = signal('');
  const busy = signal<string | null>(null);
  const error = signal<ReplyError | null>(null);
  const notice = signal<string | null>(null);

  const parsed = computed(() => toSitePattern(draft.value));
  /** Shown while typing, but not for an empty box. */
  const draftError = computed(() => {
    if (!draft.value.trim()) return null;
    const p = parsed.value;
    if (!p.ok) return p.message;
    return patterns.value.includes(p.pattern) ? `${p.pattern} is already in the list.` : null;
  });

  async function checkPermissions(list: string[]): Promise<void> {
    const entries = await Promise.all(
      list.map(async (p) => [p, await services.permissions.contains([p]).catch(() => false)] as const),
    );
    granted.value = Object.fromEntries(entries);
  }

  async function load(list: string[]): Promise<void> {
    patterns.value = list;
    await checkPermissions(list);
  }

  async function enable(pattern: string, grant: Promise<boolean>, after: () => void): Promise<void> {
    busy.value = pattern;
    error.value = null;
    notice.value = null;
    try {
      const ok = await grant.catch(() => false);
      if (!ok) {
        notice.value = `The browser did not grant access to ${pattern}; it is not scanned.`;
        return;
      }
      const reply = await services.send('ui:set-site-scanning', { pattern, enabled: true });
      if (!reply.ok) {
        error.value = reply.error;
        return;
      }
      after();
      await load(reply.value.patterns);
      notice.value = `Pages on ${pattern} are scanned when they load.`;
    } finally {
      busy.value = null;
    }
  }

  /** "Add site": the caller has started `permissions.request` for `pattern` in the click. */
  function add(pattern: string, grant: Promise<boolean>): Promise<void> {
    return enable(pattern, grant, () => {
      draft.value = '';
    });
  }

  /** "Grant access" for a listed site whose permission is missing (e.g. after an import). */
  function grant(pattern: string, grantPromise: Promise<boolean>): Promise<void> {
    return enable(pattern, grantPromise, () => {});
  }

  /** `apiBaseUrl`: the API keeps its access even if it lies under the removed site. */
  async function remove(pattern: string, apiBaseUrl: string | null): Promise<void> {
    busy.value = pattern;
    error.value = null;
    notice.value = null;
    try {
      const reply = await services.send('ui:set-site-scanning', { pattern, enabled: false });
      if (!reply.ok) {
        error.value = reply.error;
        return;
      }
      // Give the access back (least privilege), unless the API or another site still needs it.
      await releaseHostPermission(services.permissions, pattern, { sitePatterns: reply.value.patterns, apiBaseUrl });
      await load(reply.value.patterns);
      notice.value = `${pattern} is no longer scanned.`;
    } finally {
      busy.value = null;
    }
  }

  return { patterns, granted, draft, busy, error, notice, parsed, draftError, load, checkPermissions, add, grant, remove };
}
export type SitesStore = ReturnType<typeof createSitesStore>;
