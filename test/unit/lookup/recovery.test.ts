/**
 * Failed lookups are re-asked when the server answers again: the service probes with the free
 * /account call while a transient failure lasts and says so once it answers; a rejected key is
 * not probed, and a working new key is the recovery.
 */
import { describe, expect, it, vi } from 'vitest';
import { createMemoryLedgerStore } from '../../../lib/lookup/quota-ledger';
import { createHarness } from './helpers/service-harness';

function setup() {
  const onRecovered = vi.fn();
  const h = createHarness({ extra: { onRecovered, recoveryProbeMs: { baseMs: 1_000, maxMs: 4_000 } } });
  return { h, onRecovered };
}

describe('LookupService: recovery after failures', () => {
  it('probes /account with back-off while the server is down and announces its return once', async () => {
    const { h, onRecovered } = setup();
    await h.settle(h.service.status());
    const accountsBefore = h.client.accountCalls;
    h.client.bulkFailures.push({ kind: 'network', message: 'Could not reach the API (Failed to fetch).' });
    h.client.accountFailure = { kind: 'network', message: 'Could not reach the API (Failed to fetch).' };
    const [failed] = await h.settle(h.service.lookup(['23.0.0.2'], { priority: 'visible' }));
    expect(failed).toMatchObject({ status: 'error', error: { kind: 'network' } });
    expect((await h.service.status()).lastError).toMatchObject({ kind: 'network' });

    await h.clock.advance(1_000);
    expect(h.client.accountCalls).toBe(accountsBefore + 1);
    // Failed again: the next probe waits twice as long.
    await h.clock.advance(1_999);
    expect(h.client.accountCalls).toBe(accountsBefore + 1);
    h.client.accountFailure = null;
    await h.clock.advance(1);
    expect(h.client.accountCalls).toBe(accountsBefore + 2);
    await h.until(() => onRecovered.mock.calls.length > 0);
    expect(onRecovered).toHaveBeenCalledTimes(1);
    expect((await h.service.status()).lastError).toBeNull();
    // No more probes once it works.
    await h.clock.advance(60_000);
    expect(h.client.accountCalls).toBe(accountsBefore + 2);
  });

  it('any successful lookup ends the failure too', async () => {
    const { h, onRecovered } = setup();
    h.client.bulkFailures.push({ kind: 'server', status: 503, message: 'Service unavailable' });
    await h.settle(h.service.lookup(['23.0.0.2'], { priority: 'visible' }));
    expect(onRecovered).not.toHaveBeenCalled();
    await h.settle(h.service.lookup(['23.0.0.4'], { priority: 'visible' }));
    expect(onRecovered).toHaveBeenCalledTimes(1);
  });

  it('a rejected key is not probed; a new key that works is the recovery', async () => {
    const { h, onRecovered } = setup();
    await h.settle(h.service.status());
    h.client.bulkFailures.push({ kind: 'invalid-key', status: 403, message: 'Invalid API key' });
    await h.settle(h.service.lookup(['23.0.0.2'], { priority: 'visible' }));
    const accounts = h.client.accountCalls;
    await h.clock.advance(30_000);
    expect(h.client.accountCalls).toBe(accounts);
    expect(onRecovered).not.toHaveBeenCalled();
    h.service.credentialsChanged();
    await h.until(() => onRecovered.mock.calls.length > 0);
    expect(onRecovered).toHaveBeenCalledTimes(1);
  });
});

describe('LookupService: recovery across a worker restart', () => {
  function memoryStore() {
    const store = {
      value: undefined as unknown,
      load: async () => structuredClone(store.value),
      save: async (value: unknown) => void (store.value = structuredClone(value)),
    };
    return store;
  }
  const down = { kind: 'network' as const, message: 'Could not reach the API (Failed to fetch).' };
  const ledgerStore = createMemoryLedgerStore();
  const worker = (recoveryStore: ReturnType<typeof memoryStore>, onRecovered = vi.fn()) => {
    // A fresh clock per run: the stopped worker's timers die with it. The ledger is shared, so
    // the next run has no reason of its own to call /account: only a probe would.
    const h = createHarness({ ledgerStore, extra: { onRecovered, recoveryStore, recoveryProbeMs: { baseMs: 1_000, maxMs: 4_000 } } });
    return { h, onRecovered };
  };

  it('a restarted worker knows lookups were failing, keeps probing and announces the return', async () => {
    const store = memoryStore();
    const first = worker(store);
    await first.h.settle(first.h.service.status());
    first.h.client.bulkFailures.push(down);
    first.h.client.accountFailure = down;
    await first.h.settle(first.h.service.lookup(['23.0.0.2'], { priority: 'visible' }));
    await first.h.service.whenIdle();
    expect(store.value).toMatchObject({ failing: true, probing: true });
    // The worker stops here, before its probe. The next one is woken by anything (the popup's status).
    const next = worker(store);
    await next.h.settle(next.h.service.status());
    expect(next.onRecovered).not.toHaveBeenCalled();
    const accounts = next.h.client.accountCalls;
    await next.h.clock.advance(4_000);
    expect(next.h.client.accountCalls).toBe(accounts + 1);
    await next.h.until(() => next.onRecovered.mock.calls.length > 0);
    expect(next.onRecovered).toHaveBeenCalledTimes(1);
    expect(store.value).toMatchObject({ failing: false, probing: false });
  });

  it('a rejected key is remembered as failing without probes: the new key that works is the recovery', async () => {
    const store = memoryStore();
    const first = worker(store);
    await first.h.settle(first.h.service.status());
    first.h.client.bulkFailures.push({ kind: 'invalid-key', status: 403, message: 'Invalid API key' });
    await first.h.settle(first.h.service.lookup(['23.0.0.2'], { priority: 'visible' }));
    await first.h.service.whenIdle();
    expect(store.value).toMatchObject({ failing: true, probing: false });
    const next = worker(store);
    await next.h.settle(next.h.service.status());
    const accounts = next.h.client.accountCalls;
    await next.h.clock.advance(30_000);
    expect(next.h.client.accountCalls).toBe(accounts);
    await next.h.settle(next.h.service.lookup(['23.0.0.4'], { priority: 'visible' }));
    expect(next.onRecovered).toHaveBeenCalledTimes(1);
  });

  it('an unreadable or failing store changes nothing', async () => {
    for (const value of [undefined, 'x', { v: 1, failing: true, probing: true, delayMs: -5 }, { v: 2, failing: true }]) {
      const store = memoryStore();
      store.value = value;
      const { h, onRecovered } = worker(store);
      await h.settle(h.service.status());
      const accounts = h.client.accountCalls;
      await h.clock.advance(30_000);
      expect(h.client.accountCalls).toBe(accounts);
      await h.settle(h.service.lookup(['23.0.0.4'], { priority: 'visible' }));
      expect(onRecovered).not.toHaveBeenCalled();
    }
  });
});
