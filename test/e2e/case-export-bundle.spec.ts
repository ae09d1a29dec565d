/**
 * The STIX and MISP builders (and the uuid package they bring) run in the background and in a
 * chunk the popup loads on demand: never in the content script, which every scanned page
 * parses, nor in the hover card's bundle, nor in the popup's first load. The background and the
 * chunk must contain the markers, so a changed uuid cannot make this pass silently.
 */
import { expect, test } from '@playwright/test';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { E2E_EXTENSION_DIR } from './chromium';

/** The STIX namespace (lib/export/stix.ts) and a message of uuid's parser. */
const MARKERS = ['00abedb4-aa42-466c-9c01-fed23315a9b7', 'Invalid UUID'];

const built = (file: string) => readFileSync(path.join(E2E_EXTENSION_DIR, file), 'utf8');

test('the case-export builders and uuid stay out of the content script, the card and the popup chunk', () => {
  const chunks = readdirSync(path.join(E2E_EXTENSION_DIR, 'chunks'));
  const caseChunk = chunks.find((f) => f.startsWith('case-export-'));
  expect(caseChunk, 'a chunk of its own, loaded on demand').toBeDefined();
  for (const marker of MARKERS) {
    expect(built('background.js'), marker).toContain(marker);
    expect(built(`chunks/${caseChunk}`), marker).toContain(marker);
    expect(built('content-scripts/content.js'), marker).not.toContain(marker);
    expect(built('hover-card.js'), marker).not.toContain(marker);
    for (const popup of chunks.filter((f) => f.startsWith('popup-'))) expect(built(`chunks/${popup}`), marker).not.toContain(marker);
  }
});
