/**
 * Where WXT writes the content script (entrypoints/content/index.ts, `registration: 'runtime'`):
 * the file registered for "Sites to scan" and injected for one-off scans. An e2e test loads it
 * from the built extension, so a rename in the build breaks a test, not analysts' pages.
 */
export const CONTENT_SCRIPT_FILE = 'content-scripts/content.js';

/** The underline mark rules (entrypoints/content/marks.css), injected at document start. */
export const CONTENT_STYLE_FILE = 'content-scripts/content.css';

/** The hover card's code (entrypoints/hover-card.ts), injected at a frame's first hover. */
export const CARD_SCRIPT_FILE = 'hover-card.js';
