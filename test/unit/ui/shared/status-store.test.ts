import { describe, expect, it } from 'vitest';
import { createDetailsStore } from '@/lib/ui/popup/details-store';
import { createStatusStore } from '@/lib/ui/shared/status-store';
import { createFakeServices, ok } from '../fake-services';
import { found, IP_INFO, quota, status } from '../samples';

describe('status store', () => {
  it('loads the status and refreshes the quota', async () => {
    const services = createFakeServices();
    let used = 100;
    services.handlers['ui:get-status'] = () => ok(status({ quota: quota({ used }) }));
    services.handlers['ui:refresh-quota'] = () => {
      used = 150;
      return ok(quota({ used }));
    };
    const store = createStatusStore(services);
    await store.load();
    expect(store.status.value?.quota.used).toBe(100);
    await store.refreshQuota();
    expect(store.status.value?.quota.used).toBe(150);
    expect(store.refreshing.value).toBe(false);
  });

  it('keeps the error when the background does not answer', async () => {
    const services = createFakeServices();
    const store = createStatusStore(services);
    await store.load();
    expect(store.error.value?.kind).toBe('unreachable');
  });
});

describe('details store', () => {
  it('loads a detailed lookup for one IP on request', async () => {
    const services = createFakeServices();
    services.handlers['ui:lookup'] = ({ ips }) => ok(ips.map((ip) => found(ip, { ipInfo: IP_INFO })));
    const store = createDetailsStore(services);
    await store.load('185.220.101.4');
    expect(services.sent).toEqual([{ type: 'ui:lookup', payload: { ips: ['185.220.101.4'], detailed: true } }]);
    expect(store.results.value['185.220.101.4']).toMatchObject({ status: 'found', data: { ipInfo: IP_INFO } });
    expect(store.loading.value).toBeNull();
  });

  it('records a failure per IP', async () => {
    const services = createFakeServices();
    services.handlers['ui:lookup'] = () => ({ ok: false, error: { kind: 'rate-limited', message: 'Rate limit exceeded', status: 429 } });
    const store = createDetailsStore(services);
    await store.load('1.2.3.4');
    expect(store.errors.value['1.2.3.4']?.kind).toBe('rate-limited');
  });
});
