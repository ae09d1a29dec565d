/**
 * One value a part of the background keeps between service-worker runs (storage.session or
 * storage.local in the browser, memory in tests): the call journal, the page cap's counts, the
 * recovery watch, the frames' asks. Zod-free: the content script bundles the recovery watch.
 */
export interface StoredValue {
  load(): Promise<unknown>;
  save(value: unknown): Promise<void>;
}

/**
 * Reads a stored value where nothing readable means nothing stored: no store, a failed read
 * (storage closing, over quota) or none yet all give undefined, so the caller starts empty.
 * Callers still validate what they get: it may have been written by another version.
 */
export async function loadOrNothing(store: StoredValue | undefined): Promise<unknown> {
  try {
    return await store?.load();
  } catch {
    return undefined;
  }
}
