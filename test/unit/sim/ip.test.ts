import { describe, expect, it } from 'vitest';
import { canonicalIp, parseSubnet } from '../../sim/ip';

describe('canonicalIp', () => {
  it('accepts strict IPv4 and IPv6, giving RFC 5952 text', () => {
    expect(canonicalIp('1.2.3.4')).toBe('1.2.3.4');
    expect(canonicalIp(' 2A0B:4140:0DDD:0::1 ')).toBe('2a0b:4140:ddd::1');
    expect(canonicalIp('1:2:3:4:5:6:7:1')).toBe('1:2:3:4:5:6:7:1');
  });

  it.each(['127.1', '0x7f.1', '3232235777', '01.2.3.4', 'fe80::1%eth0', '::ffff:127.1', '', 'abc'])('rejects %s', (ip) => {
    expect(canonicalIp(ip)).toBeNull();
  });
});

describe('parseSubnet', () => {
  it('a /24 scans 254 usable hosts', () => {
    const result = parseSubnet('1.2.3.77/24');
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.scan).toMatchObject({ network: '1.2.3.0', broadcast: '1.2.3.255' });
    expect(result.scan.hosts).toHaveLength(254);
    expect(result.scan.hosts[0]).toBe('1.2.3.1');
    expect(result.scan.hosts.at(-1)).toBe('1.2.3.254');
  });

  it('/31 and /32 scan every address', () => {
    const r31 = parseSubnet('1.2.3.4/31');
    const r32 = parseSubnet('1.2.3.4/32');
    expect(r31.ok && r31.scan.hosts).toEqual(['1.2.3.4', '1.2.3.5']);
    expect(r32.ok && r32.scan.hosts).toEqual(['1.2.3.4']);
  });

  it('handles IPv6 up to /120', () => {
    const r = parseSubnet('2001:db8::/126');
    expect(r.ok && r.scan.hosts).toEqual(['2001:db8::1', '2001:db8::2']);
    expect(parseSubnet('2001:db8::/119')).toEqual({ ok: false, reason: 'too-large' });
  });

  it('refuses blocks larger than /24 and bad notation', () => {
    expect(parseSubnet('1.2.0.0/23')).toEqual({ ok: false, reason: 'too-large' });
    expect(parseSubnet('1.2.3.0')).toEqual({ ok: false, reason: 'invalid' });
    expect(parseSubnet('1.2.3.0/33')).toEqual({ ok: false, reason: 'invalid' });
    expect(parseSubnet('127.1/24')).toEqual({ ok: false, reason: 'invalid' });
  });
});
