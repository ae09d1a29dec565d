/**
 * What every scanned page parses before anything is marked: the built content script stays
 * under 25 KB gzip and carries no zod (the background validates messages; the page needs none
 * of it). The hover card's code is a separate file, loaded at the first hover (lazy-card.ts).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { expect, test } from '@playwright/test';
import { E2E_EXTENSION_DIR } from './chromium';
import { CARD_FACTORY_KEY } from '../../components/hover-card/lazy-card';

const LIMIT_GZIP_BYTES = 25 * 1024;
/** Strings zod 4 keeps in a minified bundle (its class names and the `_zod` internals key). */
const ZOD_MARKERS = ['$ZodType', 'ZodError', '_zod'];

const built = (file: string) => readFileSync(path.join(E2E_EXTENSION_DIR, file), 'utf8');

test('the built content script is at most 25 KB gzip', () => {
  const size = gzipSync(built('content-scripts/content.js'), { level: 9 }).length;
  expect(size, `content.js is ${(size / 1024).toFixed(1)} KB gzip`).toBeLessThanOrEqual(LIMIT_GZIP_BYTES);
});

test('the built content script contains no zod', () => {
  // The markers are what a bundle with zod looks like: the background's has them.
  const background = built('background.js');
  for (const marker of ZOD_MARKERS) expect(background).toContain(marker);
  const content = built('content-scripts/content.js');
  for (const marker of ZOD_MARKERS) expect(content, `content.js contains ${marker}`).not.toContain(marker);
});

test('the hover card is a file of its own, not in the content script', () => {
  const card = built('hover-card.js');
  expect(card).toContain(CARD_FACTORY_KEY);
  // Floating UI's placement middleware and Preact's renderer come only with the card.
  expect(built('content-scripts/content.js')).not.toContain('getClippingRect');
  expect(card).toContain('getClippingRect');
});
