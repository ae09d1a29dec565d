/**
 * The key goes only to the configured server: a 302/307 from it to another origin (here another
 * loopback port) is not followed in either header mode, and the error names where it pointed.
 * Real sockets and the platform's fetch, so the test sees what actually reaches the other port.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient, type ApiError } from '../../../lib/api';

const KEY = 'canary-key-5f1c0d';

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

let otherPort = 0;
let redirectPort = 0;
const seenByOther: IncomingHttpHeaders[] = [];
let status = 302;

const other = createServer((req, res) => {
  seenByOther.push(req.headers);
  // Approves any CORS preflight and answers like the API would.
  res.writeHead(200, {
    'content-type': 'application/json',
    'access-control-allow-origin': '*',
    'access-control-allow-headers': '*',
  });
  res.end(JSON.stringify({ success: true, key: { name: 'k' } }));
});
const redirecting = createServer((req, res) => {
  res.writeHead(status, { location: `http://127.0.0.1:${otherPort}${req.url ?? '/'}?token=secret` });
  res.end();
});

beforeAll(async () => {
  otherPort = await listen(other);
  redirectPort = await listen(redirecting);
});
afterAll(() => {
  other.close();
  redirecting.close();
});

describe('redirects on API calls', () => {
  for (const authHeader of ['authorization', 'x-api-key'] as const) {
    for (const code of [302, 307]) {
      it(`refuses a ${code} to another port in ${authHeader} mode; the key never gets there`, async () => {
        status = code;
        seenByOther.length = 0;
        const client = createApiClient({
          baseUrl: `http://127.0.0.1:${redirectPort}/api/v1`,
          apiKey: KEY,
          authHeader,
          retry: { limit: 0 },
          timeoutMs: 5_000,
        });
        const error = (await client.account().catch((e: unknown) => e)) as ApiError;
        expect(error.name).toBe('ApiError');
        expect(error.kind).toBe('redirected');
        expect(error.status).toBe(code);
        // Names the target (origin and path), never its query.
        expect(error.message).toContain(`http://127.0.0.1:${otherPort}/api/v1/account`);
        expect(error.message).not.toContain('secret');
        expect(seenByOther).toEqual([]);
        expect(JSON.stringify(error.toJSON())).not.toContain(KEY);
      });
    }
  }

  it('says where it went when the browser hides the target (opaque redirect)', async () => {
    const opaque = { type: 'opaqueredirect', status: 0, ok: false, headers: new Headers(), text: () => Promise.resolve('') };
    const client = createApiClient({
      baseUrl: 'https://ipswamp.com/api/v1',
      apiKey: KEY,
      authHeader: 'x-api-key',
      retry: { limit: 0 },
      fetch: (() => Promise.resolve(opaque as unknown as Response)) as typeof fetch,
    });
    const error = (await client.account().catch((e: unknown) => e)) as ApiError;
    expect(error.kind).toBe('redirected');
    expect(error.message).toMatch(/redirects to an address the browser does not reveal/);
  });
});
