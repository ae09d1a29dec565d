import { describe, expect, it } from 'vitest';
import { couldHoldIp } from '@/lib/page/skip-rules';
import { findIps } from '@/lib/ip';

describe('couldHoldIp (the scanner\'s cheap character test)', () => {
  it('lets through every text findIps can read an address in, defanged ones included', () => {
    for (const text of [
      '1.2.3.4',
      '::1',
      'C2 1[.]2[.]3[.]4 seen',
      'C2 185[dot]220[dot]101[dot]1 seen twice',
      'scanner 45(dot)155(dot)205(dot)233',
      'resolver 9{DOT}9{DOT}9{DOT}9',
      'mixed 23[Dot]129[dot]64[dot]130',
    ]) {
      expect(couldHoldIp(text), text).toBe(true);
      expect(findIps(text).length, text).toBeGreaterThan(0);
    }
  });

  it('still skips text with no dot, no colon and no word dot', () => {
    for (const text of ['', 'ab', 'Severity high', 'dotted line without brackets and long enough', 'event 42 (dotnet) [DOTS]', '1[dot]2']) {
      expect(couldHoldIp(text), text).toBe(false);
    }
  });
});
