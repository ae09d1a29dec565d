/** Helpers for contract tests: the real client pointed at a real simulator. */
import { createServer, type AddressInfo } from 'node:net';
import { createApiClient } from '../../../lib/api';
import type { ApiClient, ApiClientOptions, RetryPolicy } from '../../../lib/api/types';
import { DEMO_KEY } from '../../sim/keys';
import type { RequestLogEntry, Simulator } from '../../sim/server';

/** Tiny delays so retry tests stay fast; Retry-After up to 5 s is still honoured. */
export const FAST_RETRY: RetryPolicy = { limit: 3, baseDelayMs: 1, maxDelayMs: 5, maxRetryAfterMs: 5_000, maxElapsedMs: 15_000 };

export function clientFor(sim: Simulator, overrides: Partial<ApiClientOptions> = {}): ApiClient {
  return createApiClient({
    baseUrl: sim.baseUrl,
    apiKey: DEMO_KEY,
    authHeader: 'authorization',
    retry: FAST_RETRY,
    timeoutMs: 5_000,
    ...overrides,
  });
}

export function requestsTo(sim: Simulator, path: string): RequestLogEntry[] {
  return sim.requestLog.filter((entry) => entry.path === path);
}

/** A fetch that removes the auth headers: the only way to make the client send no key. */
export const fetchWithoutKey: typeof fetch = (input, init = {}) => {
  const headers = { ...(init.headers as Record<string, string>) };
  delete headers.Authorization;
  delete headers['X-API-Key'];
  return fetch(input, { ...init, headers });
};

/** A loopback port nothing listens on: bind a free one, note it, release it. */
export function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
