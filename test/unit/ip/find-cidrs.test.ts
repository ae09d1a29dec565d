import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { blockContains, blockOf, blockSize, isWithinApiLimit, scannedAddresses } from '../../../lib/ip/cidr-block';
import { findCidrs, parseCidrInput } from '../../../lib/ip/find-cidrs';

interface Expected {
  cidr: string;
  start: number;
  end: number;
}

/** The ip-corpus format (⟦marked⟧ or ⟦marked|canonical⟧), for blocks. */
function loadCases(): { id: string; text: string; expected: Expected[] }[] {
  const file = join(__dirname, '../../fixtures/cidr-corpus/blocks.txt');
  return readFileSync(file, 'utf8')
    .split('\n')
    .map((line, i) => ({ line, id: `blocks.txt:${i + 1}` }))
    .filter(({ line }) => line.trim() !== '' && !line.startsWith('#'))
    .map(({ line, id }) => {
      let text = '';
      const expected: Expected[] = [];
      const parts = line.split(/⟦|⟧/);
      parts.forEach((part, k) => {
        if (k % 2 === 0) {
          text += part;
          return;
        }
        const [marked, canonical = marked] = part.split('|') as [string, string?];
        expected.push({ cidr: canonical!, start: text.length, end: text.length + marked.length });
        text += marked;
      });
      return { id, text, expected };
    });
}

describe('findCidrs over the block corpus', () => {
  const cases = loadCases();

  it('holds positives and negatives', () => {
    expect(cases.filter((c) => c.expected.length > 0).length).toBeGreaterThanOrEqual(13);
    expect(cases.filter((c) => c.expected.length === 0).length).toBeGreaterThanOrEqual(7);
  });

  it('finds every labeled block at its offsets, canonical, and nothing else', () => {
    for (const c of cases) {
      const found = findCidrs(c.text).map(({ cidr, start, end }) => ({ cidr, start, end }));
      expect(found, c.id).toEqual(c.expected);
    }
  });
});

describe('findCidrs edge cases', () => {
  it('reports the version and the network', () => {
    expect(findCidrs('x 2001:db8::/120 y')).toEqual([
      { cidr: '2001:db8::/120', network: '2001:db8::', prefix: 120, version: 6, start: 2, end: 16 },
    ]);
  });

  it('skips text without a slash cheaply and keeps plain addresses out', () => {
    expect(findCidrs('203.0.113.0 and 2001:db8::1')).toEqual([]);
  });

  it('accepts a block ending a sentence or in brackets', () => {
    expect(findCidrs('see 203.0.113.0/24.').map((m) => m.cidr)).toEqual(['203.0.113.0/24']);
    expect(findCidrs('[203.0.113.0/24]').map((m) => m.cidr)).toEqual(['203.0.113.0/24']);
  });
});

describe('parseCidrInput (the popup box)', () => {
  it('reads plain, defanged and quoted blocks', () => {
    expect(parseCidrInput(' 203.0.113.0/24 ')).toMatchObject({ cidr: '203.0.113.0/24', hostBits: false });
    expect(parseCidrInput('203.0.113[.]0/24')).toMatchObject({ cidr: '203.0.113.0/24' });
    expect(parseCidrInput('"2001:DB8::/120",')).toMatchObject({ cidr: '2001:db8::/120', version: 6 });
  });

  it('keeps the host of a host-with-prefix and names its block', () => {
    expect(parseCidrInput('185.220.101.7/24')).toMatchObject({ cidr: '185.220.101.0/24', address: '185.220.101.7', hostBits: true });
  });

  it('refuses what is no block', () => {
    for (const text of ['10/24', '203.0.113.0', '203.0.113.0/33', '203.0.113.0/024', '127.1/24', 'https://x.example/1.2.3.4/24', '2001:db8::/129', '/24', '1.2.3.0/24/8']) {
      expect(parseCidrInput(text), text).toBeNull();
    }
  });
});

describe('cidr-block arithmetic', () => {
  it('masks host bits in both families', () => {
    expect(blockOf('203.0.113.77', 24)).toMatchObject({ cidr: '203.0.113.0/24', hostBits: true });
    expect(blockOf('203.0.113.77', 0)).toMatchObject({ cidr: '0.0.0.0/0' });
    expect(blockOf('2001:db8:1:2::1ff', 120)).toMatchObject({ cidr: '2001:db8:1:2::100/120', hostBits: true });
    expect(blockOf('2001:db8:abcd::', 36)).toMatchObject({ cidr: '2001:db8:a000::/36' });
    expect(blockOf('2001:db8::', 129)).toBeNull();
  });

  it('knows the API limit: /24 and /120, 256 addresses', () => {
    expect(isWithinApiLimit({ prefix: 24, version: 4 })).toBe(true);
    expect(isWithinApiLimit({ prefix: 23, version: 4 })).toBe(false);
    expect(isWithinApiLimit({ prefix: 120, version: 6 })).toBe(true);
    expect(isWithinApiLimit({ prefix: 119, version: 6 })).toBe(false);
    expect(blockSize({ prefix: 24, version: 4 })).toBe(256);
    expect(blockSize({ prefix: 120, version: 6 })).toBe(256);
  });

  it('lists the scanned addresses without network and broadcast (documented total_ips 254)', () => {
    const hosts = scannedAddresses(blockOf('185.220.101.0', 24)!);
    expect(hosts).toHaveLength(254);
    expect(hosts[0]).toBe('185.220.101.1');
    expect(hosts.at(-1)).toBe('185.220.101.254');
    expect(scannedAddresses(blockOf('2001:db8::', 126)!)).toEqual(['2001:db8::1', '2001:db8::2']);
    expect(scannedAddresses(blockOf('1.2.3.4', 31)!)).toEqual(['1.2.3.4', '1.2.3.5']);
    expect(scannedAddresses(blockOf('1.2.0.0', 16)!)).toEqual([]);
  });

  it('tests membership', () => {
    const block = blockOf('2001:db8::', 120)!;
    expect(blockContains(block, '2001:db8::ff')).toBe(true);
    expect(blockContains(block, '2001:db8::100')).toBe(false);
    expect(blockContains(blockOf('203.0.113.0', 24)!, '203.0.114.1')).toBe(false);
  });
});
