/**
 * A real OpenID provider (oidc-provider) for the single sign-on tests, on a free loopback port.
 * It issues JWT access tokens for the gateway's audience by the client credentials grant (with
 * a resource indicator), each client's `email` and `groups` added as claims; with `codeFlow`, it
 * also serves the authorization code flow to the gateway, with a login form.
 */
import { createServer, type Server } from 'node:http';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import Provider, { type ResponseType } from 'oidc-provider';
import { freePort } from './redis-servers';

export const GATEWAY_AUDIENCE = 'https://gateway.test/api';
export const OTHER_AUDIENCE = 'https://other-service.test/api';

export interface TestClient {
  id: string;
  secret: string;
  email?: string;
  groups?: string[];
}

export const CLIENTS: Record<'soc' | 'outsider', TestClient> = {
  soc: { id: 'alice-cli', secret: 'alice-cli-secret-value-0123456789', email: 'alice@corp.example', groups: ['soc-analysts'] },
  outsider: { id: 'bob-cli', secret: 'bob-cli-secret-value-0123456789', email: 'bob@corp.example', groups: ['finance'] },
};

export interface TestProvider {
  issuer: string;
  /** A JWT access token for `resource` by the client credentials grant. */
  clientToken(client: TestClient, resource?: string): Promise<string>;
  close(): Promise<void>;
}

/** An RSA signing key; pass the same to two providers to make tokens differing by issuer only. */
export async function signingKey(): Promise<JWK> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  return { ...(await exportJWK(privateKey)), kid: 'test-key-1', alg: 'RS256', use: 'sig' };
}

/** The gateway as a confidential client of the code flow, and the people who can log in. */
export interface CodeFlowOptions {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  /** Login name (the `sub`) → claims; the login form takes any password. */
  accounts: Record<string, { email: string; groups: string[] }>;
}

export async function startProvider(options: { key?: JWK; clients?: TestClient[]; codeFlow?: CodeFlowOptions } = {}): Promise<TestProvider> {
  const port = await freePort();
  const codeFlow = options.codeFlow;
  const issuer = `http://127.0.0.1:${port}`;
  const clients = options.clients ?? Object.values(CLIENTS);
  const byId = new Map(clients.map((c) => [c.id, c]));
  const provider = new Provider(issuer, {
    jwks: { keys: [options.key ?? (await signingKey())] },
    clients: [
      ...clients.map((c) => ({ client_id: c.id, client_secret: c.secret, grant_types: ['client_credentials'], redirect_uris: [], response_types: [] as ResponseType[] })),
      ...(codeFlow ? [{ client_id: codeFlow.clientId, client_secret: codeFlow.clientSecret, grant_types: ['authorization_code'], response_types: ['code'] as ResponseType[], redirect_uris: [codeFlow.redirectUri] }] : []),
    ],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], groups: ['groups'] },
    scopes: ['openid', 'email', 'groups', 'lookup'],
    findAccount: (_ctx, sub) => {
      const account = codeFlow?.accounts[sub];
      if (!account) return undefined;
      return { accountId: sub, claims: () => ({ sub, email: account.email, email_verified: true, groups: account.groups }) };
    },
    features: {
      // Its development login page: a form the test fills and submits as a person would.
      devInteractions: { enabled: !!codeFlow },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => GATEWAY_AUDIENCE,
        getResourceServerInfo: (_ctx, resource) => ({ scope: 'lookup', audience: resource, accessTokenFormat: 'jwt', accessTokenTTL: 300, jwt: { sign: { alg: 'RS256' } } }),
      },
    },
    // Set so the provider does not print a notice for each default it would use.
    ttl: { AccessToken: 300, AuthorizationCode: 60, ClientCredentials: 300, Grant: 3600, IdToken: 300, Interaction: 600, Session: 3600 },
    extraTokenClaims: (_ctx, token) => {
      const client = byId.get((token as { clientId?: string }).clientId ?? '');
      return client ? { email: client.email, groups: client.groups } : undefined;
    },
  });
  const server: Server = createServer(provider.callback());
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    issuer,
    async clientToken(client, resource = GATEWAY_AUDIENCE) {
      const response = await fetch(`${issuer}/token`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: `Basic ${Buffer.from(`${client.id}:${client.secret}`).toString('base64')}` },
        body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'lookup', resource }),
      });
      const body = (await response.json()) as { access_token?: string; error?: string; error_description?: string };
      if (!body.access_token) throw new Error(`token request failed: ${body.error}: ${body.error_description}`);
      return body.access_token;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
