/**
 * Where the key goes, in real Chromium: the configured server's redirects are not followed in
 * either header mode (the other port never sees the key).
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from './fixtures';
import { extensionUrl, saveApiSettings } from './ui-helpers';

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
        await expect(page.getByRole('alert')).toContainText('redirects to');
        expect(seen).toEqual([]);
        await expect(page.getByRole('alert')).not.toContainText(CANARY);
      });
    }
  }
});

test.describe('plain http', () => {
  test('a remote http:// base URL shows a warning badge and needs "I understand" before Save', async ({ context, extensionId }) => {
    const page = await context.newPage();
    await page.goto(extensionUrl(extensionId, 'options.html'));
    const badge = page.locator('#clear-text-badge');
    await page.getByLabel('API base URL').fill('http://127.0.0.1:9/api/v1');
    await expect(badge).toHaveCount(0);

    await page.getByLabel('API base URL').fill('http://proxy.corp.example/api/v1');
    await expect(badge).toBeVisible();
    await expect(badge).toHaveText(/unencrypted/i);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect(page.getByText('Nothing was saved')).toBeVisible();
    await expect(page.getByText('Tick "I understand the key travels unencrypted"')).toBeVisible();

    await page.getByLabel('I understand the key travels unencrypted').check();
    await expect(page.getByText('Tick "I understand the key travels unencrypted"')).toHaveCount(0);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    // Past the consent, Save goes on to ask for the remote host's permission (the browser's
    // prompt, left unanswered here): the field check no longer stops it.
    await expect(page.getByRole('status').filter({ hasText: 'Saving…' })).toBeVisible();
    await expect(page.getByText('Nothing was saved: fix the fields')).toHaveCount(0);
  });
});
