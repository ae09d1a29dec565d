import { describe, expect, it } from 'vitest';
import { createDataset, FIXTURES, FOUND_RATIO, levelFor, NOT_FOUND_IPS } from '../../sim/dataset';

function randomIps(count: number, seed = 1): string[] {
  let state = seed;
  const next = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0);
  return Array.from({ length: count }, () => [next() % 223 + 1, next() % 256, next() % 256, next() % 254 + 1].join('.'));
}

describe('fixtures', () => {
  const dataset = createDataset();

  it('are served as declared, whatever the seed', () => {
    for (const seed of ['iplens', 'other']) {
      const ds = createDataset(seed);
      for (const record of Object.values(FIXTURES)) expect(ds.lookup(record.ip)).toEqual(record);
    }
  });

  it('cover the cases the spec and notes call out', () => {
    expect(FIXTURES.critical).toMatchObject({ ip: '185.220.101.1', score: 95, threatLevel: 'CRITICAL', ipRep: 'known attacker' });
    expect(FIXTURES.suspicious).toMatchObject({ ip: '45.155.205.233', ipRep: 'suspicious' });
    expect(FIXTURES.clean).toMatchObject({ ip: '8.8.8.8', ipRep: 'clean', totalHits: 0 });
    expect(FIXTURES.whitelisted).toMatchObject({ ip: '1.1.1.1', description: 'Cloudflare DNS', lastAttack: '', message: 'IP is whitelisted' });
    expect(FIXTURES.whitelisted.ipRep).toBeUndefined();
    expect(FIXTURES.ipv6.ip).toContain(':');
    expect(FIXTURES.docExample).toMatchObject({ score: 13.01131, lastAttack: '2025-11-29T09:37:40.604584+0000', ipRep: 'bot, crawler' });
    expect(FIXTURES.docExample.ipInfo.isp).toBeUndefined();
    expect(FIXTURES.xss).toMatchObject({ ipRep: '<img src=x onerror=alert(1)>', description: '<script>alert(1)</script>' });
  });

  it('finds IPv6 fixtures in any spelling', () => {
    expect(dataset.lookup('2A0B:4140:0DDD:0000::0001')).toBe(FIXTURES.ipv6);
  });

  it('never finds the not-found IPs, nor malformed ones', () => {
    for (const ip of NOT_FOUND_IPS) expect(dataset.lookup(ip)).toBeNull();
    for (const ip of ['127.1', 'x', '', '1.2.3.4.5', '01.2.3.4']) expect(dataset.lookup(ip)).toBeNull();
  });
});

describe('generated records', () => {
  const ips = randomIps(5_000);

  it('are deterministic for a seed and change with it', () => {
    const a = createDataset('s1');
    const b = createDataset('s1');
    const c = createDataset('s2');
    expect(ips.map((ip) => a.lookup(ip))).toEqual(ips.map((ip) => b.lookup(ip)));
    expect(ips.map((ip) => a.lookup(ip) !== null)).not.toEqual(ips.map((ip) => c.lookup(ip) !== null));
  });

  it(`find about ${FOUND_RATIO * 100}% of IPs`, () => {
    const found = ips.filter((ip) => createDataset().lookup(ip)).length / ips.length;
    expect(found).toBeGreaterThan(0.36);
    expect(found).toBeLessThan(0.44);
  });

  it('are internally consistent and varied', () => {
    const records = ips.map((ip) => createDataset().lookup(ip)).filter((r) => r !== null);
    for (const r of records) {
      expect(r.score).toBeGreaterThanOrEqual(0);
      expect(r.score).toBeLessThanOrEqual(100);
      expect(r.threatLevel).toBe(levelFor(r.score));
      expect(r.totalHits === 0).toBe(r.lastAttack === null);
      expect(r.ipInfo.asn).toMatch(/^AS\d+$/);
    }
    const levels = new Set(records.map((r) => r.threatLevel));
    expect([...levels].sort()).toEqual(['CRITICAL', 'HIGH', 'LOW', 'MEDIUM']);
    expect(records.some((r) => !Number.isInteger(r.score))).toBe(true);
    expect(records.some((r) => r.lastAttack?.endsWith('+0000'))).toBe(true);
    expect(records.some((r) => r.lastAttack?.endsWith('Z'))).toBe(true);
    expect(records.some((r) => r.ipRep === 'bot, crawler')).toBe(true);
  });

  it('give network details to unknown IPs too', () => {
    expect(createDataset().networkFor('4.2.2.2').asn).toMatch(/^AS\d+$/);
    expect(createDataset().networkFor(FIXTURES.critical.ip)).toBe(FIXTURES.critical.ipInfo);
  });
});
