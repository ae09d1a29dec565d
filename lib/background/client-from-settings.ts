/**
 * Builds the API client from the settings in force. The lookup service calls this again when
 * the key, base URL or auth header change (the user's or the organisation's policy), so the
 * client is never stale and the key is read only here, in the background.
 */
import { createApiClient, type ApiClientOptions } from '../api';
import type { ClientSetup } from '../lookup/lookup-service';
import { fingerprint } from '../lookup/quota-ledger';
import { gatewaySignIn } from './gateway-sign-in';
import { gatewayApiBase, getSettings, readGatewaySession, readManagedPolicy, usesTeamGateway, type Settings } from '../settings';

/**
 * The server always (the cache belongs to it); a client only when a key is set or a proxy adds
 * it. `shared`: what every client shares with the lookup engine (the circuit per endpoint).
 */
export async function clientFromSettings(shared: Pick<ApiClientOptions, 'circuit'> = {}): Promise<ClientSetup> {
  const [settings, policy] = await Promise.all([getSettings(), readManagedPolicy()]);
  if (usesTeamGateway(settings)) return gatewayClient(settings, shared);
  const server = settings.apiBaseUrl;
  if (policy.proxyAddsKey) {
    // The organisation's proxy adds the key: nothing secret leaves the browser, and the quota
    // ledger belongs to the proxy's key, which all seats share.
    return {
      server,
      handle: { client: createApiClient({ baseUrl: server, apiKey: '', authHeader: 'none', ...shared }), identity: fingerprint(`${server}\nproxy`) },
    };
  }
  // A managed key wins; it is read here only, never by getSettings() (which pages call).
  const apiKey = policy.apiKey ?? settings.apiKey;
  if (!apiKey) return { server, handle: null };
  return {
    server,
    handle: {
      client: createApiClient({ baseUrl: server, apiKey, authHeader: settings.authHeader, ...shared }),
      // The ledger belongs to a key on a server; the auth header does not change whose quota it is.
      identity: fingerprint(`${server}\n${apiKey}`),
    },
  };
}

/** Lookups while the analyst is not signed in say so (never "no key", never a silent unknown). */
const NOT_SIGNED_IN = {
  kind: 'sign-in-again',
  message: "You are not signed in to your team's gateway: sign in with your organisation in Settings.",
} as const;

/**
 * The team gateway, spoken to exactly as the API (it serves the same v1 routes), with the
 * analyst's personal token or the session the organisation sign-in gave. A session issued by
 * another gateway is never sent to this one.
 */
async function gatewayClient(settings: Settings, shared: Pick<ApiClientOptions, 'circuit'>): Promise<ClientSetup> {
  const server = gatewayApiBase(settings.gatewayUrl);
  if (settings.gatewayAuth === 'token') {
    const token = settings.gatewayToken;
    if (!token) return { server, handle: null };
    return {
      server,
      handle: {
        client: createApiClient({ baseUrl: server, apiKey: token, authHeader: 'authorization', teamGateway: true, ...shared }),
        identity: fingerprint(`${server}\n${token}`),
      },
    };
  }
  const session = await readGatewaySession();
  if (!session || session.gatewayUrl !== settings.gatewayUrl) return { server, handle: null, refusal: NOT_SIGNED_IN };
  return {
    server,
    handle: {
      client: createApiClient({
        baseUrl: server,
        apiKey: session.sessionToken,
        authHeader: 'authorization',
        teamGateway: true,
        // A session refused as ended is refreshed once, and the request sent again with it.
        renewKey: () => gatewaySignIn().refresh(),
        ...shared,
      }),
      // The analyst's quota at the gateway, whichever session token (each refresh brings a new one).
      identity: fingerprint(`${server}\nsignin:${session.analyst}`),
    },
  };
}
