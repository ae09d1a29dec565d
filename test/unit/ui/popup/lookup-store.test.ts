import { describe, expect, it } from 'vitest';
import { createLookupStore, mayBePaid } from '@/lib/ui/popup/lookup-store';
import { createFakeServices, ok } from '../fake-services';
import { found, IP_INFO } from '../samples';

describe('lookup store', () => {
  it('runs a detailed lookup for one IP', async () => {
    const services = createFakeServices();
    services.handlers['ui:lookup'] = ({ ips }) => ok(ips.map((ip) => found(ip, { ipInfo: IP_INFO })));
    const store = createLookupStore(services);
    await store.submit('185.220.101.4', { sendPrivate: false });
    expect(services.sent).toEqual([{ type: 'ui:lookup', payload: { ips: ['185.220.101.4'], detailed: true } }]);
    expect(store.state.value).toMatchObject({ phase: 'single', result: { status: 'found', data: { ipInfo: IP_INFO } } });
  });

  it('sends nothing for invalid input or a private single IP', async () => {
    const services = createFakeServices();
    const store = createLookupStore(services);
    await store.submit('999.1.1.1', { sendPrivate: false });
    expect(store.state.value).toMatchObject({ phase: 'invalid', message: expect.stringContaining('not a valid IP') });
    await store.submit('192.168.0.1', { sendPrivate: false });
    expect(store.state.value).toEqual({ phase: 'single-skipped', ip: '192.168.0.1', ipClass: 'private' });
    expect(services.sent).toEqual([]);
  });

  it('looks up pasted text in bulk (not detailed) and lists skipped private IPs with the results', async () => {
    const services = createFakeServices();
    services.handlers['ui:lookup'] = ({ ips }) => ok(ips.map((ip, i) => found(ip, { score: 30 + i * 30 })));
    const store = createLookupStore(services);
    await store.submit('a 1.2.3.4 b 10.0.0.1 c 5.6.7.8 d 1.2.3.4', { sendPrivate: false });
    expect(services.sent).toEqual([{ type: 'ui:lookup', payload: { ips: ['1.2.3.4', '5.6.7.8'] } }]);
    const state = store.state.value;
    expect(state.phase).toBe('list');
    if (state.phase !== 'list') return;
    expect(state.summary).toMatchObject({ occurrences: 4, unique: 3, lookedUp: 2, truncated: 0 });
    expect(state.summary.skipped.map((s) => s.ip)).toEqual(['10.0.0.1']);
    expect(state.rows.map((r) => [r.ip, r.count, r.result?.status])).toEqual([
      ['1.2.3.4', 2, 'found'],
      ['5.6.7.8', 1, 'found'],
      ['10.0.0.1', 1, 'skipped'],
    ]);
  });

  it('shows a missing answer as a failure, not as pending', async () => {
    const services = createFakeServices();
    services.handlers['ui:lookup'] = () => ok([found('1.2.3.4')]);
    const store = createLookupStore(services);
    await store.submit('1.2.3.4, 5.6.7.8', { sendPrivate: false });
    const state = store.state.value;
    if (state.phase !== 'list') throw new Error(state.phase);
    expect(state.rows[1]).toMatchObject({ ip: '5.6.7.8', result: { status: 'error' } });
  });

  it('keeps the error of a failed lookup with the input to retry', async () => {
    const services = createFakeServices();
    services.handlers['ui:lookup'] = () => ({ ok: false, error: { kind: 'quota-exhausted', message: 'Usage limit exceeded', status: 403 } });
    const store = createLookupStore(services);
    await store.submit('1.2.3.4', { sendPrivate: false });
    expect(store.state.value).toEqual({
      phase: 'error',
      error: { kind: 'quota-exhausted', message: 'Usage limit exceeded', status: 403 },
      retry: '1.2.3.4',
    });
  });

  it('lets a newer lookup win over a slower older one', async () => {
    const services = createFakeServices();
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => (release = r));
    services.handlers['ui:lookup'] = async ({ ips }) => {
      if (ips[0] === '1.1.1.1') await gate;
      return ok(ips.map((ip) => found(ip)));
    };
    const store = createLookupStore(services);
    const slow = store.submit('1.1.1.1', { sendPrivate: false });
    await store.submit('8.8.8.8', { sendPrivate: false });
    release();
    await slow;
    expect(store.state.value).toMatchObject({ phase: 'single', result: { ip: '8.8.8.8' } });
  });

  it('"Try again" asks only the answers that may be paid, with retryLost, and puts the new answers in place', async () => {
    const services = createFakeServices();
    const lost = { kind: 'timeout' as const, message: 'No answer from the API within 15 s.', lostAfterSend: true };
    services.handlers['ui:lookup'] = ({ ips, retryLost }) =>
      ok(ips.map((ip) => (retryLost || ip === '1.2.3.4' ? found(ip, { score: 40 }) : { ip, status: 'error' as const, error: lost })));
    const store = createLookupStore(services);
    await store.submit('1.2.3.4 5.6.7.8 9.9.9.9', { sendPrivate: false });
    const state = store.state.value;
    expect(state.phase === 'list' && state.rows.filter((row) => row.result && mayBePaid(row.result)).map((row) => row.ip)).toEqual(['5.6.7.8', '9.9.9.9']);
    await store.tryAgain(['5.6.7.8', '9.9.9.9']);
    expect(services.sent.at(-1)).toEqual({ type: 'ui:lookup', payload: { ips: ['5.6.7.8', '9.9.9.9'], retryLost: true } });
    const after = store.state.value;
    expect(after.phase === 'list' && after.rows.map((row) => row.result?.status)).toEqual(['found', 'found', 'found']);
  });
});
