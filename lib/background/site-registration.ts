/**
 * "Sites to scan" as registered content scripts: one registration whose `matches` are the
 * listed patterns the browser granted, in all frames, persisted across browser restarts. The
 * `sitesToScan` setting is the truth; `sync()` makes the registration match it (at start-up,
 * when the options page edits the list, when a permission is added or revoked). Syncs run one
 * at a time: two overlapping register calls would fail with a duplicate id.
 */
import { CONTENT_SCRIPT_FILE, CONTENT_STYLE_FILE } from './content-script-file';

export const SITES_SCRIPT_ID = 'ip-reputation-lens-sites';

export interface RegisteredScript {
  id: string;
  matches?: string[];
}

export interface RegistrationApi {
  scripting: {
    getRegisteredContentScripts(filter?: { ids?: string[] }): Promise<RegisteredScript[]>;
    registerContentScripts(scripts: ScriptRegistration[]): Promise<void>;
    updateContentScripts(scripts: ScriptRegistration[]): Promise<void>;
    unregisterContentScripts(filter?: { ids?: string[] }): Promise<void>;
  };
  permissions: { contains(permissions: { origins: string[] }): Promise<boolean> };
}

export interface ScriptRegistration {
  id: string;
  js: string[];
  css: string[];
  matches: string[];
  allFrames: boolean;
  runAt: 'document_idle';
  persistAcrossSessions: boolean;
}

export interface SitesSetting {
  get(): Promise<string[]>;
  set(patterns: string[]): Promise<void>;
}

export function registrationFor(matches: string[]): ScriptRegistration {
  return {
    id: SITES_SCRIPT_ID,
    js: [CONTENT_SCRIPT_FILE],
    // The mark styles before the page is parsed: no whole-page restyle when marks appear.
    css: [CONTENT_STYLE_FILE],
    matches,
    allFrames: true,
    runAt: 'document_idle',
    persistAcrossSessions: true,
  };
}

export function createSiteRegistration(api: RegistrationApi, sites: SitesSetting) {
  let chain: Promise<unknown> = Promise.resolve();

  async function granted(patterns: string[]): Promise<string[]> {
    const checks = await Promise.all(
      patterns.map((p) => api.permissions.contains({ origins: [p] }).catch(() => false)),
    );
    return patterns.filter((_, i) => checks[i]);
  }

  async function apply(): Promise<string[]> {
    const matches = await granted(await sites.get());
    const [existing] = await api.scripting.getRegisteredContentScripts({ ids: [SITES_SCRIPT_ID] });
    if (matches.length === 0) {
      if (existing) await api.scripting.unregisterContentScripts({ ids: [SITES_SCRIPT_ID] });
      return [];
    }
    if (!existing) {
      await api.scripting.registerContentScripts([registrationFor(matches)]);
    } else if (!sameSet(existing.matches ?? [], matches)) {
      await api.scripting.updateContentScripts([registrationFor(matches)]);
    }
    return matches;
  }

  /** Makes the registration match the setting; resolves with the patterns now registered. */
  function sync(): Promise<string[]> {
    const run = chain.then(apply, apply);
    chain = run.catch(() => undefined);
    return run;
  }

  /** Adds or removes one site (the popup's "Scan this site", the options list). */
  async function setSite(pattern: string, enabled: boolean): Promise<string[]> {
    if (enabled && !(await api.permissions.contains({ origins: [pattern] }))) {
      throw new Error(`The browser has not granted access to ${pattern}. Allow it when the browser asks, then try again.`);
    }
    const current = await sites.get();
    const next = enabled ? [...new Set([...current, pattern])] : current.filter((p) => p !== pattern);
    if (next.length !== current.length || next.some((p, i) => p !== current[i])) await sites.set(next);
    await sync();
    return next;
  }

  return { sync, setSite };
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x) => b.includes(x));
}
