/**
 * Where the key goes, in real Chromium: the configured server's redirects are not followed in
 * either header mode (the other port never sees the key).
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from './fixtures';
import { saveApiSettings } from './ui-helpers';

const CANARY = 'canary-key-7d2e9a';

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

test.describe('redirects', () => {
  const seen: IncomingHttpHeaders[] = [];
  let status = 302;
  let otherPort = 0;
  let redirectPort = 0;
  const other = createServer((req, res) => {
    seen.push(req.headers);
    res.writeHead(200, { 'content-type': 'application/json', 'access-control-allow-origin': '*', 'access-control-allow-headers': '*' });
    res.end('{}');
  });
  const redirecting = createServer((req, res) => {
    res.writeHead(status, { location: `http://127.0.0.1:${otherPort}${req.url ?? '/'}` });
    res.end();
  });
  test.beforeAll(async () => {
    otherPort = await listen(other);
    redirectPort = await listen(redirecting);
  });
  test.afterAll(() => {
    other.close();
    redirecting.close();
  });

  for (const authHeader of ['authorization', 'x-api-key'] as const) {
    for (const code of [302, 307]) {
      test(`a ${code} to another port in ${authHeader} mode is refused and the key never reaches it`, async ({ context, extensionId }) => {
        status = code;
        seen.length = 0;
        const page = await saveApiSettings(context, extensionId, {
          baseUrl: `http://127.0.0.1:${redirectPort}/api/v1`,
          apiKey: CANARY,
          authHeader,
        });
        await expect(page.getByRole('alert')).toContainText('redirected the request');
        expect(seen).toEqual([]);
        await expect(page.getByRole('alert')).not.toContainText(CANARY);
      });
    }
  }
});
