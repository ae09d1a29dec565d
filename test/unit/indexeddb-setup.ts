/**
 * Every unit test gets an empty IndexedDB (fake-indexeddb): the settings store keeps the API key
 * there, and fakeBrowser.reset() clears storage only, so a key saved by one test would otherwise
 * leak into the next one.
 */
import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { beforeEach } from 'vitest';

beforeEach(() => {
  globalThis.indexedDB = new IDBFactory();
});
