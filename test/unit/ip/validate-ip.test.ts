import { describe, expect, it } from 'vitest';
import { ipKey, isSubnetTooLarge, isValidIp, parseCidr } from '../../../lib/ip/validate-ip';

describe('isValidIp', () => {
  it.each(['1.2.3.4', '0.0.0.0', '255.255.255.255', '185.220.101.1', '2a0b:4140:ddd::1', '::1', '::', '2001:DB8::1', '::ffff:1.2.3.4', '1:2:3:4:5:6:7:8', '2A0B:4140:0DDD:0:0:0:0:1', '1::1.2.3.4'])(
    'accepts %s',
    (ip) => expect(isValidIp(ip)).toBe(true),
  );

  it.each([
    ['127.1', 'short form ipaddr.js accepts'],
    ['0x7f.1', 'hex parts'],
    ['3232235777', 'a bare integer'],
    ['01.2.3.4', 'a leading zero (octal in some parsers)'],
    ['256.1.1.1', 'an octet above 255'],
    ['1.2.3.4.5', 'five parts'],
    ['1.2.3', 'three parts'],
    ['fe80::1%eth0', 'a zone id'],
    ['::ffff:01.2.3.4', 'a leading zero in embedded IPv4'],
    ['::ffff:1.2.3.256', 'a bad embedded IPv4'],
    ['::ffff:127.1', 'a short embedded IPv4'],
    ['1:2:3:4:5:6:7:8:9', 'nine groups'],
    ['', 'empty'],
    ['not an ip', 'words'],
    ['<script>', 'markup'],
  ])('rejects %s (%s)', (ip) => expect(isValidIp(ip)).toBe(false));
});

describe('ipKey', () => {
  it('gives two spellings of one IPv6 address the same key', () => {
    expect(ipKey('2001:DB8::1')).toBe(ipKey('2001:db8:0:0::1'));
    expect(ipKey('::ffff:1.2.3.4')).toBe(ipKey('::ffff:102:304'));
  });

  it('keeps IPv4 as is and tells different addresses apart', () => {
    expect(ipKey('1.2.3.4')).toBe('1.2.3.4');
    expect(ipKey('2001:db8::1')).not.toBe(ipKey('2001:db8::2'));
  });
});

describe('parseCidr', () => {
  it('parses IPv4 and IPv6 blocks', () => {
    expect(parseCidr('1.2.3.0/24')).toEqual({ address: '1.2.3.0', prefix: 24, version: 4 });
    expect(parseCidr(' 2001:db8::/120 ')).toEqual({ address: '2001:db8::', prefix: 120, version: 6 });
  });

  it.each(['1.2.3.0', '1.2.3.0/33', '127.1/24', 'x/24', '2001:db8::/129', '1.2.3.0/-1'])('rejects %s', (cidr) =>
    expect(parseCidr(cidr)).toBeNull(),
  );

  it('says blocks of more than 256 addresses are too large (IPv4 /24, IPv6 /120)', () => {
    expect(isSubnetTooLarge(parseCidr('1.2.0.0/23')!)).toBe(true);
    expect(isSubnetTooLarge(parseCidr('1.2.3.0/24')!)).toBe(false);
    expect(isSubnetTooLarge(parseCidr('1.2.3.4/32')!)).toBe(false);
    expect(isSubnetTooLarge(parseCidr('2001:db8::/119')!)).toBe(true);
    expect(isSubnetTooLarge(parseCidr('2001:db8::/120')!)).toBe(false);
  });
});
