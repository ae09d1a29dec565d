/**
 * The built content script runs on every scanned page: it must not carry zod (the
 * background's validator, most of a bundle's weight) nor lib/settings (the stored settings,
 * the API key among them). Read from the build this e2e stage just made (`npm run test:e2e`
 * builds first); the background bundle, which must contain both, proves the markers still
 * find what they look for, so a changed zod cannot make this pass silently.
 */
import { expect, test } from '@playwright/test';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { E2E_EXTENSION_DIR } from './chromium';

/** Strings zod's code carries through minification (its error class and issue codes). */
const ZOD_MARKERS = ['ZodError', 'invalid_type'];
/** webextension-polyfill's module name and its guard's message (lib/native-runtime.ts: the page side goes without it). */
const POLYFILL_MARKERS = ['webextension-polyfill', 'This script should only be loaded in a browser extension'];
/** A message of the settings schema (lib/settings/schema.ts). */
const SETTINGS_MARKER = 'An API key has no spaces or line breaks.';

function built(file: string): string {
  return readFileSync(path.join(E2E_EXTENSION_DIR, file), 'utf8');
}

test('the built content script carries neither zod nor lib/settings', () => {
  const background = built('background.js');
  for (const marker of [...ZOD_MARKERS, SETTINGS_MARKER]) expect(background, marker).toContain(marker);
  const content = built('content-scripts/content.js');
  expect(content.length).toBeGreaterThan(1_000);
  for (const marker of [...ZOD_MARKERS, SETTINGS_MARKER]) expect(content, marker).not.toContain(marker);
});

test('the built content script goes without webextension-polyfill, which the background keeps', () => {
  const background = built('background.js');
  for (const marker of POLYFILL_MARKERS) expect(background, marker).toContain(marker);
  const content = built('content-scripts/content.js');
  for (const marker of POLYFILL_MARKERS) expect(content, marker).not.toContain(marker);
});
