import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** The extension API comes in through the entry points and lib/background, lib/ui, never here. */
const NO_EXTENSION_API = [
  { name: 'wxt/browser', message: 'No extension API here: take what you need as a parameter (see docs/architecture.md).' },
  { name: 'webextension-polyfill', message: 'No extension API here: take what you need as a parameter (see docs/architecture.md).' },
  { name: 'wxt/utils/storage', message: 'No extension storage here: take what you need as a parameter (see docs/architecture.md).' },
];
const EXTENSION_GLOBALS = [
  { name: 'browser', message: 'No extension API here: take what you need as a parameter.' },
  { name: 'chrome', message: 'No extension API here: take what you need as a parameter.' },
];
/** The content script runs on every scanned page: no zod, no settings (they hold the API key). */
const CONTENT_PATHS = [
  { name: 'zod', message: 'zod stays out of the content script: check by hand (see lib/page/messages/tab-messages.ts).' },
];
const CONTENT_PATTERNS = [
  {
    regex: '(^|/)settings(/|$)',
    message: 'The content script never reads settings: the background sends the display settings (lib/protocol.ts).',
  },
  {
    regex: '(^|/)messaging$',
    allowTypeImports: true,
    message: 'lib/messaging.ts holds the zod schemas: import its types only (`import type`), values from lib/protocol.ts.',
  },
];

export default tseslint.config(
  { ignores: ['node_modules', '.output', '.output-*', '.wxt', 'demo-output', 'test-results', 'playwright-report', 'bench-output'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.browser, ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-non-null-assertion': 'off',
      // Text from the API or the page is rendered as text, never as HTML.
      'no-restricted-properties': [
        'error',
        { property: 'innerHTML', message: 'Render text with textContent or Preact, never HTML.' },
        { property: 'outerHTML', message: 'Render text with textContent or Preact, never HTML.' },
        { property: 'insertAdjacentHTML', message: 'Render text with textContent or Preact, never HTML.' },
      ],
      'no-restricted-syntax': [
        'error',
        { selector: "JSXAttribute[name.name='dangerouslySetInnerHTML']", message: 'Never render API or page text as HTML.' },
      ],
    },
  },
  // ----- The architecture, enforced (docs/architecture.md) -----
  // One rule set per group of files: a later block setting the same rule replaces, not adds.
  {
    // Pure logic and views: no extension API, so they run under Node and in any context.
    files: ['lib/api/**', 'lib/lookup/**', 'components/**'],
    ignores: ['components/hover-card/**'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { paths: NO_EXTENSION_API }], 'no-restricted-globals': ['error', ...EXTENSION_GLOBALS] },
  },
  {
    // In the content script and browser-free: neither the extension API nor zod or settings.
    files: ['lib/ip/**', 'lib/page/**', 'components/hover-card/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { paths: [...NO_EXTENSION_API, ...CONTENT_PATHS], patterns: CONTENT_PATTERNS }],
      'no-restricted-globals': ['error', ...EXTENSION_GLOBALS],
    },
  },
  {
    // The content script and the protocol code it shares with the other contexts.
    files: ['entrypoints/content/**', 'lib/protocol.ts', 'lib/message-client.ts', 'lib/message-router.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { paths: CONTENT_PATHS, patterns: CONTENT_PATTERNS }] },
  },
  {
    // Tests and tools may read serialised DOM to compare it.
    files: ['test/**', 'scripts/**'],
    rules: { 'no-restricted-properties': 'off' },
  },
);
