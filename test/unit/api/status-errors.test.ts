import { describe, expect, it } from 'vitest';
import { errorForStatus, kindForStatus, serverMessage } from '../../../lib/api/status-errors';

describe('kindForStatus', () => {
  it.each([
    [400, 'Invalid IP address', 'bad-request'],
    [401, 'API key required...', 'missing-key'],
    [403, 'Invalid API key', 'invalid-key'],
    [403, 'API key expired', 'invalid-key'],
    [403, 'API usage limit exceeded', 'quota-exhausted'],
    [403, 'Monthly quota reached', 'quota-exhausted'],
    [403, 'Usage limit exceeded', 'quota-exhausted'],
    [403, 'Expired API key', 'invalid-key'],
    // Texts nobody documents: confirmed with /account before anything is concluded (refused-403.ts).
    [403, 'Usage cap hit', 'refused'],
    [403, 'Forbidden', 'refused'],
    [403, 'Your plan does not include bulk lookups', 'refused'],
    [404, 'Not found', 'not-found'],
    [405, 'Method not allowed', 'bad-request'],
    [408, 'Request Timeout', 'timeout'],
    [413, 'Payload too large', 'bad-request'],
    [429, 'Rate limit exceeded', 'rate-limited'],
    [500, 'Internal server error', 'server'],
    [502, 'Bad Gateway', 'server'],
    [503, 'Service Unavailable', 'server'],
    [302, 'Found', 'bad-response'],
  ] as const)('%i "%s" -> %s', (status, message, kind) => {
    expect(kindForStatus(status, message)).toBe(kind);
  });
});

describe('serverMessage', () => {
  it('reads the general error body', () => {
    expect(serverMessage(403, { error: true, statusCode: 403, message: 'Invalid API key' }, '')).toBe('Invalid API key');
  });

  it("reads test-key's odd 401 body", () => {
    expect(serverMessage(401, { statusCode: 401, statusMessage: 'Valid API key required' }, '')).toBe('Valid API key required');
  });

  it('reads an HTML error page title, else the status', () => {
    expect(serverMessage(502, undefined, '<html><head><title>502 Bad Gateway</title></head></html>')).toBe('502 Bad Gateway');
    expect(serverMessage(500, undefined, '')).toBe('HTTP 500');
    expect(serverMessage(500, { error: true }, '')).toBe('HTTP 500');
  });

  it('keeps the words of a text/plain answer (a 429), sanitised and short', () => {
    expect(serverMessage(429, undefined, 'Too many requests: slow down.\n')).toBe('Too many requests: slow down.');
    expect(serverMessage(429, undefined, 'a\u202Eb\u0007c')).toBe('a b c');
    const long = serverMessage(403, { error: true, message: 'x'.repeat(500) }, '');
    expect(long).toHaveLength(160);
    expect(long.endsWith('…')).toBe(true);
  });
});

describe('errorForStatus', () => {
  it('keeps status, message and Retry-After', () => {
    const error = errorForStatus(429, { error: true, statusCode: 429, message: 'Rate limit exceeded' }, '', 2_000);
    expect(error.toJSON()).toEqual({ kind: 'rate-limited', message: 'Rate limit exceeded', status: 429, retryAfterMs: 2_000 });
  });

  it('maps test-key 401 to missing-key', () => {
    expect(errorForStatus(401, { statusCode: 401, statusMessage: 'Valid API key required' }, '').kind).toBe('missing-key');
  });
});
