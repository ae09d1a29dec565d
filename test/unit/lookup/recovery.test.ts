/**
 * Failed lookups are re-asked when the server answers again: the service probes with the free
 * /account call while a transient failure lasts and says so once it answers; a rejected key is
 * not probed, and a working new key is the recovery.
 */
import { describe, expect, it, vi } from 'vitest';
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
