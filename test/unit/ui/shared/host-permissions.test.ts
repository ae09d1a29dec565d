/**
 * Host access is given back when nothing needs it: "Stop scanning this site" in the popup (as
 * Options' Remove does) and a changed API base URL; it stays while the API or another site
 * still lies under the pattern.
 */
import { describe, expect, it } from 'vitest';
import { createApiForm } from '@/lib/ui/options/api-form';
import { permissionStillNeeded } from '@/lib/ui/shared/host-permissions';
import { createPageStore } from '@/lib/ui/popup/page-store';
import { createSitesStore } from '@/lib/ui/options/sites-store';
import { createFakeServices, ok } from '../fake-services';
import { ACCOUNT } from '../samples';

describe('permissionStillNeeded', () => {
  it('keeps access the API base URL or another listed site still needs', () => {
    const users = { sitePatterns: ['https://*.corp.example/*'], apiBaseUrl: 'https://api.example:8443/api/v1' };
    expect(permissionStillNeeded('https://api.example/*', users)).toBe(true);
    // A listed site inside the pattern may hold its access through it.
    expect(permissionStillNeeded('https://*.corp.example/*', { sitePatterns: ['https://kibana.corp.example/*'], apiBaseUrl: null })).toBe(true);
    expect(permissionStillNeeded('https://kibana.other.example/*', users)).toBe(false);
  });

  it('a wider site pattern, granted on its own, does not keep a narrower one (it leaked the narrower grant)', () => {
    const users = { sitePatterns: ['https://*.corp.example/*', 'http://siem.test/*'], apiBaseUrl: 'https://api.example/api/v1' };
    expect(permissionStillNeeded('https://kibana.corp.example/*', users)).toBe(false);
    // The old API origin with its port, under a site to scan on the same host.
    expect(permissionStillNeeded('http://siem.test:8080/*', users)).toBe(false);
  });
});

describe('giving access back', () => {
  it('"Stop scanning this site" in the popup removes the host permission', async () => {
    const services = createFakeServices({ sitesToScan: ['https://siem.example/*'] });
    services.tab = { id: 3, url: 'https://siem.example/app' };
    services.granted.add('https://siem.example/*');
    services.handlers['ui:set-site-scanning'] = () => ok({ patterns: [] });
    services.tabHandlers['tab:get-page-ips'] = () => ok({ url: 'https://siem.example/app', title: 't', ips: [], scanning: false });
    const store = createPageStore(services, ['https://siem.example/*']);
    await store.load();
    await store.stopSite();
    expect(services.removed).toEqual([['https://siem.example/*']]);
    expect(services.granted.has('https://siem.example/*')).toBe(false);
  });

  it('keeps it when the API is reached through that site', async () => {
    const services = createFakeServices({ sitesToScan: ['https://siem.example/*'], apiBaseUrl: 'https://siem.example/api/v1' });
    services.tab = { id: 3, url: 'https://siem.example/app' };
    services.handlers['ui:set-site-scanning'] = () => ok({ patterns: [] });
    const store = createPageStore(services, ['https://siem.example/*']);
    await store.load();
    await store.stopSite();
    expect(services.removed).toEqual([]);
    const sites = createSitesStore(services);
    await sites.remove('https://siem.example/*', 'https://siem.example/api/v1');
    expect(services.removed).toEqual([]);
  });

  it('changing the API base URL gives the old origin back, unless a site to scan is there', async () => {
    const services = createFakeServices({ apiBaseUrl: 'https://old.example:8443/api/v1', apiKey: 'k' });
    services.handlers['ui:verify-key'] = () => ok(ACCOUNT);
    const form = createApiForm(services);
    form.load(services.stored);
    form.apiBaseUrl.value = 'https://new.example/api/v1';
    await form.save();
    expect(services.requested).toEqual([['https://new.example/*']]);
    expect(services.removed).toEqual([['https://old.example:8443/*']]);

    services.stored = { ...services.stored, sitesToScan: ['https://new.example/*'] };
    form.load(services.stored);
    form.apiBaseUrl.value = 'https://third.example/api/v1';
    await form.save();
    expect(services.removed).toEqual([['https://old.example:8443/*']]);

    // A site to scan on the old API's host, wider than its origin, keeps its own grant only.
    services.stored = { ...services.stored, sitesToScan: ['https://third.example/*'] };
    form.load(services.stored);
    form.apiBaseUrl.value = 'https://fourth.example/api/v1';
    await form.save();
    expect(services.removed).toEqual([['https://old.example:8443/*']]);
  });
});
