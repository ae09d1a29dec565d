/**
 * A lookup the message client sends again after its channel closed (the worker stopped while it
 * answered) is not the analyst asking again: the IPs of the interrupted call are answered
 * 'interrupted' (they may be paid already) unless /account proves that call was not billed.
 */
import { describe, expect, it } from 'vitest';
import { FakeApiClient } from './helpers/fake-api-client';
import { createHarness } from './helpers/service-harness';

const IPS = ['23.0.0.2', '23.0.0.4'];

/** A journal as a stopped worker leaves it: one call open, sent when the server's count was 40. */
function journalOfStoppedWorker() {
  const store = {
    value: { v: 1, calls: [{ id: 1, identity: 'key-1', ips: IPS, usedBefore: 40 }], interrupted: [] } as unknown,
    load: async () => structuredClone(store.value),
    save: async (value: unknown) => void (store.value = structuredClone(value)),
  };
  return store;
}

describe('a transport resend of a manual lookup', () => {
  it('answers the interrupted IPs "interrupted" when /account shows usage grew since the call left', async () => {
    const client = new FakeApiClient();
    client.account_ = { used: 41, limit: 1000 };
    const h = createHarness({ client, extra: { journalStore: journalOfStoppedWorker() } });
    const results = await h.settle(h.service.lookup([...IPS, '23.0.0.6'], { priority: 'manual', resent: true }));
    expect(results.slice(0, 2)).toEqual(IPS.map((ip) => ({ ip, status: 'skipped', reason: 'interrupted' })));
    expect(results[2]!.status).not.toBe('skipped');
    expect(client.bulkCalls.flat()).toEqual(['23.0.0.6']);
  });

  it('sends them when /account proves the interrupted call was not billed', async () => {
    const client = new FakeApiClient();
    client.account_ = { used: 40, limit: 1000 };
    const h = createHarness({ client, extra: { journalStore: journalOfStoppedWorker() } });
    const results = await h.settle(h.service.lookup(IPS, { priority: 'manual', resent: true }));
    expect(results.every((r) => r.status !== 'skipped')).toBe(true);
    expect(client.bulkCalls.flat().sort()).toEqual([...IPS].sort());
  });

  it('the analyst asking on purpose (not a resend) sends them, as before', async () => {
    const client = new FakeApiClient();
    client.account_ = { used: 41, limit: 1000 };
    const h = createHarness({ client, extra: { journalStore: journalOfStoppedWorker() } });
    await h.settle(h.service.lookup(IPS, { priority: 'manual' }));
    expect(client.bulkCalls.flat().sort()).toEqual([...IPS].sort());
  });
});
