import { describe, expect, it } from 'vitest';
import { MAX_SERVER_TEXT, redactSecrets } from '../../../lib/api/redact';

const KEY = 'Sk_live_canary_0123';

describe('redactSecrets', () => {
  it('removes the key in any case, URL-encoded or base64', () => {
    const text = `Invalid API key ${KEY} (${KEY.toLowerCase()}, ${encodeURIComponent('a' + KEY)}, ${btoa(KEY)})`;
    const out = redactSecrets(text, [KEY]);
    expect(out).not.toMatch(/canary/i);
    expect(out).not.toContain(btoa(KEY));
    expect(out).toContain('Invalid API key [redacted]');
  });

  it('removes credentials in URLs, bearer tokens, key=value pairs and key-like tokens', () => {
    const out = redactSecrets(
      'fetch http://bob:hunter2@proxy.example/api failed; Authorization: Bearer abc.def; api_key=xyz; token 9f8e7d6c5b4a39281706f5e4d3c2b1a0',
    );
    expect(out).not.toMatch(/hunter2|bob:|abc\.def|xyz|9f8e7d6c5b4a/);
    expect(out).toContain('http://[redacted]@proxy.example/api');
  });

  it('keeps ordinary words, IPs and numbers; replaces control characters; caps the length', () => {
    expect(redactSecrets('Usage limit exceeded for 185.220.101.1 and 2001:db8::1 (HTTP 403)')).toBe(
      'Usage limit exceeded for 185.220.101.1 and 2001:db8::1 (HTTP 403)',
    );
    expect(redactSecrets('a\u0000b\nc')).toBe('a b c');
    const long = redactSecrets('word '.repeat(200));
    expect(long.length).toBe(MAX_SERVER_TEXT);
    expect(long.endsWith('…')).toBe(true);
  });
});
