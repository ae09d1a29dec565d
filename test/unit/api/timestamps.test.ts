import { describe, expect, it } from 'vitest';
import { toIsoTimestamp } from '../../../lib/api/timestamps';

describe('toIsoTimestamp', () => {
  it.each([
    ['2025-11-29T09:37:40.604584+0000', '2025-11-29T09:37:40.604Z'],
    ['2026-04-15T10:30:00.000Z', '2026-04-15T10:30:00.000Z'],
    ['2026-04-15T10:30:00Z', '2026-04-15T10:30:00.000Z'],
    ['2025-12-10T14:30:00.000+00:00', '2025-12-10T14:30:00.000Z'],
    ['2025-12-10T16:30:00+0200', '2025-12-10T14:30:00.000Z'],
    ['2025-12-10T09:30:00-05:00', '2025-12-10T14:30:00.000Z'],
    ['2025-12-10 14:30:00', '2025-12-10T14:30:00.000Z'],
    ['2025-12-10T14:30:00.5Z', '2025-12-10T14:30:00.500Z'],
    ['2025-12-10', '2025-12-10T00:00:00.000Z'],
    ['  2026-04-15T10:30:00Z  ', '2026-04-15T10:30:00.000Z'],
  ])('reads %s', (input, expected) => {
    expect(toIsoTimestamp(input)).toBe(expected);
  });

  it.each<[unknown, string]>([
    ['', 'empty (whitelisted)'],
    [null, 'null (bulk)'],
    [undefined, 'absent'],
    ['never', 'a word'],
    ['2025-02-30T00:00:00Z', 'February 30th'],
    ['2025-13-01T00:00:00Z', 'month 13'],
    ['2025-01-01T24:00:00Z', 'hour 24'],
    ['2025-01-01T00:00:00+9900', 'an impossible offset'],
    [1732873060, 'a number'],
    [{}, 'an object'],
  ])('gives null for %s (%s)', (input) => {
    expect(toIsoTimestamp(input)).toBeNull();
  });
});
