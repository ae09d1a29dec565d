import { describe, expect, it } from 'vitest';
import { compareIps, ipSortKey } from '@/lib/ui/shared/ip-order';

describe('ip order', () => {
  it('orders IPv4 numerically, then IPv6, then anything else', () => {
    const ips = ['2001:db8::1', '10.0.0.10', 'junk', '10.0.0.9', '::1', '9.255.255.255', '::ffff:1.2.3.4'];
    expect([...ips].sort(compareIps)).toEqual(['9.255.255.255', '10.0.0.9', '10.0.0.10', '::1', '::ffff:1.2.3.4', '2001:db8::1', 'junk']);
  });

  it('expands IPv6 so compressed and full forms agree', () => {
    expect(ipSortKey('2001:db8::1')).toBe(ipSortKey('2001:0db8:0000:0000:0000:0000:0000:0001'));
    expect(ipSortKey('::ffff:1.2.3.4')).toBe(ipSortKey('::ffff:102:304'));
    expect(ipSortKey('1::2::3').startsWith('9')).toBe(true);
    expect(ipSortKey('256.1.1.1').startsWith('9')).toBe(true);
  });
});
