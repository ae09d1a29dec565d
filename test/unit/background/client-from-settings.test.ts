import { beforeEach, describe, expect, it } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { clientFromSettings } from '@/lib/background/client-from-settings';
import { saveSettings } from '@/lib/settings';

const A = 'https://a.example/api/v1';
const B = 'https://b.example/api/v1';

beforeEach(() => {
  fakeBrowser.reset();
});

describe('clientFromSettings', () => {
  it('names the server even without a key (the cache belongs to it), and a client only with one', async () => {
    await saveSettings({ apiBaseUrl: A, apiKey: '' });
    expect(await clientFromSettings()).toEqual({ server: A, handle: null });
    await saveSettings({ apiKey: 'key-1' });
    expect(await clientFromSettings()).toMatchObject({ server: A, handle: { identity: expect.any(String) } });
  });

  it('gives the quota ledger a new identity for a new key or server, not for a new auth header', async () => {
    const identity = async () => (await clientFromSettings()).handle?.identity;
    await saveSettings({ apiBaseUrl: A, apiKey: 'key-1', authHeader: 'authorization' });
    const first = await identity();
    await saveSettings({ authHeader: 'x-api-key' });
    expect(await identity()).toBe(first);
    await saveSettings({ apiKey: 'key-2' });
    const otherKey = await identity();
    expect(otherKey).not.toBe(first);
    await saveSettings({ apiBaseUrl: B });
    expect(await identity()).not.toBe(otherKey);
    await saveSettings({ apiKey: 'key-1' });
    expect(await identity()).not.toBe(first);
  });
});
