import { describe, expect, it } from 'vitest';
import { DEFAULT_PIVOTS } from '@/lib/pivots';
import { createPivotsStore } from '@/lib/ui/options/pivots-store';
import { createFakeServices } from '../fake-services';

function setup() {
  const services = createFakeServices();
  const store = createPivotsStore(services.settings.save);
  store.load(services.stored.pivots);
  return { services, store };
}

describe('pivots editor store', () => {
  it('refuses an invalid template with its message and saves nothing', async () => {
    const { services, store } = setup();
    store.edit(0, { urlTemplate: 'javascript:alert({ip})' });
    expect(store.errors.value.rows[0]).toEqual({ urlTemplate: 'Only https:// links are allowed (this one is javascript:).' });
    await store.commit();
    expect(store.status.value).toEqual({ state: 'invalid' });
    expect(services.stored.pivots).toEqual(DEFAULT_PIVOTS);
    store.edit(0, { urlTemplate: 'https://www.shodan.io/search?query={ip}' });
    await store.commit();
    expect(store.status.value).toEqual({ state: 'saved' });
    expect(services.stored.pivots[0]!.urlTemplate).toBe('https://www.shodan.io/search?query={ip}');
  });

  it('turns one off, adds, removes and resets, saving each complete edit', async () => {
    const { services, store } = setup();
    await store.setEnabled(1, false);
    expect(services.stored.pivots.find((p) => p.id === 'censys')!.enabled).toBe(false);

    store.add();
    expect(store.draft.value.at(-1)).toEqual({ id: 'custom-7', name: '', urlTemplate: 'https://', enabled: true });
    expect(store.errors.value.rows.at(-1)).toEqual({ name: 'Give the service a name.', urlTemplate: 'The URL must contain {ip} exactly once (it has 0).' });
    await store.commit();
    expect(services.stored.pivots).toHaveLength(6);
    store.edit(6, { name: ' SOAR ', urlTemplate: 'https://soar.example/ip/{ip} ' });
    await store.commit();
    expect(services.stored.pivots.at(-1)).toEqual({ id: 'custom-7', name: 'SOAR', urlTemplate: 'https://soar.example/ip/{ip}', enabled: true });

    store.edit(6, { name: 'shodan' });
    expect(store.errors.value.form).toBe('Two services are named "shodan": give each its own name.');
    store.edit(6, { name: 'SOAR' });

    await store.remove(0);
    expect(services.stored.pivots.map((p) => p.id)).toEqual(['censys', 'virustotal', 'abuseipdb', 'greynoise', 'ipinfo', 'custom-7']);
    await store.resetToDefaults();
    expect(services.stored.pivots).toEqual(DEFAULT_PIVOTS);
  });

  it('keeps what is being typed when storage changes elsewhere', () => {
    const { store } = setup();
    store.edit(0, { name: 'Shodan.io' });
    store.load([...DEFAULT_PIVOTS].reverse());
    expect(store.draft.value[0]!.name).toBe('Shodan.io');
    store.load([...DEFAULT_PIVOTS], true);
    expect(store.draft.value[0]!.name).toBe('Shodan');
  });
});
