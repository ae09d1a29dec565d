import { describe, expect, it } from 'vitest';
import { createApiForm, validateApiFields } from '@/lib/ui/options/api-form';
import { createFakeServices, ok } from '../fake-services';
import { ACCOUNT } from '../samples';

function setup() {
  const services = createFakeServices({ apiBaseUrl: 'https://ipswamp.com/api/v1', apiKey: '' });
  const form = createApiForm(services);
  form.load(services.stored);
  return { services, form };
}

describe('api form', () => {
  it('validates as the user types', () => {
    expect(validateApiFields({ apiBaseUrl: 'ipswamp.com', apiKey: 'a b' })).toEqual({
      apiBaseUrl: expect.stringContaining('full http(s) URL'),
      apiKey: expect.stringContaining('no spaces'),
    });
    expect(validateApiFields({ apiBaseUrl: 'http://127.0.0.1:8080/api/v1/', apiKey: 'k' })).toEqual({});
  });

  it('saves the three fields together, asks for the origin, then verifies for free', async () => {
    const { services, form } = setup();
    services.handlers['ui:verify-key'] = () => ok(ACCOUNT);
    form.apiBaseUrl.value = 'https://proxy.corp.example:8443/ipswamp/api/v1/';
    form.apiKey.value = ' demo-key-0001 ';
    form.authHeader.value = 'x-api-key';
    expect(form.dirty.value).toBe(true);
    await form.save();
    expect(services.requested).toEqual([['https://proxy.corp.example:8443/*']]);
    expect(services.stored).toMatchObject({ apiBaseUrl: 'https://proxy.corp.example:8443/ipswamp/api/v1', apiKey: 'demo-key-0001', authHeader: 'x-api-key' });
    expect(services.sent.map((m) => m.type)).toEqual(['ui:verify-key']);
    expect(form.outcome.value).toEqual({ kind: 'verified', account: ACCOUNT });
    expect(form.dirty.value).toBe(false);
  });

  it('saves nothing when a field is invalid or the permission is refused', async () => {
    const { services, form } = setup();
    form.apiBaseUrl.value = 'not a url';
    form.apiKey.value = 'k';
    await form.save();
    expect(form.outcome.value).toEqual({ kind: 'invalid' });
    expect(services.requested).toEqual([]);

    services.denyRequests = true;
    form.apiBaseUrl.value = 'https://other.example/api/v1';
    await form.save();
    expect(form.outcome.value).toEqual({ kind: 'permission-denied', origin: 'https://other.example/*' });
    expect(services.stored.apiBaseUrl).toBe('https://ipswamp.com/api/v1');
    expect(services.stored.apiKey).toBe('');
    expect(services.sent).toEqual([]);
  });

  it('shows the verification error (wrong key) after saving', async () => {
    const { services, form } = setup();
    services.handlers['ui:verify-key'] = () => ({ ok: false, error: { kind: 'invalid-key', message: 'Invalid API key', status: 403 } });
    form.apiKey.value = 'wrong';
    await form.save();
    expect(services.stored.apiKey).toBe('wrong');
    expect(form.outcome.value).toMatchObject({ kind: 'error', during: 'verify', error: { kind: 'invalid-key' } });
  });

  it('does not call the API when the key is empty', async () => {
    const { services, form } = setup();
    await form.save();
    expect(form.outcome.value).toEqual({ kind: 'saved-no-key' });
    expect(services.sent).toEqual([]);
  });

  it('"Test key" saves pending changes first, then calls test-key', async () => {
    const { services, form } = setup();
    services.handlers['ui:test-key'] = () =>
      ok({ success: true, message: 'API key validation successful! -1 Request', timestamp: null, organizationId: 'org', key: ACCOUNT.key });
    form.apiKey.value = 'demo-key-0001';
    await form.test();
    expect(services.stored.apiKey).toBe('demo-key-0001');
    expect(services.sent.map((m) => m.type)).toEqual(['ui:test-key']);
    expect(form.outcome.value).toMatchObject({ kind: 'tested', result: { success: true } });
    expect(form.phase.value).toBe('idle');
  });

  it('a remote http:// address needs an explicit "I understand" before it is saved', async () => {
    const { services, form } = setup();
    form.apiKey.value = 'k';
    form.apiBaseUrl.value = 'http://proxy.corp.example/api/v1';
    expect(form.sendsInClear.value).toBe(true);
    expect(form.errors.value.clearText).toMatch(/I understand the key travels unencrypted/);
    await form.save();
    expect(form.outcome.value).toEqual({ kind: 'invalid' });
    expect(services.stored.apiBaseUrl).toBe('https://ipswamp.com/api/v1');

    form.setClearTextConsent(true);
    expect(form.errors.value).toEqual({});
    await form.save();
    expect(services.stored.apiBaseUrl).toBe('http://proxy.corp.example/api/v1');

    // Consent is per origin: another host asks again; the stored one keeps it after a reload.
    form.apiBaseUrl.value = 'http://other.corp.example/api/v1';
    expect(form.clearTextConsent.value).toBe(false);
    const reloaded = createApiForm(services);
    reloaded.load(services.stored);
    expect(reloaded.clearTextConsent.value).toBe(true);
  });

  it('loopback http:// and https:// need no consent', () => {
    for (const apiBaseUrl of ['http://127.0.0.1:8787/api/v1', 'http://localhost/api', 'http://[::1]:9/api', 'https://x.example/api']) {
      expect(validateApiFields({ apiBaseUrl, apiKey: 'k' })).toEqual({});
    }
  });
});
