/**
 * Builds the API client from the stored settings. The lookup service calls this again when
 * the key, base URL or auth header change, so the client is never stale and the key is read
 * only here, in the background.
 */
import { createApiClient } from '../api';
import type { ClientHandle } from '../lookup/lookup-service';
import { fingerprint } from '../lookup/quota-ledger';
import { getSettings } from '../settings';

/** null when no key is set: lookups are then answered `skipped: 'no-key'`. */
export async function clientFromSettings(): Promise<ClientHandle | null> {
  const settings = await getSettings();
  if (!settings.apiKey) return null;
  return {
    client: createApiClient({
      baseUrl: settings.apiBaseUrl,
      apiKey: settings.apiKey,
      authHeader: settings.authHeader,
    }),
    // The ledger belongs to a key on a server; the auth header does not change whose quota it is.
    identity: fingerprint(`${settings.apiBaseUrl}\n${settings.apiKey}`),
  };
}
