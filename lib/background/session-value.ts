/**
 * One value kept in storage.session: it survives the service worker being stopped (MV3 stops it
 * after 30 s idle) and is gone when the browser closes, the lifetime of what the background
 * remembers about open pages (the badge, the per-page cap). Never throws: where storage.session
 * is missing or fails, reads find nothing and writes are dropped, and callers go on from memory.
 * Callers validate what they read: the stored value may come from another version.
 */
import type { StoredValue } from '../lookup/stored-value';

/** The part of `browser.storage.session` used here. */
export interface SessionArea {
  get(key: string): Promise<Record<string, unknown>>;
  set(items: Record<string, unknown>): Promise<void>;
}

/** Its load gives undefined when there is none or it cannot be read. */
export type SessionValue = StoredValue;

export function sessionValue(area: SessionArea | undefined, key: string): SessionValue {
  return {
    async load() {
      try {
        return (await area?.get(key))?.[key];
      } catch {
        return undefined;
      }
    },
    async save(value) {
      try {
        await area?.set({ [key]: value });
      } catch {
        // Over quota, or the browser is closing: the value lives on in memory.
      }
    },
  };
}
