import preact from '@preact/preset-vite';
import { minify } from 'terser';
import type { Plugin } from 'vite';
import { defineConfig } from 'wxt';
import { storeBundleCleanup } from './scripts/store-bundle-cleanup';

/**
 * Build modes:
 * - production (default): the release build. Host permission for the default API origin only.
 * - e2e: the build Playwright loads. Adds loopback host permissions so the extension can reach
 *   the API simulator and be injected into fixture pages served on 127.0.0.1.
 * - demo: like e2e, and preconfigured (see lib/build-defaults.ts) for the simulator that
 *   `npm run demo` starts.
 */
const LOOPBACK_HOSTS = ['http://127.0.0.1/*', 'http://localhost/*'];

/** The first Chrome with CSS highlight inheritance for ::highlight() (see the manifest below). */
const MINIMUM_CHROME_VERSION = '134';

/**
 * Firefox's MV3 default for extension pages without `upgrade-insecure-requests` (see the
 * manifest below) and without 'wasm-unsafe-eval', which we do not use.
 */
const FIREFOX_EXTENSION_PAGES_CSP = "script-src 'self'; object-src 'none'; base-uri 'none'";

/** Runs terser over each chunk once the build (and its esbuild minification) is done. */
function terserAfterMinify(): Plugin {
  return {
    name: 'iplens:terser-after-minify',
    apply: 'build',
    async generateBundle(_options, bundle) {
      for (const chunk of Object.values(bundle)) {
        if (chunk.type !== 'chunk') continue;
        const out = await minify(chunk.code, { ecma: 2020, compress: { passes: 3 } });
        if (out.code) chunk.code = out.code;
      }
    },
  };
}

export default defineConfig({
  // Lets parallel e2e builds (and the demo) write to their own folder.
  outDir: process.env.WXT_OUT_DIR ?? '.output',
  modules: ['@wxt-dev/webextension-polyfill'],
  hooks: {
    // The polyfill stays out of the content script (~3 KB gzip in every scanned page): its build
    // resolves `wxt/browser` to WXT's native accessor (Firefox's `browser`, else `chrome`). What
    // the page side uses of it is promise-based natively in both browsers: lib/native-runtime.ts.
    'vite:build:extendConfig': (entrypoints, viteConfig) => {
      if (!entrypoints.every((e) => e.type === 'content-script')) return;
      viteConfig.resolve ??= {};
      const native = { find: /^wxt\/browser$/, replacement: '@wxt-dev/browser' };
      const alias = viteConfig.resolve.alias ?? [];
      viteConfig.resolve.alias = Array.isArray(alias)
        ? [native, ...alias.filter((a: { find: unknown }) => String(a.find) !== 'wxt/browser')]
        : [native, ...Object.entries(alias).filter(([find]) => find !== 'wxt/browser').map(([find, replacement]) => ({ find, replacement }))];
      // Terser's passes over esbuild's minified output: 557 B less gzip in every scanned page
      // (25,670 -> 25,113 B at the stop-26 merge; limit 25,600, content-script-size.spec.ts).
      if (!process.env.WXT_NO_MINIFY) viteConfig.plugins = [...(viteConfig.plugins ?? []), terserAfterMinify()];
    },
  },
  // WXT_NO_MINIFY=1: readable output with its source file regions, for the page profile
  // (`npm run bench page-profile`), whose CPU profile is mapped back to lib/ modules.
  vite: () => ({ plugins: [preact(), storeBundleCleanup()], ...(process.env.WXT_NO_MINIFY ? { build: { minify: false } } : {}) }),
  // `npm run zip`: Firefox's zip comes with a sources zip, which AMO asks for because the
  // bundles are minified. It needs what `npm ci && npm run build:firefox` reads, not the tests.
  zip: { excludeSources: ['test/**', 'test-results*/**', 'docs/**', 'demo-output/**', 'bench-output/**'] },
  manifest: ({ mode, browser }) => ({
    name: 'IP Reputation Lens',
    short_name: 'IP Lens',
    description:
      'Colours every IP address in your SIEM console by its threat reputation and shows score, hits, last attack and network details on hover.',
    permissions: ['storage', 'activeTab', 'contextMenus', 'scripting', 'alarms', 'identity'],
    // What an administrator may set through policy (README, "For administrators"). Chrome
    // passes only values that fit this schema to storage.managed; Firefox reads its policies.json.
    ...(browser === 'firefox' ? {} : { storage: { managed_schema: 'managed_schema.json' } }),
    // Chromium: the ::highlight() rules sit on :root and :host only and reach the text below
    // them through CSS highlight inheritance (lib/page/marks/highlight-styles.ts). Chrome's release
    // notes list highlight inheritance, naming ::highlight, as shipped in Chrome 134
    // (chromestatus.com/feature/5090853643354112); below it only text directly under the root
    // would be marked. Firefox reads strict_min_version below instead.
    ...(browser === 'firefox' ? {} : { minimum_chrome_version: MINIMUM_CHROME_VERSION }),
    host_permissions: [
      'https://ipswamp.com/*',
      ...(mode === 'e2e' || mode === 'demo' ? LOOPBACK_HOSTS : []),
    ],
    // A custom API base URL and the "Sites to scan" are granted at runtime, one origin at a time.
    optional_host_permissions: ['*://*/*'],
    commands: {
      'scan-page': {
        suggested_key: { default: 'Alt+Shift+S' },
        description: 'Scan this page for IP addresses',
      },
      _execute_action: {
        suggested_key: { default: 'Alt+Shift+L' },
        description: 'Open the IP lookup popup',
      },
      // Marks are highlights, not elements: Tab cannot reach them (lib/background/keyboard-command.ts).
      'next-ip': {
        suggested_key: { default: 'Alt+Shift+K' },
        description: 'Go to the next marked IP on screen and open its card (or into the open card)',
      },
    },
    ...(browser === 'firefox'
      ? {
          // Firefox's default extension-page CSP adds `upgrade-insecure-requests`, which turns
          // every call to an http:// API (a proxy on the LAN, as README allows) into https://
          // and fails it. Ours is the same otherwise: no eval, no remote code, no plugins.
          content_security_policy: { extension_pages: FIREFOX_EXTENSION_PAGES_CSP },
          browser_specific_settings: {
            gecko: {
              id: 'ip-reputation-lens@iplens.dev',
              // The lowest version the Firefox e2e suite runs on (153 ESR). 140 ESR has the CSS
              // Custom Highlight API but does not paint text-decoration in ::highlight(), so
              // the default underline marks are invisible there, and it is not tested.
              strict_min_version: '153.0',
              // IPs found in page text are sent to the threat-intelligence API.
              data_collection_permissions: { required: ['websiteContent'] },
            },
          },
        }
      : {}),
  }),
});
