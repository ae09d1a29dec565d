import { describe, expect, it } from 'vitest';
import { defangIp, findIps, normalizeIp } from '../../../lib/ip';

describe('defangIp', () => {
  it('defangs every dot and colon', () => {
    expect(defangIp('185.220.101.1')).toBe('185[.]220[.]101[.]1');
    expect(defangIp('2001:db8::1')).toBe('2001[:]db8[:][:]1');
  });

  it('reads back as the same address on a page and in the popup', () => {
    for (const ip of ['185.220.101.1', '8.8.8.8', '2001:db8::1', '2606:4700:4700::1111', '::ffff:1.2.3.4']) {
      const defanged = defangIp(ip);
      expect(defanged).not.toMatch(/\d\.\d|[0-9a-f]:[0-9a-f:]/i);
      expect(findIps(`src=${defanged} dst=x`).map((m) => m.ip)).toEqual([ip]);
      expect(normalizeIp(defanged)).toBe(ip);
    }
  });
});
