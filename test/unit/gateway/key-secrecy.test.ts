/**
 * The organisation key stays on the server, whatever the upstream answers: here an upstream
 * that echoes the key it was sent in every answer, error and header.
 */
import { createServer, type Server } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEmbeddedStore } from '../../../gateway/src/store/embedded-store';
import type { Store } from '../../../gateway/src/store/types';
import { cleanup } from './redis-servers';
import { startGateway, tokenFor, type Harness } from './gateway-harness';

const KEY = 'org-secret-key-0123456789abcdef';
let echo: Server;
let echoUrl: string;
let store: Store;
let harness: Harness;
let dir: string;

beforeAll(async () => {
  echo = createServer((req, res) => {
    const key = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
    res.setHeader('X-Echo', key);
    res.setHeader('Content-Type', 'application/json');
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname.endsWith('/account')) {
      res.end(JSON.stringify({ organization_id: `org ${key}`, api_key: { name: key, current_usage: 1, max_api_requests: 1000 } }));
    } else if (url.pathname.endsWith('/checkIP/bulk')) {
      let text = '';
      req.on('data', (c) => (text += c));
      req.on('end', () => {
        const { ips } = JSON.parse(text) as { ips: string[] };
        res.end(JSON.stringify({
          results: ips.map((ip, i) =>
            i % 2 ? { ip, data: null, error: `failed for key ${key}` } : { ip, data: { ip, score: 50, ip_rep: `seen with ${key}`, total_hits: 1 }, error: null }),
        }));
      });
    } else {
      res.statusCode = 500;
      res.end(JSON.stringify({ error: true, statusCode: 500, message: `Internal error for key ${key}` }));
    }
  });
  await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r));
  echoUrl = `http://127.0.0.1:${(echo.address() as { port: number }).port}/api/v1`;
  dir = mkdtempSync(path.join(tmpdir(), 'gw-key-'));
  store = openEmbeddedStore({ dir, flushMs: 0 });
  harness = await startGateway({ store, upstreamUrl: echoUrl, key: KEY });
});

afterAll(async () => {
  await harness.gateway.close();
  await new Promise((r) => echo.close(r));
  cleanup(dir);
});

describe('the organisation key', () => {
  it('appears in no response body, header, log line or metric', async () => {
    const token = await tokenFor(store, 'alice');
    const headers = { authorization: `Bearer ${token}` };
    const app = harness.gateway.app;
    const responses = [
      await app.inject({ method: 'POST', url: '/api/v1/checkIP/bulk', headers: { ...headers, 'content-type': 'application/json' }, payload: { ips: ['8.8.4.4', '8.8.8.8'] } }),
      await app.inject({ method: 'GET', url: '/api/v1/checkIP?ip=1.0.0.1&detailed=true', headers }),
      await app.inject({ method: 'GET', url: '/api/v1/checkSubnet?cidr=1.0.0.0/30', headers }),
      await app.inject({ method: 'GET', url: '/api/v1/account', headers }),
      await app.inject({ method: 'GET', url: '/api/v1/test-key', headers }),
      await app.inject({ method: 'GET', url: '/readyz' }),
      await app.inject({ method: 'GET', url: '/metrics' }),
    ];
    // The echo did reach the answers (so the test can fail): a bulk row and an error quote it.
    expect(responses[0]!.statusCode).toBe(200);
    expect(responses[0]!.body).toContain('[redacted]');
    // The upstream's 500 (its retry refused by the circuit that failure opened) is reported as
    // the upstream's failure: a 502 whose text quotes the echo, redacted.
    expect(responses[1]!.statusCode).toBe(502);
    expect(responses[1]!.body).toContain('[redacted]');
    for (const response of responses) {
      expect(response.body).not.toContain(KEY);
      expect(JSON.stringify(response.headers)).not.toContain(KEY);
    }
    expect(harness.logs.join('\n')).not.toContain(KEY);
  });
});
