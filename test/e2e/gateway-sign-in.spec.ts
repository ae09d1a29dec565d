/**
 * "Sign in with your organisation" end to end in Chromium: a real OpenID provider
 * (oidc-provider, its development login pages), the team gateway with sign-in on (embedded
 * store, the API simulator upstream), and the built extension. The analyst signs in from
 * Options; launchWebAuthFlow's window is a page of the browser context, filled as a person
 * would. Then: a lookup through the gateway, a session refused as ended and renewed with the
 * refresh token, the sign-in maximum passed (the popup says "Sign in again"), sign out.
 * The gateway's clock is moved forward rather than waiting for real expiry.
 */
import type { BrowserContext, Page } from '@playwright/test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ASYMMETRIC_ALGORITHMS } from '../../gateway/src/config';
import { openEmbeddedStore } from '../../gateway/src/store/embedded-store';
import { DEMO_KEY } from '../sim/keys';
import type { Simulator } from '../sim/server';
import { startGateway, type Harness } from '../unit/gateway/gateway-harness';
import { GATEWAY_AUDIENCE, startProvider, type TestProvider } from '../unit/gateway/oidc-provider';
import { freePort } from '../unit/gateway/redis-servers';
import { auditPage } from './axe';
import { expect, launchWithExtension, serviceWorkerOf, test } from './fixtures';
import { sendFromExtension, startPageSimulator } from './page-support';

const CLIENT = { clientId: 'ipl-gateway', clientSecret: 'gateway-client-secret-0123456789abcdef' };
const SESSION_TTL_MS = 15 * 60_000;
const SIGN_IN_MAX_MS = 60 * 60_000;

let sim: Simulator;
let idp: TestProvider;
let harness: Harness;
let origin: string;
let skewMs = 0;
let context: BrowserContext;
let extensionId: string;
const dirs: string[] = [];

test.beforeAll(async () => {
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  [sim, idp] = await Promise.all([
    startPageSimulator(),
    startProvider({
      codeFlow: { ...CLIENT, redirectUri: `${origin}/auth/callback`, accounts: { alice: { email: 'alice@corp.example', groups: ['soc-analysts'] } } },
    }),
  ]);
  const dir = mkdtempSync(path.join(tmpdir(), 'iplens-signin-'));
  dirs.push(dir);
  harness = await startGateway({
    store: openEmbeddedStore({ dir, flushMs: 0 }),
    upstreamUrl: sim.baseUrl,
    key: DEMO_KEY,
    oidc: { issuer: idp.issuer, audience: GATEWAY_AUDIENCE, algorithms: [...ASYMMETRIC_ALGORITHMS], group: 'soc-analysts', groupClaim: 'groups', budget: null },
    signIn: { ...CLIENT, publicUrl: origin, scopes: 'openid email groups', redirects: null, sessionTtlMs: SESSION_TTL_MS, signInMaxMs: SIGN_IN_MAX_MS },
    now: () => Date.now() + skewMs,
  });
  await harness.gateway.app.listen({ host: '127.0.0.1', port });
  const profile = mkdtempSync(path.join(tmpdir(), 'iplens-e2e-'));
  dirs.push(profile);
  context = await launchWithExtension(profile);
  extensionId = new URL((await serviceWorkerOf(context)).url()).host;
});

test.afterAll(async () => {
  await context?.close();
  await harness?.gateway.close();
  await Promise.all([sim?.close(), idp?.close()]);
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** What launchWebAuthFlow's window shows: the provider's login page, then its consent page. */
async function logInAtProvider(window: Page, login: string): Promise<void> {
  await window.waitForLoadState();
  await window.locator('input[name="login"]').fill(login);
  await window.locator('input[name="password"]').fill('any password');
  await window.locator('button[type="submit"]').click();
  // The consent page (first sign-in of this client): one button.
  await window.locator('button[type="submit"]').click();
}

/**
 * Sign in from Options. `login: false`: the provider still has the browser's session and
 * consent, so the flow finishes without showing a window (Chromium shows one only when a page
 * stays for the user).
 */
async function signInFromOptions(options: Page, { login }: { login: boolean }): Promise<void> {
  const button = options.getByRole('button', { name: 'Sign in with your organisation' });
  await expect(button).toBeEnabled();
  if (login) {
    const [window] = await Promise.all([context.waitForEvent('page', { timeout: 15_000 }), button.click()]);
    await logInAtProvider(window, 'alice');
  } else {
    await button.click();
  }
  await expect(options.getByText('Signed in as sso:alice@corp.example', { exact: true })).toBeVisible({ timeout: 15_000 });
}

const lookup = (ip: string) =>
  sendFromExtension(context, extensionId, { type: 'ui:lookup', payload: { ips: [ip] } }) as Promise<{
    ok: boolean;
    value?: { ip: string; status: string; error?: { kind: string; message: string } }[];
  }>;

/** Every gateway log line naming the analyst's lookups (the audit trail). */
const auditedLookups = () =>
  harness.logs.map((l) => JSON.parse(l) as { audit?: string; token?: string }).filter((e) => e.audit === 'lookup' && e.token === 'sso:alice@corp.example').length;

test('sign in with the organisation, look up, refresh, sign-in maximum → Sign in again, sign out', async () => {
  test.setTimeout(60_000);
  const options = await context.newPage();
  await options.goto(`chrome-extension://${extensionId}/options.html`);
  await options.getByLabel("Use my team's gateway").check();
  await options.getByLabel('Gateway address').fill(origin);
  await options.getByLabel('Sign in with your organisation').check();
  await options.getByRole('button', { name: 'Save gateway' }).click();
  await expect(options.getByText("Saved. Lookups go through your team's gateway.")).toBeVisible();
  await signInFromOptions(options, { login: true });
  // The section open and signed in, in both colour schemes: no WCAG violation.
  for (const colorScheme of ['light', 'dark'] as const) {
    expect((await auditPage(options, { colorScheme, include: ['section[aria-labelledby="gateway-heading"]'] })).summary).toBe('');
  }

  // A lookup through the gateway with the session.
  const first = await lookup('185.220.101.1');
  expect(first.value?.[0]).toMatchObject({ ip: '185.220.101.1', status: 'found' });
  expect(auditedLookups()).toBeGreaterThan(0);

  // The session token ends (the gateway's clock passes its life): the next lookup is refused,
  // refreshed with the refresh token, and sent again; the analyst sees nothing of it.
  skewMs = SESSION_TTL_MS + 60_000;
  const second = await lookup('23.129.64.130');
  expect(second.value?.[0]).toMatchObject({ ip: '23.129.64.130', status: 'found' });

  // Past the sign-in maximum the refresh token is refused too: "Sign in again", in the popup.
  skewMs = SIGN_IN_MAX_MS + 60_000;
  const third = await lookup('45.33.32.156');
  expect(third.value?.[0]).toMatchObject({ status: 'error', error: { kind: 'sign-in-again' } });
  const popup = await context.newPage();
  await popup.goto(`chrome-extension://${extensionId}/popup.html`);
  await popup.getByLabel('IP address or text').fill('8.8.8.8');
  await popup.getByRole('button', { name: 'Look up' }).click();
  await expect(popup.getByText('Sign in again').first()).toBeVisible();
  await popup.close();

  // Sign in again (the gateway clock stays ahead: a new sign-in starts a new maximum).
  await options.reload();
  await signInFromOptions(options, { login: false });
  // An IP not answered before (the failed one): asked through the gateway again.
  expect((await lookup('45.33.32.156')).value?.[0]?.status).toMatch(/^(found|not-found)$/);

  // Sign out: the gateway ends both tokens, the extension drops them, lookups say why they fail.
  await options.getByRole('button', { name: 'Sign out' }).click();
  await expect(options.getByText('Signed out.')).toBeVisible();
  const after = await lookup('1.1.1.1');
  expect(after.value?.[0]).toMatchObject({ status: 'error', error: { kind: 'sign-in-again', message: expect.stringMatching(/not signed in/) } });

  // Nothing of the session is left in the extension's storage.
  const worker = await serviceWorkerOf(context);
  const stored = await worker.evaluate(async () => JSON.stringify(await (globalThis as unknown as { chrome: { storage: { local: { get(k: null): Promise<unknown> } } } }).chrome.storage.local.get(null)));
  expect(stored).not.toMatch(/iplgs_|iplgr_/);
});
