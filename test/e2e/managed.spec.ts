/**
 * Managed deployment in real Chromium: an administrator's policy, delivered by Chromium's own
 * policy machinery into a temp profile (see chromium-policy.ts), reaches chrome.storage.managed
 * through our managed_schema. Options shows the values locked, "Set by your organisation", and
 * never the key; lookups go to the managed server with the managed key; a popup action cannot
 * change a managed site list.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { DEMO_KEY } from '../sim/keys';
import { test as base, expect } from './fixtures';
import { E2E_EXTENSION_DIR } from './chromium';
import { unpackedExtensionId, writeExtensionPolicy } from './chromium-policy';
import { sendFromExtension } from './page-support';
import { extensionUrl, useUiSimulator } from './ui-helpers';

const env = useUiSimulator();

/** Every test's profile starts with an organisation's policy (written before the browser starts). */
const test = base.extend<{ policyKind: 'org' | 'proxy' | 'remote' }>({
  policyKind: ['org', { option: true }],
  userDataDir: async ({ userDataDir, policyKind }, use) => {
    writeExtensionPolicy(userDataDir, unpackedExtensionId(E2E_EXTENSION_DIR), POLICIES[policyKind]());
    await use(userDataDir);
  },
});

/**
 * The organisation's proxy: adds the key (X-API-Key) and forwards to the simulator. It records
 * the headers the extension sent, to prove no key left the browser.
 */
const proxy = { server: null as Server | null, port: 0, seen: [] as IncomingHttpHeaders[] };
test.beforeAll(async () => {
  proxy.server = createServer((req, res) => {
    proxy.seen.push(req.headers);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers: Record<string, string> = { 'X-API-Key': DEMO_KEY, Accept: 'application/json' };
      if (req.headers['content-type']) headers['Content-Type'] = req.headers['content-type'];
      void fetch(`${env.ui.sim.origin}${req.url}`, { method: req.method, headers, ...(chunks.length ? { body: Buffer.concat(chunks) } : {}) })
        .then(async (answer) => {
          res.writeHead(answer.status, { 'Content-Type': answer.headers.get('content-type') ?? 'application/json' });
          res.end(Buffer.from(await answer.arrayBuffer()));
        })
        .catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => proxy.server!.listen(0, '127.0.0.1', resolve));
  proxy.port = (proxy.server.address() as { port: number }).port;
});
test.afterAll(() => new Promise<void>((resolve) => (proxy.server ? proxy.server.close(() => resolve()) : resolve())));

const POLICIES = {
  org: orgPolicy,
  proxy: proxyPolicy,
  // An origin outside the manifest: a policy cannot grant host access, a user's click must.
  remote: () => ({ apiBaseUrl: 'https://ip-api.corp.example/api/v1', apiKey: DEMO_KEY }),
};

function proxyPolicy(): Record<string, unknown> {
  const prefix = new URL(env.ui.sim.baseUrl).pathname;
  return { apiBaseUrl: `http://127.0.0.1:${proxy.port}${prefix}`, proxyAddsKey: true };
}

/** Built per test: the simulator's port is known only once it runs. */
function orgPolicy(): Record<string, unknown> {
  return {
    apiBaseUrl: env.ui.sim.baseUrl,
    apiKey: DEMO_KEY,
    sitesToScan: [`${env.ui.sim.origin}/pages/*`],
    thresholds: { critical: 95, high: 80, medium: 50, low: 20 },
    // perPageCap passes Chrome's schema (an integer) but not ours (at least 1): ignored, named.
    lookupPolicy: { reservePercent: 25, perPageCap: -5 },
    markStyle: 'background',
    pivots: [{ id: 'corp-intel', name: 'Corp intel', urlTemplate: 'https://intel.corp.example/ip/{ip}', enabled: true }],
  };
}

test.describe('managed by policy', () => {
  test('options shows managed values locked and "Set by your organisation", hides the key, names ignored values', async ({ context, extensionId }) => {
    const page = await context.newPage();
    await page.goto(extensionUrl(extensionId, 'options.html'));
    await expect(page.getByRole('heading', { name: 'Managed by your organisation' })).toBeVisible();
    const url = page.getByLabel('API base URL');
    await expect(url).toHaveValue(env.ui.sim.baseUrl);
    await expect(url).toBeDisabled();
    await expect(page.locator('#api-base-url-help')).toContainText('Set by your organisation');
    // The managed key: not in a field, not masked, not anywhere in the page.
    await expect(page.locator('input#api-key')).toHaveCount(0);
    await expect(page.getByText("Only the extension's background uses it")).toBeVisible();
    expect(await page.content()).not.toContain(DEMO_KEY);
    // Lookup policy: the managed field locked, the invalid one ignored (editable, user's value).
    await expect(page.getByLabel('Quota reserve (%)')).toHaveValue('25');
    await expect(page.getByLabel('Quota reserve (%)')).toBeDisabled();
    await expect(page.getByLabel('Per-page cap')).toBeEnabled();
    await expect(page.getByLabel('Per-page cap')).toHaveValue('500');
    await expect(page.getByRole('alert').filter({ hasText: 'ignored' })).toContainText('lookupPolicy.perPageCap');
    await expect(page.getByLabel('Critical from score')).toHaveValue('95');
    await expect(page.getByLabel('Critical from score')).toBeDisabled();
    await expect(page.getByLabel('Background')).toBeChecked();
    await expect(page.getByLabel('Background')).toBeDisabled();
    // Sites: the managed list, with no Remove and no Add.
    await expect(page.getByText(`${env.ui.sim.origin}/pages/*`)).toBeVisible();
    // (Scoped to the sites section: "Open in …" has Remove buttons of its own, not locked here.)
    const sites = page.getByRole('region', { name: 'Sites to scan' });
    await expect(sites.getByRole('button', { name: /^Remove / })).toHaveCount(0);
    await expect(page.getByLabel('Site to add')).toHaveCount(0);
    // "Open in …": the organisation's list, locked as a whole.
    const pivots = page.getByRole('region', { name: 'Open in …' });
    await expect(pivots.getByText('Set by your organisation')).toBeVisible();
    await expect(pivots.getByLabel('URL template of Corp intel')).toHaveValue('https://intel.corp.example/ip/{ip}');
    await expect(pivots.getByLabel('URL template of Corp intel')).toBeDisabled();
    await expect(pivots.getByRole('button', { name: 'Add a service' })).toBeDisabled();
  });

  test('lookups use the managed server and key; a popup action cannot drop a managed site', async ({ context, extensionId }) => {
    const reply = await sendFromExtension(context, extensionId, { type: 'ui:lookup', payload: { ips: ['185.220.101.1'] } });
    expect(reply.ok).toBe(true);
    expect(env.ui.sim.requestLog.some((e) => e.path.startsWith('/check'))).toBe(true);
    expect(env.ui.sim.usage(DEMO_KEY)).toBeGreaterThan(0);
    const stop = await sendFromExtension(context, extensionId, {
      type: 'ui:set-site-scanning',
      payload: { pattern: `${env.ui.sim.origin}/pages/*`, enabled: false },
    });
    expect(stop.ok).toBe(false);
    expect(stop.error?.message).toContain('Set by your organisation');
  });
});

test.describe('a proxy that adds the key', () => {
  test.use({ policyKind: 'proxy' });

  test('no key leaves the browser, lookups still work, and options says the proxy adds the key', async ({ context, extensionId }) => {
    proxy.seen = [];
    const reply = await sendFromExtension(context, extensionId, { type: 'ui:lookup', payload: { ips: ['185.220.101.1'] } });
    expect(reply.ok).toBe(true);
    expect(proxy.seen.length).toBeGreaterThan(0);
    for (const headers of proxy.seen) {
      expect(headers).not.toHaveProperty('authorization');
      expect(headers).not.toHaveProperty('x-api-key');
    }
    // The simulator saw the proxy's key.
    expect(env.ui.sim.requestLog.some((e) => e.path.startsWith('/check') && e.key === DEMO_KEY)).toBe(true);
    const page = await context.newPage();
    await page.goto(extensionUrl(extensionId, 'options.html'));
    await expect(page.getByText("Your organisation's proxy adds the key")).toBeVisible();
    await expect(page.getByLabel('Header mode')).toBeDisabled();
  });
});

test.describe('a managed API origin without host access', () => {
  test.use({ policyKind: 'remote' });

  test('options offers "Grant access" for it at the top', async ({ context, extensionId }) => {
    const page = await context.newPage();
    await page.goto(extensionUrl(extensionId, 'options.html'));
    await expect(page.getByRole('alert').filter({ hasText: 'has not granted access to https://ip-api.corp.example/*' })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Grant access to https://ip-api.corp.example/*' })).toBeVisible();
    await expect(page.getByLabel('API base URL')).toHaveValue('https://ip-api.corp.example/api/v1');
  });
});
