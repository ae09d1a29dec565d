import { describe, expect, it } from 'vitest';
import config from '../../wxt.config';

type ManifestFn = (env: { mode: string; browser: string; manifestVersion: number; command: string }) => Record<string, unknown>;
const manifestFor = (mode: string, browser = 'chrome') =>
  (config.manifest as ManifestFn)({ mode, browser, manifestVersion: 3, command: 'build' });

describe('manifest', () => {
  it('release build: minimal permissions, host access only to the default API origin', () => {
    const m = manifestFor('production');
    expect(m.permissions).toEqual(['storage', 'activeTab', 'contextMenus', 'scripting', 'alarms', 'identity']);
    expect(m.host_permissions).toEqual(['https://ipswamp.com/*']);
    // Custom API origins and sites to scan are asked for at runtime, one origin at a time.
    expect(m.optional_host_permissions).toEqual(['*://*/*']);
    expect(m).not.toHaveProperty('content_scripts');
  });

  it('e2e and demo builds add loopback hosts for the simulator; the release build does not', () => {
    for (const mode of ['e2e', 'demo']) {
      expect(manifestFor(mode).host_permissions).toEqual(['https://ipswamp.com/*', 'http://127.0.0.1/*', 'http://localhost/*']);
    }
    expect(JSON.stringify(manifestFor('production'))).not.toMatch(/127\.0\.0\.1|localhost/);
  });

  it('Chrome builds require the first Chrome with highlight inheritance; Firefox builds do not carry the key', () => {
    // The marks' ::highlight() rules are on :root / :host only and reach the IPs by inheritance.
    for (const mode of ['production', 'e2e', 'demo']) expect(manifestFor(mode).minimum_chrome_version).toBe('134');
    expect(manifestFor('production', 'firefox')).not.toHaveProperty('minimum_chrome_version');
  });

  it('Firefox build carries its add-on id and data collection declaration', () => {
    const gecko = (manifestFor('production', 'firefox').browser_specific_settings as { gecko: Record<string, unknown> }).gecko;
    expect(gecko.id).toBe('ip-reputation-lens@iplens.dev');
    expect(gecko.data_collection_permissions).toEqual({ required: ['websiteContent'] });
    // The declared minimum is the version the Firefox e2e suite runs on (README says why).
    expect(gecko.strict_min_version).toBe('153.0');
  });

  it('Firefox extension pages get a strict CSP that leaves http:// API calls alone', () => {
    const csp = (manifestFor('production', 'firefox').content_security_policy as { extension_pages: string }).extension_pages;
    const directives = Object.fromEntries(csp.split(';').map((d) => d.trim().split(/\s+/)).map(([name, ...values]) => [name, values]));
    // Firefox's default carries upgrade-insecure-requests, which rewrites a proxy's http:// to https://.
    expect(directives).not.toHaveProperty('upgrade-insecure-requests');
    // Strict otherwise: only our own scripts, no eval, no remote code, no plugins or <base>.
    expect(directives['script-src']).toEqual(["'self'"]);
    expect(directives['object-src']).toEqual(["'none'"]);
    expect(directives['base-uri']).toEqual(["'none'"]);
    // Chromium's default extension-page CSP has no upgrade and is kept as it is.
    expect(manifestFor('production')).not.toHaveProperty('content_security_policy');
  });
});
