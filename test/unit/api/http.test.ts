/**
 * Transport details that are easiest to see with a recording fetch: URL joining, headers,
 * cookies, cancellation, timeouts and failures before any request. The behaviour against a
 * real server is in the contract-*.test.ts files.
 */
import { describe, expect, it } from 'vitest';
import { createApiClient } from '../../../lib/api';
import type { ApiClientOptions } from '../../../lib/api/types';
import { DOC_SINGLE } from './wire-examples';

interface Call {
  url: string;
  init: RequestInit;
}

function recordingFetch(respond: (call: Call) => Promise<Response> | Response = () => Response.json(DOC_SINGLE)) {
  const calls: Call[] = [];
  const fetch = (async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const call = { url: String(input), init };
    calls.push(call);
    return respond(call);
  }) as typeof globalThis.fetch;
  return { fetch, calls };
}

const options = (overrides: Partial<ApiClientOptions> = {}): ApiClientOptions => ({
  baseUrl: 'https://ipswamp.com/api/v1',
  apiKey: 'k-123',
  authHeader: 'authorization',
  retry: { limit: 0 },
  ...overrides,
});

describe('requests', () => {
  it('joins the base URL with or without a trailing slash and encodes the query', async () => {
    for (const baseUrl of ['https://ipswamp.com/api/v1', 'https://ipswamp.com/api/v1/', ' https://ipswamp.com/api/v1// ']) {
      const { fetch, calls } = recordingFetch();
      await createApiClient(options({ baseUrl, fetch })).checkIp('2a0b:4140:ddd::1', { detailed: true });
      expect(calls[0]!.url).toBe('https://ipswamp.com/api/v1/checkIP?ip=2a0b%3A4140%3Addd%3A%3A1&detailed=true');
    }
  });

  it('leaves detailed out unless asked', async () => {
    const { fetch, calls } = recordingFetch();
    await createApiClient(options({ fetch })).checkIp('8.8.8.8');
    expect(calls[0]!.url).toBe('https://ipswamp.com/api/v1/checkIP?ip=8.8.8.8');
  });

  it('sends Authorization: Bearer or X-API-Key, never cookies', async () => {
    const bearer = recordingFetch();
    await createApiClient(options({ fetch: bearer.fetch })).checkIp('8.8.8.8');
    expect(bearer.calls[0]!.init.headers).toMatchObject({ Authorization: 'Bearer k-123', Accept: 'application/json' });
    expect(bearer.calls[0]!.init.credentials).toBe('omit');

    const header = recordingFetch();
    await createApiClient(options({ fetch: header.fetch, authHeader: 'x-api-key', apiKey: '  k-456 ' })).checkIp('8.8.8.8');
    expect(header.calls[0]!.init.headers).toMatchObject({ 'X-API-Key': 'k-456' });
    expect(header.calls[0]!.init.headers).not.toHaveProperty('Authorization');
  });

  it('posts bulk bodies as JSON', async () => {
    const { fetch, calls } = recordingFetch(() => Response.json({ results: [] }));
    await createApiClient(options({ fetch })).checkIpBulk(['1.2.3.4']);
    expect(calls[0]!.init.method).toBe('POST');
    expect(calls[0]!.init.headers).toMatchObject({ 'Content-Type': 'application/json' });
    expect(JSON.parse(String(calls[0]!.init.body))).toEqual({ ips: ['1.2.3.4'] });
  });
});

describe('failures before any request', () => {
  it('an empty key is missing-key without calling the server', async () => {
    const { fetch, calls } = recordingFetch();
    const client = createApiClient(options({ fetch, apiKey: '   ' }));
    await expect(client.checkIp('8.8.8.8')).rejects.toMatchObject({ kind: 'missing-key' });
    await expect(client.account()).rejects.toMatchObject({ kind: 'missing-key' });
    await expect(client.checkIpBulk(['8.8.8.8'])).rejects.toMatchObject({ kind: 'missing-key' });
    expect(calls).toHaveLength(0);
  });

  it('a malformed IP or CIDR is bad-request without calling the server', async () => {
    const { fetch, calls } = recordingFetch();
    const client = createApiClient(options({ fetch }));
    await expect(client.checkIp('127.1')).rejects.toMatchObject({ kind: 'bad-request' });
    await expect(client.checkIp('3232235777')).rejects.toMatchObject({ kind: 'bad-request' });
    await expect(client.checkSubnet('1.2.0.0/16')).rejects.toMatchObject({ kind: 'bad-request' });
    await expect(client.checkSubnet('nonsense')).rejects.toMatchObject({ kind: 'bad-request' });
    expect(calls).toHaveLength(0);
  });

  it('a bulk of only malformed IPs is answered locally', async () => {
    const { fetch, calls } = recordingFetch();
    const result = await createApiClient(options({ fetch })).checkIpBulk(['0x7f.1', 'abc', 'abc']);
    expect(result).toEqual({
      items: [
        { ip: '0x7f.1', status: 'error', kind: 'bad-request', message: 'Not a valid IP address' },
        { ip: 'abc', status: 'error', kind: 'bad-request', message: 'Not a valid IP address' },
      ],
      requests: 0,
    });
    expect(calls).toHaveLength(0);
  });

  it('an empty bulk needs nothing', async () => {
    const { fetch, calls } = recordingFetch();
    expect(await createApiClient(options({ fetch })).checkIpBulk([])).toEqual({ items: [], requests: 0 });
    expect(calls).toHaveLength(0);
  });

  it('a base URL that is not http(s) is reported, not fetched', async () => {
    const { fetch, calls } = recordingFetch();
    await expect(createApiClient(options({ fetch, baseUrl: 'ipswamp.com/api' })).account()).rejects.toMatchObject({ kind: 'network' });
    await expect(createApiClient(options({ fetch, baseUrl: 'ftp://ipswamp.com' })).account()).rejects.toMatchObject({ kind: 'network' });
    expect(calls).toHaveLength(0);
  });
});

describe('transport failures', () => {
  it('a rejected fetch is network, with the cause kept', async () => {
    const cause = new TypeError('Failed to fetch');
    const { fetch } = recordingFetch(() => Promise.reject(cause));
    const error = await createApiClient(options({ fetch })).account().catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'network', cause });
  });

  it('no answer within timeoutMs is timeout', async () => {
    const { fetch } = recordingFetch(
      ({ init }) =>
        new Promise<Response>((_, reject) => {
          init.signal!.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
        }),
    );
    await expect(createApiClient(options({ fetch, timeoutMs: 20 })).account()).rejects.toMatchObject({ kind: 'timeout' });
  });

  it("the caller's abort rejects with the caller's reason, not an ApiError", async () => {
    const controller = new AbortController();
    const reason = new DOMException('page closed', 'AbortError');
    const { fetch } = recordingFetch(
      ({ init }) =>
        new Promise<Response>((_, reject) => {
          init.signal!.addEventListener('abort', () => reject(init.signal!.reason));
          controller.abort(reason);
        }),
    );
    await expect(createApiClient(options({ fetch })).checkIp('8.8.8.8', { signal: controller.signal })).rejects.toBe(reason);
  });

  it('a 200 that is not JSON is bad-response', async () => {
    const { fetch } = recordingFetch(() => new Response('<html><title>Login</title></html>', { headers: { 'Content-Type': 'text/html' } }));
    await expect(createApiClient(options({ fetch })).checkIp('8.8.8.8')).rejects.toMatchObject({ kind: 'bad-response', status: 200 });
  });

  it('a checkIP 404 counts as not-found only with a JSON body', async () => {
    const json = recordingFetch(() => Response.json({ error: true, statusCode: 404, message: 'IP not found' }, { status: 404 }));
    await expect(createApiClient(options({ fetch: json.fetch })).checkIp('4.2.2.2')).resolves.toEqual({ status: 'not-found', ip: '4.2.2.2' });
    const html = recordingFetch(() => new Response('<title>404 Not Found</title>', { status: 404 }));
    await expect(createApiClient(options({ fetch: html.fetch })).checkIp('4.2.2.2')).rejects.toMatchObject({ kind: 'not-found', status: 404 });
  });
});

describe('secrets in error text', () => {
  const KEY = 'echo-canary-key-42';
  for (const authHeader of ['authorization', 'x-api-key'] as const) {
    it(`a server that echoes the key in its 403 does not put it in the error (${authHeader})`, async () => {
      const { fetch } = recordingFetch(() =>
        Response.json({ success: false, message: `Invalid API key: ${KEY} (header ${authHeader === 'x-api-key' ? 'X-API-Key' : `Bearer ${KEY}`})` }, { status: 403 }),
      );
      const error = await createApiClient(options({ fetch, authHeader, apiKey: KEY })).checkIp('8.8.8.8').catch((e: unknown) => e);
      expect(error).toMatchObject({ kind: 'invalid-key', status: 403 });
      expect(JSON.stringify(error)).not.toContain(KEY);
      expect((error as Error).message).toContain('Invalid API key: [redacted]');
    });
  }

  it('a fetch failure quoting credentials in the URL is cleaned', async () => {
    const fetch = (() => Promise.reject(new TypeError('Request cannot be constructed from a URL that includes credentials: http://u:p4ss@x.example/api'))) as typeof globalThis.fetch;
    const error = await createApiClient(options({ fetch })).account().catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'network' });
    expect((error as Error).message).not.toContain('p4ss');
  });
});

describe('redirects', () => {
  it('are never followed: fetch is told redirect "manual"', async () => {
    const { fetch, calls } = recordingFetch();
    await createApiClient(options({ fetch })).checkIp('8.8.8.8');
    expect(calls[0]!.init.redirect).toBe('manual');
  });

  it("a browser's opaque redirect (Location hidden) is refused, saying the target is hidden", async () => {
    const opaque = { type: 'opaqueredirect', status: 0, ok: false, headers: new Headers(), text: async () => '' } as unknown as Response;
    const { fetch } = recordingFetch(() => opaque);
    await expect(createApiClient(options({ fetch })).checkIpBulk(['8.8.8.8'])).rejects.toMatchObject({
      kind: 'redirected',
      message: expect.stringContaining('an address the browser does not reveal'),
    });
  });

  it('a relative Location is named as the absolute URL it points to', async () => {
    const { fetch } = recordingFetch(() => new Response(null, { status: 307, headers: { Location: '/v2/checkIP?ip=8.8.8.8' } }));
    await expect(createApiClient(options({ fetch })).checkIp('8.8.8.8')).rejects.toMatchObject({
      kind: 'redirected',
      status: 307,
      message: expect.stringContaining('redirects to https://ipswamp.com/v2/checkIP.'),
    });
  });
});
