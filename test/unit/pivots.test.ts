import { describe, expect, it } from 'vitest';
import {
  DEFAULT_PIVOTS,
  MAX_PIVOTS,
  nameError,
  newPivotId,
  pivotLinks,
  pivotListError,
  pivotUrl,
  templateError,
  usablePivots,
  type Pivot,
} from '../../lib/pivots';

const pivot = (id: string, urlTemplate: string, enabled = true): Pivot => ({ id, name: id.toUpperCase(), urlTemplate, enabled });

describe('pivot templates', () => {
  it('accepts every default, each on its own https host', () => {
    expect(DEFAULT_PIVOTS.map((p) => p.name)).toEqual(['Shodan', 'Censys', 'VirusTotal', 'AbuseIPDB', 'GreyNoise', 'ipinfo']);
    for (const p of DEFAULT_PIVOTS) expect(templateError(p.urlTemplate), p.name).toBeNull();
    expect(pivotListError(DEFAULT_PIVOTS)).toBeNull();
  });

  it('refuses hostile and broken templates with a specific message', () => {
    expect(templateError('javascript:alert({ip})')).toBe('Only https:// links are allowed (this one is javascript:).');
    expect(templateError('data:text/html,<script>{ip}</script>')).toBe('Only https:// links are allowed (this one is data:).');
    expect(templateError('http://www.shodan.io/host/{ip}')).toBe('Only https:// links are allowed (this one is http:).');
    expect(templateError('file:///etc/{ip}')).toBe('Only https:// links are allowed (this one is file:).');
    expect(templateError('https://www.shodan.io/host/')).toBe('The URL must contain {ip} exactly once (it has 0).');
    expect(templateError('https://x.example/{ip}?q={ip}')).toBe('The URL must contain {ip} exactly once (it has 2).');
    expect(templateError('https://{ip}.example/')).toBe('{ip} must be in the path or query, not in the host name.');
    expect(templateError('https://{ip}/')).toBe('{ip} must be in the path or query, not in the host name.');
    expect(templateError('https://x.example:{ip}/')).toMatch(/not a valid URL|host name/);
    expect(templateError('https://user:pw@x.example/{ip}')).toBe('The URL must not contain a user name or password.');
    expect(templateError('https://user@x.example/{ip}')).toBe('The URL must not contain a user name or password.');
    expect(templateError('https://x.example/\n{ip}')).toBe('The URL must not contain spaces, tabs or line breaks.');
    expect(templateError('not a url {ip}')).toBe('The URL must not contain spaces, tabs or line breaks.');
    expect(templateError('www.shodan.io/host/{ip}')).toBe('This is not a valid URL: write it in full, starting with https://.');
    expect(templateError('')).toMatch(/^Enter a URL such as/);
    expect(templateError(`https://x.example/${'a'.repeat(500)}{ip}`)).toBe('A URL template is at most 500 characters.');
  });

  it('checks names and the list', () => {
    expect(nameError(' ')).toBe('Give the service a name.');
    expect(nameError('x'.repeat(41))).toBe('A name is at most 40 characters.');
    expect(nameError('Shodan')).toBeNull();
    expect(pivotListError([pivot('a', 'https://a.example/{ip}'), { ...pivot('b', 'https://b.example/{ip}'), name: 'a ' }])).toBe(
      'Two services are named "a": give each its own name.',
    );
    expect(pivotListError(Array.from({ length: MAX_PIVOTS + 1 }, (_, i) => pivot(`p${i}`, 'https://a.example/{ip}')))).toBe('At most 20 services.');
  });
});

describe('pivot links', () => {
  it('percent-encodes IPv6 so its colons stay inside the path', () => {
    const url = pivotUrl('https://www.shodan.io/host/{ip}', '2001:db8::1')!;
    expect(url).toBe('https://www.shodan.io/host/2001%3Adb8%3A%3A1');
    expect(new URL(url).host).toBe('www.shodan.io');
    expect(pivotUrl('https://x.example/?q={ip}&t=ip', '1.2.3.4')).toBe('https://x.example/?q=1.2.3.4&t=ip');
  });

  it('puts the canonical address in: no brackets, no zone id, mapped IPv4 as IPv4', () => {
    expect(pivotUrl('https://ipinfo.io/{ip}', '[2001:DB8:0::1]')).toBe('https://ipinfo.io/2001%3Adb8%3A%3A1');
    expect(pivotUrl('https://ipinfo.io/{ip}', 'fe80::1%eth0')).toBe('https://ipinfo.io/fe80%3A%3A1');
    expect(pivotUrl('https://ipinfo.io/{ip}', '::ffff:8.8.8.8')).toBe('https://ipinfo.io/8.8.8.8');
    expect(pivotUrl('https://ipinfo.io/{ip}', '185[.]220[.]101[.]1')).toBe('https://ipinfo.io/185.220.101.1');
  });

  it('gives no link for an invalid template or something that is not an address', () => {
    expect(pivotUrl('http://x.example/{ip}', '1.2.3.4')).toBeNull();
    expect(pivotUrl('https://x.example/{ip}', '../../admin')).toBeNull();
    expect(pivotUrl('https://x.example/{ip}', '1.2.3.4/../../x')).toBeNull();
    expect(pivotUrl('https://x.example/{ip}', '999.1.1.1')).toBeNull();
  });

  it('lists the enabled, valid pivots in order', () => {
    const links = pivotLinks(
      [pivot('a', 'https://a.example/{ip}'), pivot('b', 'https://b.example/{ip}', false), pivot('c', 'http://c.example/{ip}'), pivot('d', 'https://d.example/x?ip={ip}')],
      '1.2.3.4',
    );
    expect(links).toEqual([
      { id: 'a', name: 'A', url: 'https://a.example/1.2.3.4' },
      { id: 'd', name: 'D', url: 'https://d.example/x?ip=1.2.3.4' },
    ]);
    expect(usablePivots([pivot('b', 'https://b.example/{ip}', false)])).toEqual([]);
  });

  it('makes new ids that are not taken', () => {
    expect(newPivotId(DEFAULT_PIVOTS)).toBe('custom-7');
    expect(newPivotId([pivot('custom-2', 'https://a.example/{ip}'), pivot('custom-3', 'https://a.example/{ip}')])).toBe('custom-4');
  });
});
