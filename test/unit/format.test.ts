import { describe, expect, it } from 'vitest';
import { formatAbsolute, formatCount, formatLastAttack, formatRelative, formatScore, describeSkip, describeSkipped } from '@/lib/format';

const NOW = Date.parse('2026-11-22T12:00:00Z');

describe('format', () => {
  it('formats scores without trailing noise and a dash for none', () => {
    expect(formatScore(95)).toBe('95');
    expect(formatScore(13.01131)).toBe('13.01');
    expect(formatScore(12.5)).toBe('12.5');
    expect(formatScore(null)).toBe('—');
    expect(formatScore(Number.NaN)).toBe('—');
  });

  it('formats counts with separators', () => {
    expect(formatCount(12345)).toBe('12,345');
    expect(formatCount(undefined)).toBe('—');
  });

  it('formats absolute times in UTC and refuses garbage', () => {
    expect(formatAbsolute('2025-11-29T09:37:40.604Z')).toBe('2025-11-29 09:37:40 UTC');
    expect(formatAbsolute('not a date')).toBeNull();
    expect(formatAbsolute('')).toBeNull();
  });

  it('formats relative times in both directions', () => {
    expect(formatRelative('2026-11-19T12:00:00Z', NOW)).toBe('3 days ago');
    expect(formatRelative('2026-11-22T14:00:00Z', NOW)).toBe('in 2 hours');
    expect(formatRelative('2026-11-22T12:00:00Z', NOW)).toBe('now');
  });

  it('says never for IPs without hits or whitelisted, unknown otherwise', () => {
    expect(formatLastAttack(null, { totalHits: 0 }, NOW)).toEqual({ primary: 'never', absolute: null });
    expect(formatLastAttack('', { whitelisted: true }, NOW)).toEqual({ primary: 'never', absolute: null });
    expect(formatLastAttack(null, { totalHits: 12 }, NOW)).toEqual({ primary: 'unknown', absolute: null });
    expect(formatLastAttack('garbage', { totalHits: null }, NOW).primary).toBe('unknown');
    const text = formatLastAttack('2026-11-21T12:00:00Z', { totalHits: 3 }, NOW);
    expect(text).toEqual({ primary: 'yesterday', absolute: '2026-11-21 12:00:00 UTC' });
  });

  it('explains every skip reason in words', () => {
    expect(describeSkip('private')).toMatch(/Private address/);
    expect(describeSkip('quota-reserve')).toMatch(/reserve/);
  });
  it('names the cap that stopped a lookup, and says where to look up the rest', () => {
    expect(describeSkipped({ reason: 'page-cap', limit: 1500 })).toBe(
      'Not looked up: this page reached its cap of 1,500 automatic lookups this hour. Look up the rest from the toolbar popup.',
    );
    expect(describeSkipped({ reason: 'site-cap', limit: 2000 })).toContain('daily ceiling of 2,000 automatic lookups');
    // Without a usable limit: the general sentence, never "undefined" or "NaN".
    expect(describeSkipped({ reason: 'page-cap' })).toBe(describeSkip('page-cap'));
    expect(describeSkipped({ reason: 'page-cap', limit: Number.NaN })).not.toMatch(/NaN|undefined/);
    expect(describeSkipped({ reason: 'private', limit: 3 })).toBe(describeSkip('private'));
  });
});
