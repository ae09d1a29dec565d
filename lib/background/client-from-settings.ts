/**
 * Builds the API client from the stored settings. The lookup service calls this again when
 * the key, base URL or auth header change, so the client is never stale and the key is read
 * only here, in the background.
 */
import { createApiClient } from '../api';
import type { ClientSetup } from '../lookup/lookup-service';
import { fingerprint } from '../lookup/quota-ledger';
import { getSettings } from '../settings';

/** The server always (the cache belongs to it); a client only when a key is set. */
export async function clientFromSettings(): Promise<ClientSetup> {
  const settings = await getSettings();
  const server = settings.apiBaseUrl;
  if (!settings.apiKey) return { server, handle: null };
  return {
    server,
    handle: {
      client: createApiClient({
        baseUrl: server,
        apiKey: settings.apiKey,
        authHeader: settings.authHeader,
      }),
      // The ledger belongs to a key on a server; the auth header does not change whose quota it is.
      identity: fingerprint(`${server}\n${settings.apiKey}`),
    },
  };
}
