import { describe, expect, it } from 'vitest';
import { API_ERROR_KINDS } from '@/lib/api/errors';
import { describeError, ERROR_TEXT } from '@/lib/ui/shared/error-messages';

const PROTOCOL_KINDS = ['invalid-message', 'forbidden', 'internal', 'unreachable'] as const;

describe('error messages', () => {
  it('has its own title, message and next step for every error kind', () => {
    const kinds = [...API_ERROR_KINDS, ...PROTOCOL_KINDS];
    for (const kind of kinds) {
      const text = ERROR_TEXT[kind];
      expect(text, kind).toBeDefined();
      expect(text.title.length, kind).toBeGreaterThan(3);
      expect(text.message.length, kind).toBeGreaterThan(10);
      expect(text.nextStep.length, kind).toBeGreaterThan(10);
    }
    expect(Object.keys(ERROR_TEXT).sort()).toEqual([...kinds].sort());
    // Plain language: the API kinds each say something different.
    const messages = new Set(API_ERROR_KINDS.map((k) => ERROR_TEXT[k].message));
    expect(messages.size).toBe(API_ERROR_KINDS.length);
  });

  it('names the wrong key as an invalid key and a dead server as a network error', () => {
    expect(describeError({ kind: 'invalid-key', message: 'Invalid API key', status: 403 }).title.toLowerCase()).toContain('invalid key');
    expect(describeError({ kind: 'network', message: 'Failed to fetch' }).title.toLowerCase()).toContain('network error');
  });

  it('keeps the server text and status in the details, and the wait the server asked for', () => {
    const d = describeError({ kind: 'rate-limited', message: 'Rate limit exceeded', status: 429, retryAfterMs: 30_000 });
    expect(d.detail).toBe('HTTP 429: Rate limit exceeded');
    expect(d.nextStep).toContain('wait 30 seconds');
    expect(d.action).toBe('retry');
    expect(describeError({ kind: 'unreachable', message: '' }).detail).toBe('no details');
  });

  it('falls back to the internal text for a kind it does not know', () => {
    const d = describeError({ kind: 'brand-new' as never, message: 'x' });
    expect(d.title).toBe(ERROR_TEXT.internal.title);
  });
});
