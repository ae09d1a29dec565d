import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { clientFromSettings } from '@/lib/background/client-from-settings';
import {
  DEFAULT_SETTINGS,
  exportableSettingsSchema,
  gatewayApiBase,
  gatewayAuthUrl,
  gatewayUrlSchema,
  getSettings,
  importableSettingsSchema,
  readGatewaySession,
  saveSettings,
  usesTeamGateway,
  watchSettings,
  writeGatewaySession,
  type GatewaySession,
} from '@/lib/settings';
import { parseSettingsFile } from '@/lib/ui/options/settings-file';

const GATEWAY = 'https://ipl-gateway.corp.example';
const TOKEN = 'iplg_personal-token-0123456789abcdef';

const session = (over: Partial<GatewaySession> = {}): GatewaySession => ({
  gatewayUrl: GATEWAY,
  sessionToken: 'iplgs_session-token-0123456789abcdef',
  refreshToken: 'iplgr_refresh-token-0123456789abcdef',
  expiresAt: Date.now() + 900_000,
  analyst: 'sso:alice@corp.example',
  signedInAt: Date.now(),
  ...over,
});

/** Every Authorization header the client sent. */
function recordFetch(): string[] {
  const sent: string[] = [];
  vi.stubGlobal('fetch', async (_url: string, init: RequestInit) => {
    sent.push(new Headers(init.headers).get('authorization') ?? '');
    return new Response(JSON.stringify({ api_key: { key_name: 'x', usage_today: 0, max_api_requests: null }, organization_quota: null }), { status: 200, headers: { 'content-type': 'application/json' } });
  });
  return sent;
}

beforeEach(() => fakeBrowser.reset());
afterEach(() => vi.unstubAllGlobals());

describe('the team gateway setting', () => {
  it('is off by default: lookups go to the API as before', async () => {
    expect(DEFAULT_SETTINGS).toMatchObject({ gatewayUrl: '', gatewayAuth: 'token', gatewayToken: '' });
    expect(usesTeamGateway(await getSettings())).toBe(false);
  });

  it('takes a root or an /api/v1 address for the root, and refuses what is not one', () => {
    expect(gatewayUrlSchema.parse(' https://gw.example/ ')).toBe('https://gw.example');
    expect(gatewayUrlSchema.parse('http://127.0.0.1:8790/api/v1/')).toBe('http://127.0.0.1:8790');
    expect(gatewayUrlSchema.parse('https://corp.example/ipl/api/v1')).toBe('https://corp.example/ipl');
    expect(gatewayUrlSchema.parse('')).toBe('');
    expect(gatewayUrlSchema.safeParse('ftp://gw.example').error?.issues[0]?.message).toMatch(/full http\(s\) address/);
    expect(gatewayUrlSchema.safeParse('gw.example').success).toBe(false);
    expect(gatewayUrlSchema.safeParse('https://gw.example/?x=1').error?.issues[0]?.message).toMatch(/no query/);
    const withUser = gatewayUrlSchema.safeParse('https://bob:hunter2@gw.example');
    expect(withUser.error?.issues[0]?.message).toMatch(/user name and password/);
    expect(withUser.error?.issues[0]?.message).not.toMatch(/hunter2/);
  });

  it('names the gateway routes under its root', () => {
    expect(gatewayApiBase(GATEWAY)).toBe(`${GATEWAY}/api/v1`);
    expect(gatewayAuthUrl(GATEWAY, 'login')).toBe(`${GATEWAY}/auth/login`);
    expect(usesTeamGateway({ gatewayUrl: GATEWAY })).toBe(true);
  });

  it('keeps the personal token with the API key, in IndexedDB, never in storage.local', async () => {
    await saveSettings({ gatewayUrl: GATEWAY, gatewayToken: TOKEN });
    expect((await getSettings()).gatewayToken).toBe(TOKEN);
    expect(JSON.stringify(await fakeBrowser.storage.local.get(null))).not.toContain(TOKEN);
    await saveSettings({ gatewayToken: '' });
    expect((await getSettings()).gatewayToken).toBe('');
  });

  it('tells watchers that a credential changed when the token or the session is written', async () => {
    const seen: string[][] = [];
    const stop = watchSettings((keys) => seen.push(keys));
    await saveSettings({ gatewayToken: TOKEN });
    await writeGatewaySession(session());
    await vi.waitFor(() => expect(seen.filter((k) => k.includes('gatewayToken')).length).toBeGreaterThanOrEqual(2));
    stop();
  });

  it('never exports the token, and an imported file changes neither the gateway nor how one signs in', () => {
    const file = exportableSettingsSchema.parse({ ...DEFAULT_SETTINGS, gatewayUrl: GATEWAY, gatewayToken: TOKEN });
    expect(JSON.stringify(file)).not.toContain(TOKEN);
    expect(Object.keys(importableSettingsSchema.shape)).not.toContain('gatewayUrl');
    const imported = parseSettingsFile(JSON.stringify({ gatewayUrl: 'https://evil.example', gatewayAuth: 'token', gatewayToken: TOKEN, markStyle: 'background' }), {
      apiBaseUrl: DEFAULT_SETTINGS.apiBaseUrl,
      authHeader: 'authorization',
    });
    expect(imported).toMatchObject({ ok: true, patch: { markStyle: 'background' } });
    expect(imported.ok && imported.notes.join(' ')).toMatch(/a gateway token; it was ignored/);
    expect(imported.ok && Object.keys(imported.patch)).toEqual(['markStyle']);
  });

  it('keeps a session only in its schema: a malformed one reads as none', async () => {
    await writeGatewaySession(session());
    expect(await readGatewaySession()).toMatchObject({ analyst: 'sso:alice@corp.example' });
    await expect(writeGatewaySession(session({ sessionToken: 'short' }))).rejects.toThrow();
    await writeGatewaySession(null);
    expect(await readGatewaySession()).toBeNull();
  });
});

describe('clientFromSettings with a team gateway', () => {
  it('talks to <gateway>/api/v1 with the personal token, not the API key', async () => {
    await saveSettings({ apiKey: 'organisation-key-must-not-go', gatewayUrl: GATEWAY, gatewayAuth: 'token' });
    expect(await clientFromSettings()).toEqual({ server: `${GATEWAY}/api/v1`, handle: null });
    await saveSettings({ gatewayToken: TOKEN });
    const setup = await clientFromSettings();
    expect(setup.server).toBe(`${GATEWAY}/api/v1`);
    const sent = recordFetch();
    await setup.handle!.client.account();
    expect(sent).toEqual([`Bearer ${TOKEN}`]);
  });

  it('signed in: sends the session token, keeps one quota identity across refreshes, never sends another gateway’s session', async () => {
    await saveSettings({ gatewayUrl: GATEWAY, gatewayAuth: 'sign-in', gatewayToken: TOKEN });
    expect((await clientFromSettings()).handle).toBeNull();
    await writeGatewaySession(session());
    const first = await clientFromSettings();
    const sent = recordFetch();
    await first.handle!.client.account();
    expect(sent).toEqual(['Bearer iplgs_session-token-0123456789abcdef']);
    await writeGatewaySession(session({ sessionToken: 'iplgs_refreshed-token-0123456789abcd' }));
    expect((await clientFromSettings()).handle!.identity).toBe(first.handle!.identity);
    await writeGatewaySession(session({ gatewayUrl: 'https://other-gateway.example' }));
    expect((await clientFromSettings()).handle).toBeNull();
  });

  it('unset again: back to the API with its key', async () => {
    await saveSettings({ apiBaseUrl: 'https://api.example/api/v1', apiKey: 'own-key', gatewayUrl: GATEWAY, gatewayToken: TOKEN });
    await saveSettings({ gatewayUrl: '' });
    expect((await clientFromSettings()).server).toBe('https://api.example/api/v1');
  });
});

describe('the team gateway by policy', () => {
  it('sets and locks gatewayUrl, and gatewaySignIn "required" locks sign-in', async () => {
    const { applyManaged, parseManagedPolicy, lockedChanges } = await import('@/lib/settings');
    const policy = parseManagedPolicy({ gatewayUrl: `${GATEWAY}/api/v1`, gatewaySignIn: 'required' });
    expect(policy.problems).toEqual([]);
    expect([...policy.locked].sort()).toEqual(['gatewayAuth', 'gatewayUrl']);
    const effective = applyManaged({ ...DEFAULT_SETTINGS, gatewayAuth: 'token', gatewayToken: TOKEN }, policy);
    expect(effective).toMatchObject({ gatewayUrl: GATEWAY, gatewayAuth: 'sign-in' });
    expect(lockedChanges(policy, effective, { gatewayAuth: 'token' })).toEqual(['gatewayAuth']);
    expect(lockedChanges(policy, effective, { gatewayUrl: 'https://elsewhere.example' })).toEqual(['gatewayUrl']);
  });

  it('ignores a bad value with a reason, and lets lockedSettings lock the gateway fields', async () => {
    const { parseManagedPolicy } = await import('@/lib/settings');
    const bad = parseManagedPolicy({ gatewayUrl: 'ftp://x', gatewaySignIn: 'optional' });
    expect(bad.locked.size).toBe(0);
    expect(bad.problems.join(' ')).toMatch(/gatewayUrl: .*http\(s\).*Ignored.*gatewaySignIn: the only value is "required"\. Ignored\./);
    expect([...parseManagedPolicy({ lockedSettings: ['gatewayUrl', 'gatewayAuth'] }).locked].sort()).toEqual(['gatewayAuth', 'gatewayUrl']);
  });

  it('with sign-in required, the personal token is not sent even when one is stored', async () => {
    await saveSettings({ gatewayUrl: GATEWAY, gatewayAuth: 'token', gatewayToken: TOKEN });
    (fakeBrowser.storage as unknown as { managed: { get(): Promise<unknown> } }).managed = { get: async () => ({ gatewaySignIn: 'required' }) };
    const setup = await clientFromSettings();
    expect(setup.handle).toBeNull();
    expect(setup.refusal).toMatchObject({ kind: 'sign-in-again' });
  });
});
