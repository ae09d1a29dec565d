/**
 * Contract: the real client against the real simulator over HTTP, for every endpoint's happy
 * paths, both auth headers, both not-found modes, chunking and quota accounting; then the
 * profile-independent contract under every simulator profile (test/sim/profiles.ts).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FIXTURES, NOT_FOUND_IPS } from '../../sim/dataset';
import { DEMO_KEY, SHARED_QUOTA_KEY, UNLIMITED_KEY } from '../../sim/keys';
import { limitsFromAccount } from '../../../lib/api/account-limits';
import { PROFILE_NAMES } from '../../sim/profiles';
import { startSimulator, type Simulator } from '../../sim/server';
import { clientFor, requestsTo } from './sim-client';

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(() => sim.close());
beforeEach(() => sim.reset());

describe('checkIp', () => {
  it('returns a malicious fixture with details and ipInfo when detailed', async () => {
    const answer = await clientFor(sim).checkIp(FIXTURES.critical.ip, { detailed: true });
    expect(answer).toEqual({
      status: 'found',
      data: {
        ip: '185.220.101.1',
        score: 95,
        threatLevel: null, // the single lookup carries no threat_level
        reputation: 'known attacker',
        totalHits: 1423,
        lastAttack: '2025-11-28T22:14:05.000Z',
        whitelisted: false,
        whitelist: null,
        description: FIXTURES.critical.description,
        ipInfo: { ip: '185.220.101.1', ...FIXTURES.critical.ipInfo },
      },
    });
    expect(requestsTo(sim, '/checkIP')).toMatchObject([{ status: 200, cost: 1, auth: 'authorization' }]);
  });

  it('leaves ipInfo out when not detailed', async () => {
    const answer = await clientFor(sim).checkIp(FIXTURES.suspicious.ip);
    expect(answer.status === 'found' && answer.data.ipInfo).toBe(undefined);
  });

  it('reads the documentation example: fractional score, +0000 microseconds, "bot, crawler", ipInfo without isp', async () => {
    const answer = await clientFor(sim).checkIp(FIXTURES.docExample.ip, { detailed: true });
    expect(answer).toMatchObject({
      status: 'found',
      data: { score: 13.01131, lastAttack: '2025-11-29T09:37:40.604Z', reputation: 'bot, crawler' },
    });
    expect(answer.status === 'found' && answer.data.ipInfo).not.toHaveProperty('isp');
  });

  it('reads a whitelisted IP: no ip_rep, last_attack ""', async () => {
    const answer = await clientFor(sim).checkIp(FIXTURES.whitelisted.ip);
    expect(answer).toMatchObject({
      status: 'found',
      data: {
        whitelisted: true,
        reputation: null,
        lastAttack: null,
        description: 'Cloudflare DNS',
        whitelist: { description: 'Cloudflare DNS', value: '1.1.1.1', entry: FIXTURES.whitelisted.whitelist },
      },
    });
  });

  it('looks up IPv6 in any spelling and echoes the caller spelling', async () => {
    const answer = await clientFor(sim).checkIp('2A0B:4140:0DDD:0:0:0:0:1');
    expect(answer).toMatchObject({ status: 'found', data: { ip: '2A0B:4140:0DDD:0:0:0:0:1', score: 88 } });
  });

  it('passes markup through as text', async () => {
    const answer = await clientFor(sim).checkIp(FIXTURES.xss.ip);
    expect(answer).toMatchObject({ data: { reputation: '<img src=x onerror=alert(1)>', description: '<script>alert(1)</script>' } });
  });

  it('reads both timestamp variants the generator produces', async () => {
    // Walk generated IPs until both wire formats have been seen through the real client.
    const seen = new Set<string>();
    const client = clientFor(sim, { apiKey: UNLIMITED_KEY });
    for (let i = 1; i < 250 && seen.size < 2; i++) {
      const ip = `77.88.${i}.${i}`;
      const record = sim.dataset.lookup(ip);
      if (!record?.lastAttack) continue;
      const answer = await client.checkIp(ip);
      const format = record.lastAttack.endsWith('+0000') ? 'plus-zero' : 'z';
      if (answer.status === 'found') {
        expect(answer.data.lastAttack).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
        expect(Date.parse(answer.data.lastAttack!)).toBe(Date.parse(record.lastAttack.replace('+0000', 'Z').replace(/(\.\d{3})\d+/, '$1')));
        seen.add(format);
      }
    }
    expect([...seen].sort()).toEqual(['plus-zero', 'z']);
  });

  it('notFoundMode 404: not-found, and free', async () => {
    const answer = await clientFor(sim).checkIp(NOT_FOUND_IPS[0]);
    expect(answer).toEqual({ status: 'not-found', ip: '4.2.2.2' });
    expect(requestsTo(sim, '/checkIP')).toMatchObject([{ status: 404, cost: 0 }]);
    expect(sim.usage(DEMO_KEY)).toBe(0);
  });

  it('works with the X-API-Key header too', async () => {
    await clientFor(sim, { authHeader: 'x-api-key' }).checkIp(FIXTURES.high.ip);
    expect(requestsTo(sim, '/checkIP')).toMatchObject([{ auth: 'x-api-key', key: DEMO_KEY, status: 200 }]);
  });
});

describe('checkIp, notFoundMode clean-row', () => {
  let cleanRowSim: Simulator;
  beforeAll(async () => {
    cleanRowSim = await startSimulator({ notFoundMode: 'clean-row' });
  });
  afterAll(() => cleanRowSim.close());

  it('a clean row with total_hits 0 is a found answer, and costs 1', async () => {
    const answer = await clientFor(cleanRowSim).checkIp(NOT_FOUND_IPS[1], { detailed: true });
    expect(answer).toMatchObject({
      status: 'found',
      data: { ip: '9.9.9.9', score: 0, totalHits: 0, reputation: 'clean', lastAttack: null, whitelisted: false },
    });
    expect(answer.status === 'found' && answer.data.ipInfo?.asn).toMatch(/^AS\d+$/);
    expect(cleanRowSim.usage(DEMO_KEY)).toBe(1);
  });
});

describe('checkIpBulk', () => {
  it('250 mixed IPs: 3 requests of at most 100, cost = IPs found, one item per IP in order', async () => {
    const ips = Array.from({ length: 250 }, (_, i) => `45.${(i * 7) % 256}.${i % 256}.${(i * 13) % 250 + 1}`);
    const expectedFound = ips.filter((ip) => sim.dataset.lookup(ip) !== null).length;
    const result = await clientFor(sim, { apiKey: UNLIMITED_KEY }).checkIpBulk(ips);

    expect(result.requests).toBe(3);
    expect(result.failure).toBeUndefined();
    expect(result.items.map((i) => i.ip)).toEqual(ips);
    expect(result.items.filter((i) => i.status === 'found')).toHaveLength(expectedFound);
    expect(result.items.filter((i) => i.status === 'not-found')).toHaveLength(250 - expectedFound);

    const posts = requestsTo(sim, '/checkIP/bulk');
    expect(posts.map((p) => p.ips)).toEqual([100, 100, 50]);
    expect(posts.reduce((sum, p) => sum + p.cost, 0)).toBe(expectedFound);
    expect(sim.usage(UNLIMITED_KEY)).toBe(expectedFound);
    expect(expectedFound).toBeGreaterThan(50); // the dataset's ~40% found
    expect(expectedFound).toBeLessThan(150);
  });

  it('de-duplicates, answers malformed IPs locally and maps fixtures', async () => {
    const result = await clientFor(sim).checkIpBulk([
      FIXTURES.critical.ip,
      '127.1',
      FIXTURES.whitelisted.ip,
      NOT_FOUND_IPS[0],
      FIXTURES.critical.ip,
      '2A0B:4140:DDD::1',
      FIXTURES.docExample.ip,
    ]);
    expect(result.requests).toBe(1);
    expect(result.items.map((i) => [i.ip, i.status])).toEqual([
      ['185.220.101.1', 'found'],
      ['127.1', 'error'],
      ['1.1.1.1', 'found'],
      ['4.2.2.2', 'not-found'],
      ['2A0B:4140:DDD::1', 'found'],
      ['66.249.66.1', 'found'],
    ]);
    const [critical, , whitelisted, , ipv6, doc] = result.items;
    expect(critical).toMatchObject({ data: { score: 95, threatLevel: 'CRITICAL', reputation: 'known attacker' } });
    expect(whitelisted).toMatchObject({ data: { whitelisted: true, reputation: null, lastAttack: null } });
    expect(ipv6).toMatchObject({ data: { score: 88, threatLevel: 'CRITICAL' } });
    expect(doc).toMatchObject({ data: { score: 13.01131, threatLevel: 'LOW', lastAttack: '2025-11-29T09:37:40.604Z' } });
    // Only the 5 valid, distinct IPs were sent; 4 of them are found.
    expect(requestsTo(sim, '/checkIP/bulk')).toMatchObject([{ ips: 5, cost: 4 }]);
  });

  it('keeps what was looked up when a later chunk fails, and reports the failure', async () => {
    // One unit of quota left: the first chunk passes (and overshoots), the second is refused.
    sim.setKey(DEMO_KEY, { currentUsage: 999 });
    const ips = Array.from({ length: 150 }, (_, i) => `51.15.${Math.floor(i / 200)}.${i + 1}`);
    const result = await clientFor(sim).checkIpBulk(ips);
    expect(result.requests).toBe(2);
    expect(result.failure).toMatchObject({ kind: 'quota-exhausted', status: 403 });
    expect(result.items.slice(0, 100).some((i) => i.status === 'found')).toBe(true);
    expect(result.items.slice(0, 100).every((i) => i.status !== 'error')).toBe(true);
    expect(result.items.slice(100).every((i) => i.status === 'error' && i.message === 'API usage limit exceeded')).toBe(true);
  });

  it('throws when the first chunk fails', async () => {
    sim.setKey(DEMO_KEY, { currentUsage: 1000 });
    await expect(clientFor(sim).checkIpBulk(['8.8.8.8'])).rejects.toMatchObject({ kind: 'quota-exhausted' });
  });
});

describe('account and test-key', () => {
  it('account is free and reports usage and organisation quota', async () => {
    await clientFor(sim).checkIp(FIXTURES.critical.ip);
    const account = await clientFor(sim).account();
    expect(account).toEqual({
      organizationId: 'org-soc-demo',
      key: { uid: 'key-demo-0001', name: 'SOC demo key', currentUsage: 1, maxApiRequests: 1000, createdAt: '2025-03-01T09:00:00.000Z' },
      organization: expect.objectContaining({ totalQuota: 100_000, currentUsage: 1, unlimited: false, source: 'partner_status' }),
    });
    expect(sim.usage(DEMO_KEY)).toBe(1);
  });

  it('account reports a key without its own limit and an unlimited organisation', async () => {
    const account = await clientFor(sim, { apiKey: UNLIMITED_KEY }).account();
    expect(account.key.maxApiRequests).toBeNull();
    expect(account.organization).toMatchObject({ unlimited: true, totalQuota: null });
    const shared = await clientFor(sim, { apiKey: SHARED_QUOTA_KEY }).account();
    expect(shared.organization).toMatchObject({ maxApiRequests: 20, unlimited: false });
  });

  it('test-key costs one request and says so', async () => {
    const result = await clientFor(sim).testKey();
    expect(result).toMatchObject({
      success: true,
      message: 'API key validation successful! -1 Request',
      organizationId: 'org-soc-demo',
      key: { name: 'SOC demo key', currentUsage: 1, maxApiRequests: 1000 },
    });
    expect(result.timestamp).toMatch(/Z$/);
    expect(sim.usage(DEMO_KEY)).toBe(1);
  });
});

describe('checkSubnet', () => {
  it('lists only found IPs with a summary and charges per found IP', async () => {
    const result = await clientFor(sim).checkSubnet('185.220.101.0/24');
    const expected = Array.from({ length: 254 }, (_, i) => `185.220.101.${i + 1}`).filter((ip) => sim.dataset.lookup(ip));
    expect(result.cidr).toBe('185.220.101.0/24');
    expect(result.items.map((i) => i.ip)).toEqual(expected);
    expect(result.items[0]).toMatchObject({ ip: '185.220.101.1', score: 95, threatLevel: 'CRITICAL' });
    expect(result.summary).toMatchObject({ total: 254, foundCount: expected.length });
    expect(sim.usage(DEMO_KEY)).toBe(expected.length);
  });
});

describe.each(PROFILE_NAMES)('every endpoint under profile %s', (profile) => {
  let profiled: Simulator;
  beforeAll(async () => {
    profiled = await startSimulator({ profile });
  });
  afterAll(() => profiled.close());
  beforeEach(() => profiled.setProfile(profile));

  it('checkIp reads every fixture; unknown IPs are not-found or a clean row', async () => {
    const client = clientFor(profiled, { apiKey: UNLIMITED_KEY });
    for (const record of Object.values(FIXTURES)) {
      const answer = await client.checkIp(record.ip, { detailed: true });
      expect(answer, record.ip).toMatchObject({ status: 'found', data: { whitelisted: record.whitelist !== null } });
      expect(answer.status === 'found' && answer.data.ipInfo?.asn, record.ip).toBe(record.ipInfo.asn);
    }
    for (const ip of NOT_FOUND_IPS) {
      const answer = await client.checkIp(ip);
      if (answer.status === 'found') expect(answer.data).toMatchObject({ totalHits: 0, reputation: 'clean' });
      else expect(answer.status).toBe('not-found');
    }
  });

  it('bulk: every row usable, whitelisted rows whitelisted, billed only the IPs in the database', async () => {
    const ips = [...Object.values(FIXTURES).map((r) => r.ip), ...NOT_FOUND_IPS, ...Array.from({ length: 120 }, (_, i) => `62.${i}.7.${i + 1}`)];
    const result = await clientFor(profiled, { apiKey: UNLIMITED_KEY }).checkIpBulk(ips);
    expect(result.items.filter((i) => i.status === 'error')).toEqual([]);
    const whitelisted = result.items.find((i) => i.ip === FIXTURES.whitelisted.ip);
    expect(whitelisted).toMatchObject({ status: 'found', data: { whitelisted: true, whitelist: { value: '1.1.1.1' } } });
    expect(profiled.usage(UNLIMITED_KEY)).toBe(ips.filter((ip) => profiled.dataset.lookup(ip) !== null).length);
  });

  it('account: the limit that applies, by the documented rule', async () => {
    profiled.setKey(DEMO_KEY, { currentUsage: 40 });
    const limits = limitsFromAccount(await clientFor(profiled).account());
    expect(limits).toEqual(
      profile === 'org-pool'
        ? { used: 40, limit: 1000, unlimited: false, scope: 'organization' }
        : { used: 40, limit: 1000, unlimited: false, scope: 'key' },
    );
  });

  it('the usage limit is quota-exhausted whatever its 403 text says', async () => {
    profiled.setKey(DEMO_KEY, { currentUsage: 1000 });
    await expect(clientFor(profiled).checkIpBulk(['8.8.8.8'])).rejects.toMatchObject({ kind: 'quota-exhausted', status: 403 });
  });
});
