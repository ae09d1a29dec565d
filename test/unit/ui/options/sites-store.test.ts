import { describe, expect, it } from 'vitest';
import { createSitesStore } from '@/lib/ui/options/sites-store';
import { createFakeServices, ok } from '../fake-services';

function setup() {
  const services = createFakeServices();
  let patterns: string[] = [];
  services.handlers['ui:set-site-scanning'] = ({ pattern, enabled }) => {
    patterns = enabled ? [...new Set([...patterns, pattern])] : patterns.filter((p) => p !== pattern);
    return ok({ patterns });
  };
  return { services, store: createSitesStore(services) };
}

describe('sites store', () => {
  it('validates the draft as the user types', async () => {
    const { store } = setup();
    expect(store.draftError.value).toBeNull();
    store.draft.value = 'kibana';
    expect(store.draftError.value).toContain('match pattern');
    store.draft.value = 'https://kibana.example.org/app';
    expect(store.draftError.value).toBeNull();
    expect(store.parsed.value).toMatchObject({ ok: true, pattern: 'https://kibana.example.org/*' });
    await store.load(['https://kibana.example.org/*']);
    expect(store.draftError.value).toContain('already in the list');
  });

  it('adds a site when access is granted and shows its permission', async () => {
    const { services, store } = setup();
    store.draft.value = 'kibana.example.org';
    await store.add('https://kibana.example.org/*', services.permissions.request(['https://kibana.example.org/*']));
    expect(store.patterns.value).toEqual(['https://kibana.example.org/*']);
    expect(store.granted.value).toEqual({ 'https://kibana.example.org/*': true });
    expect(store.draft.value).toBe('');
  });

  it('adds nothing when access is refused', async () => {
    const { services, store } = setup();
    services.denyRequests = true;
    await store.add('https://x.example/*', services.permissions.request(['https://x.example/*']));
    expect(services.sent).toEqual([]);
    expect(store.notice.value).toContain('did not grant');
  });

  it('removes a site and gives its access back, but not the API origin', async () => {
    const { services, store } = setup();
    await store.add('https://a.example/*', Promise.resolve(true));
    await store.add('https://api.example/*', Promise.resolve(true));
    await store.remove('https://a.example/*', 'https://api.example/*');
    await store.remove('https://api.example/*', 'https://api.example/*');
    expect(store.patterns.value).toEqual([]);
    expect(services.removed).toEqual([['https://a.example/*']]);
  });
});
