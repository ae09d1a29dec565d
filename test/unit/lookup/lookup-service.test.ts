import { describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../../lib/api/errors';
import type { LookupResult } from '../../../lib/lookup/types';
import { createMemoryCacheStore } from '../../../lib/lookup/cache-store';
import { FakeApiClient, isFound } from './helpers/fake-api-client';
import { publicIp, publicIps } from './helpers/ips';
import { createHarness } from './helpers/service-harness';

const statuses = (results: LookupResult[]) => results.map((r) => (r.status === 'skipped' ? `skipped:${r.reason}` : r.status));

describe('LookupService: what is sent', () => {
  it('answers one result per input in order, skipping invalid and private addresses', async () => {
    const h = createHarness();
    const results = await h.settle(
      h.service.lookup(['23.0.0.2', 'not-an-ip', '10.1.2.3', '127.0.0.1', '23.0.0.3', ' 23.0.0.2 ', '::ffff:23.0.0.3'], { priority: 'visible', source: 'p' }),
    );
    expect(statuses(results)).toEqual(['found', 'skipped:invalid', 'skipped:private', 'skipped:loopback', 'not-found', 'found', 'not-found']);
    expect(results[1]).toEqual({ ip: 'not-an-ip', status: 'skipped', reason: 'invalid' });
    // Duplicates (other spellings included) went out once.
    expect(h.client.bulkCalls).toEqual([['23.0.0.2', '23.0.0.3']]);
  });

  it('sends private addresses when the policy allows it', async () => {
    const h = createHarness({ policy: { sendPrivate: true } });
    const [result] = await h.settle(h.service.lookup(['10.1.2.4'], { priority: 'manual' }));
    expect(result?.status).toBe('found');
    expect(h.client.bulkCalls).toEqual([['10.1.2.4']]);
  });

  it('with automatic lookups off, page scans get cached answers only; manual lookups still go out', async () => {
    const h = createHarness({ policy: { automatic: false } });
    expect(statuses(await h.settle(h.service.lookup(['23.0.0.2'], { priority: 'visible' })))).toEqual(['skipped:automatic-off']);
    expect(h.client.bulkCalls).toEqual([]);
    await h.settle(h.service.lookup(['23.0.0.2'], { priority: 'manual' }));
    expect(statuses(await h.settle(h.service.lookup(['23.0.0.2', '23.0.0.4'], { priority: 'background' })))).toEqual([
      'found',
      'skipped:automatic-off',
    ]);
    expect(h.client.bulkCalls).toEqual([['23.0.0.2']]);
  });

  it('without a key every lookup is skipped as no-key and nothing is called', async () => {
    const h = createHarness({ client: null });
    expect(statuses(await h.settle(h.service.lookup(['23.0.0.2'], { priority: 'manual' })))).toEqual(['skipped:no-key']);
    await expect(h.service.verifyKey()).rejects.toMatchObject({ kind: 'missing-key' });
    expect((await h.service.status()).quota.state).toBe('unknown');
  });

  it('caps automatic lookups per page but not manual ones; cached IPs are free', async () => {
    const h = createHarness({ policy: { perPageCap: 5 } });
    await h.settle(h.service.lookup(['23.0.0.100'], { priority: 'manual' }));
    const ips = ['23.0.0.100', ...publicIps(8, 1)];
    const results = await h.settle(h.service.lookup(ips, { priority: 'visible', source: 'tab1' }));
    expect(statuses(results).filter((s) => s === 'skipped:page-cap')).toHaveLength(3);
    expect(results[0]?.status).toBe('found'); // from cache, not counted
    const other = await h.settle(h.service.lookup(ips.slice(6), { priority: 'visible', source: 'tab2' }));
    expect(statuses(other).some((s) => s === 'skipped:page-cap')).toBe(false);
    const manual = await h.settle(h.service.lookup(ips, { priority: 'manual' }));
    expect(statuses(manual).some((s) => s.startsWith('skipped'))).toBe(false);
  });

  it('looks up the rest past the tab cap when asked, but the site ceiling holds, and asks after it are free', async () => {
    const h = createHarness({ policy: { perPageCap: 2, siteDailyCap: 4 } });
    const cap = { source: 'tab1|s', site: 's' };
    const ips = publicIps(5, 1);
    const auto = await h.settle(h.service.lookup(ips, { priority: 'visible', ...cap }));
    expect(statuses(auto).filter((s) => s === 'skipped:page-cap')).toHaveLength(3);
    const rest = await h.settle(h.service.lookUpPastCap(ips.slice(2), cap));
    // Room under the ceiling (4) for two of the three: the third is held back by it.
    expect(statuses(rest).slice(0, 2).every((s) => s === 'found' || s === 'not-found')).toBe(true);
    expect(rest[2]).toEqual({ ip: ips[4], status: 'skipped', reason: 'site-cap', limit: 4 });
    const calls = h.client.bulkCalls.length;
    const again = await h.settle(h.service.lookup(ips.slice(0, 4), { priority: 'visible', ...cap }));
    expect(statuses(again).some((s) => s.startsWith('skipped'))).toBe(false);
    expect(h.client.bulkCalls.length).toBe(calls);
  });

  it('answerNow: the cache and the cap answer at once, without waiting for the call the others are queued for', async () => {
    const h = createHarness({ policy: { perPageCap: 2 } });
    await h.settle(h.service.lookup(['23.0.0.100'], { priority: 'manual' }));
    h.client.hold();
    const ips = ['23.0.0.100', ...publicIps(3, 1)];
    const first = await h.service.lookup(ips, { priority: 'visible', source: 'tab1', answerNow: true });
    // The API has not answered anything (held), yet the cached IP and the capped one are known.
    expect(statuses(first)).toEqual(['found', 'skipped:page-cap']);
    expect(first.map((r) => r.ip)).toEqual(['23.0.0.100', publicIps(3, 1)[2]]);
    // Asking again for the queued ones joins their call and counts nothing twice.
    const rest = h.settle(h.service.lookup(publicIps(2, 1), { priority: 'visible', source: 'tab1' }));
    h.client.release();
    expect(statuses(await rest).every((s) => s === 'found' || s === 'not-found')).toBe(true);
    expect(h.client.bulkCalls.flat().filter((ip) => publicIps(2, 1).includes(ip))).toHaveLength(2);
  });

  it("answers the cap's refusals with the cap that stopped them: the tab's cap or the site's daily ceiling", async () => {
    const h = createHarness({ policy: { perPageCap: 2, siteDailyCap: 3 } });
    const first = await h.settle(h.service.lookup(publicIps(3, 1), { priority: 'visible', source: 'tab1|s', site: 's' }));
    expect(first[2]).toEqual({ ip: publicIps(3, 1)[2], status: 'skipped', reason: 'page-cap', limit: 2 });
    const second = await h.settle(h.service.lookup(publicIps(2, 10), { priority: 'visible', source: 'tab2|s', site: 's' }));
    expect(second[0]?.status).toBe('found');
    expect(second[1]).toEqual({ ip: publicIps(2, 10)[1], status: 'skipped', reason: 'site-cap', limit: 3 });
  });
});

describe('LookupService: calls while a page scrolls', () => {
  it('new on-screen IPs wait up to 350 ms for company while calls keep going out, and one after a quiet second goes at once', async () => {
    const h = createHarness();
    const ips = publicIps(8, 3);
    const sentAt = new Map<string, number>();
    const start = h.clock.now();
    const seen = () => h.client.bulkCalls.flat().forEach((ip) => sentAt.has(ip) || sentAt.set(ip, h.clock.now() - start));
    const askedAt = new Map<string, number>();
    // Clusters of addresses coming on screen (ms after the first): a grid row or two at a time.
    const schedule: [number, string][] = [[0, ips[0]!], [400, ips[1]!], [450, ips[2]!], [500, ips[3]!], [900, ips[4]!], [950, ips[5]!], [1_000, ips[6]!], [3_000, ips[7]!]];
    const answers: Promise<unknown>[] = [];
    for (let t = 0; t <= 3_500; t += 25) {
      for (const [at, ip] of schedule) {
        if (at !== t) continue;
        askedAt.set(ip, t);
        answers.push(h.service.lookup([ip], { priority: 'visible', source: 'tab1' }));
      }
      await h.clock.advance(25);
      seen();
    }
    await Promise.all(answers);
    // The old pace (350 ms) sent ips[1] alone the moment it came, then ips[2..3]: 5 calls.
    expect(h.client.bulkCalls).toEqual([[ips[0]], ips.slice(1, 4), ips.slice(4, 7), [ips[7]]]);
    // Each left within its 350 ms (plus the 25 ms steps of this clock).
    for (const [ip, t] of askedAt) expect(sentAt.get(ip)! - t).toBeLessThanOrEqual(375);
    // After a quiet second the first new address does not wait.
    expect(sentAt.get(ips[7]!)! - 3_000).toBeLessThanOrEqual(50);
  });
});

describe('LookupService: addresses near the screen', () => {
  it('wait up to 2 s for company, so three renders of a live tail go in one call; one that comes on screen leaves within 350 ms', async () => {
    const h = createHarness();
    const [a, b, c, d, onScreen] = publicIps(5, 40);
    const sentAt: number[] = [];
    const start = h.clock.now();
    const answers: Promise<unknown>[] = [];
    const step = async (until: number) => {
      while (h.clock.now() - start < until) {
        const before = h.client.bulkCalls.length;
        await h.clock.advance(25);
        if (h.client.bulkCalls.length > before) sentAt.push(h.clock.now() - start);
      }
    };
    const near = (ip: string) => answers.push(h.service.lookup([ip], { priority: 'background', source: 'tab1' }));
    // A live tail's renders, about a second apart, each bring an address near the screen (not on it).
    near(a!);
    await step(900);
    near(b!);
    await step(1_800);
    near(c!);
    // The old 1 s wait sent a and b at 1 s, then c alone at 2.8 s.
    await step(1_975);
    expect(h.client.bulkCalls).toEqual([]);
    await step(2_050);
    expect(h.client.bulkCalls).toEqual([[a, b, c]]);
    // A near address that comes on screen is asked again as on screen: 350 ms from then.
    near(d!);
    near(onScreen!);
    await step(3_000);
    answers.push(h.service.lookup([onScreen!], { priority: 'visible', source: 'tab1' }));
    await step(3_500);
    expect(h.client.bulkCalls.slice(1)).toEqual([[onScreen, d]]);
    expect(sentAt[1]! - 3_000).toBeLessThanOrEqual(375);
    await Promise.all(answers);
  });
});

describe('LookupService: cache', () => {
  it('never asks twice for what it knows, until the TTL of that kind runs out', async () => {
    const h = createHarness({ policy: { ttlFoundMinutes: 60, ttlNotFoundMinutes: 10 } });
    const ips = publicIps(10, 1);
    await h.settle(h.service.lookup(ips, { priority: 'visible' }));
    await h.settle(h.service.lookup(ips, { priority: 'visible' }));
    expect(h.client.bulkCalls).toHaveLength(1);
    const notFound = ips.filter((ip) => !isFound(ip));
    const found = ips.filter((ip) => isFound(ip));
    await h.clock.advance(10 * 60_000); // t=10: not-found answers expire first
    await h.settle(h.service.lookup(ips, { priority: 'visible' }));
    expect(h.client.bulkCalls[1]).toEqual(notFound);
    await h.clock.advance(45 * 60_000); // t=55: found still fresh, not-found (from t=10) stale
    await h.settle(h.service.lookup(ips, { priority: 'visible' }));
    expect(h.client.bulkCalls[2]).toEqual(notFound);
    await h.clock.advance(5 * 60_000); // t=60: found answers expire
    await h.settle(h.service.lookup(ips, { priority: 'visible' }));
    expect(h.client.bulkCalls[3]).toEqual(found);
    expect(h.client.bulkCalls).toHaveLength(4);
  });

  it('a broken persistent store degrades to the memory cache and never fails a lookup', async () => {
    const broken = () => Promise.reject(new Error('IndexedDB is gone'));
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const h = createHarness({
      cacheStore: { getMany: broken, putMany: broken, deleteMany: broken, clear: broken, count: broken, claim: broken, setMaxEntries: () => undefined },
    });
    expect(statuses(await h.settle(h.service.lookup(['23.0.0.2'], { priority: 'visible' })))).toEqual(['found']);
    await h.service.whenIdle();
    expect(statuses(await h.settle(h.service.lookup(['23.0.0.2'], { priority: 'visible' })))).toEqual(['found']);
    expect(h.client.bulkCalls).toHaveLength(1); // the memory layer answered
    expect((await h.service.status()).cacheSize).toBe(1);
    expect(warn).toHaveBeenCalled();
  });

  it('clear cache forgets everything and says how much', async () => {
    const h = createHarness();
    await h.settle(h.service.lookup(publicIps(4), { priority: 'manual' }));
    await h.service.whenIdle();
    expect(await h.service.clearCache()).toEqual({ cleared: 4 });
    await h.settle(h.service.lookup(publicIps(4), { priority: 'manual' }));
    expect(h.client.bulkCalls).toHaveLength(2);
  });

  it('an answer to a call that started before a clear is delivered but not cached', async () => {
    const h = createHarness();
    h.client.hold();
    const pending = h.service.lookup(['23.0.0.2'], { priority: 'manual' });
    await h.until(() => h.client.heldCalls === 1);
    await h.service.clearCache();
    h.client.release();
    expect((await h.settle(pending))[0]?.status).toBe('found');
    await h.settle(h.service.lookup(['23.0.0.2'], { priority: 'manual' }));
    expect(h.client.bulkCalls).toHaveLength(2);
  });
});

describe('LookupService: detailed lookups', () => {
  it('one detailed checkIP per IP; the answer also serves plain lookups', async () => {
    const h = createHarness();
    const [detailed] = await h.settle(h.service.lookup(['23.0.0.2'], { priority: 'manual', detailed: true }));
    expect(detailed?.status === 'found' && detailed.data.ipInfo?.asn).toBe('AS64500');
    await h.settle(h.service.lookup(['23.0.0.2'], { priority: 'visible' }));
    await h.settle(h.service.lookup(['23.0.0.2'], { priority: 'manual', detailed: true }));
    expect(h.client.checkCalls).toEqual([{ ip: '23.0.0.2', detailed: true }]);
    expect(h.client.bulkCalls).toEqual([]);
  });

  it('a plain answer does not satisfy a detailed lookup; concurrent detailed asks share one call', async () => {
    const h = createHarness();
    await h.settle(h.service.lookup(['23.0.0.2'], { priority: 'visible' }));
    const both = Promise.all([
      h.service.lookup(['23.0.0.2'], { priority: 'manual', detailed: true }),
      h.service.lookup(['23.0.0.2'], { priority: 'manual', detailed: true }),
    ]);
    await h.settle(both);
    expect(h.client.checkCalls).toHaveLength(1);
  });

  it('when only the reputation is stale, a cheap bulk call refreshes it and the details are kept', async () => {
    const h = createHarness({ policy: { ttlFoundMinutes: 60, ttlDetailedMinutes: 24 * 60 } });
    await h.settle(h.service.lookup(['23.0.0.2'], { priority: 'manual', detailed: true }));
    await h.clock.advance(2 * 60 * 60_000);
    const [again] = await h.settle(h.service.lookup(['23.0.0.2'], { priority: 'manual', detailed: true }));
    expect(h.client.checkCalls).toHaveLength(1);
    expect(h.client.bulkCalls).toEqual([['23.0.0.2']]);
    expect(again?.status === 'found' && again.data.ipInfo?.country_code).toBe('NL');
  });
});

describe('LookupService: quota', () => {
  it('charges what calls cost to the ledger', async () => {
    const h = createHarness();
    h.client.account_ = { used: 100, limit: 1000 };
    await h.settle(h.service.lookup(publicIps(10), { priority: 'visible' }));
    await h.settle(h.service.lookup(['23.1.0.2'], { priority: 'manual', detailed: true }));
    await h.service.testKey();
    const found = publicIps(10).filter(isFound).length;
    expect((await h.service.status()).quota).toMatchObject({ used: 100 + found + 1 + 1, pendingLocalCost: found + 2 });
  });

  it('automatic lookups stop at the reserve; manual ones may use it', async () => {
    const h = createHarness();
    h.client.account_ = { used: 900, limit: 1000 }; // reserve 100: nothing left for scans
    const auto = await h.settle(h.service.lookup(publicIps(5), { priority: 'visible' }));
    expect(statuses(auto)).toEqual(Array(5).fill('skipped:quota-reserve'));
    expect(h.client.bulkCalls).toEqual([]);
    const manual = await h.settle(h.service.lookup(publicIps(5), { priority: 'manual' }));
    expect(statuses(manual).every((s) => s === 'found' || s === 'not-found')).toBe(true);
    expect((await h.service.status()).quota.state).toBe('reserve-reached');
  });

  it('automatic lookups never spend into the reserve, even in parallel batches', async () => {
    const h = createHarness();
    h.client.account_ = { used: 870, limit: 1000 }; // 30 units above the reserve
    const ips = publicIps(300);
    const results = await h.settle(h.service.lookup(ips, { priority: 'background' }));
    const spent = h.client.bulkCalls.flat().filter(isFound).length;
    expect(spent).toBeLessThanOrEqual(30);
    expect(spent).toBeGreaterThan(0);
    expect(statuses(results).filter((s) => s === 'skipped:quota-reserve').length).toBe(300 - h.client.bulkCalls.flat().length);
    expect(h.client.sentTwice()).toEqual([]);
  });

  it('a 403 usage-limit stops everything, with a clear state, until /account shows room', async () => {
    const h = createHarness();
    h.client.bulkFailures.push({ kind: 'quota-exhausted', status: 403, message: 'API usage limit exceeded' });
    const first = await h.settle(h.service.lookup(publicIps(3), { priority: 'visible' }));
    expect(statuses(first)).toEqual(Array(3).fill('skipped:quota-exhausted'));
    const status = await h.service.status();
    expect(status.quota).toMatchObject({ state: 'exhausted', detail: 'API usage limit exceeded' });
    expect(status.lastError).toMatchObject({ kind: 'quota-exhausted' });
    expect(statuses(await h.settle(h.service.lookup(publicIps(2, 50), { priority: 'manual' })))).toEqual([
      'skipped:quota-exhausted',
      'skipped:quota-exhausted',
    ]);
    expect(h.client.bulkCalls).toHaveLength(1);
    h.client.account_ = { used: 0, limit: 1000 }; // a new billing period
    expect((await h.service.refreshQuota()).state).toBe('ok');
    expect(statuses(await h.settle(h.service.lookup(['23.0.0.2'], { priority: 'visible' })))).toEqual(['found']);
  });

  it('recovers on its own from exhaustion once the recheck interval has passed', async () => {
    const h = createHarness();
    h.client.bulkFailures.push({ kind: 'quota-exhausted', status: 403, message: 'API usage limit exceeded' });
    await h.settle(h.service.lookup(['23.0.0.2'], { priority: 'visible' }));
    h.client.account_ = { used: 0, limit: 1000 };
    await h.clock.advance(61_000);
    await h.settle(h.service.lookup(['23.0.0.4'], { priority: 'visible' })); // skipped, but triggers the re-check
    await h.service.whenIdle();
    expect(statuses(await h.settle(h.service.lookup(['23.0.0.4'], { priority: 'visible' })))).toEqual(['found']);
  });
});

describe('LookupService: failures', () => {
  it('a failed call answers its IPs with the error and caches nothing', async () => {
    const h = createHarness();
    h.client.bulkFailures.push({ kind: 'server', status: 500, message: 'Internal server error' });
    const [first] = await h.settle(h.service.lookup(['23.0.0.2'], { priority: 'manual' }));
    expect(first).toEqual({ ip: '23.0.0.2', status: 'error', error: { kind: 'server', status: 500, message: 'Internal server error' } });
    expect((await h.settle(h.service.lookup(['23.0.0.2'], { priority: 'manual' })))[0]?.status).toBe('found');
    expect(h.client.bulkCalls).toHaveLength(2);
  });

  it('a rejected key fails everything without calling again, until the key changes', async () => {
    const h = createHarness();
    h.client.bulkFailures.push({ kind: 'invalid-key', status: 403, message: 'Invalid API key' });
    const first = await h.settle(h.service.lookup(['23.0.0.2', '23.0.0.4'], { priority: 'visible' }));
    expect(first.map((r) => r.status === 'error' && r.error.kind)).toEqual(['invalid-key', 'invalid-key']);
    await h.settle(h.service.lookup(['23.0.0.6'], { priority: 'manual' }));
    expect(h.client.bulkCalls).toHaveLength(1);
    h.service.credentialsChanged();
    expect((await h.settle(h.service.lookup(['23.0.0.6'], { priority: 'manual' })))[0]?.status).toBe('found');
  });

  it('a 429 pauses the queue (Retry-After), then answers every caller exactly once', async () => {
    const h = createHarness();
    h.client.bulkFailures.push({ kind: 'rate-limited', status: 429, message: 'Rate limit exceeded', retryAfterMs: 3_000 });
    const answered: string[] = [];
    const callers = [publicIps(60, 0), publicIps(60, 30), publicIps(60, 90)].map((ips) =>
      h.service.lookup(ips, { priority: 'visible' }).then((results) => results.forEach((r) => answered.push(r.ip))),
    );
    await h.until(() => h.service.stats().pausedUntil !== null, 1);
    // Set when the 429 came back: the harness may have stepped its clock once since.
    const pausedFor = h.service.stats().pausedUntil! - h.clock.now();
    expect(pausedFor).toBeGreaterThanOrEqual(2_998);
    expect(pausedFor).toBeLessThanOrEqual(3_000);
    expect((await h.service.status()).pausedUntil).not.toBeNull();
    const callsWhilePaused = h.client.bulkCalls.length;
    await h.clock.advance(pausedFor - 1);
    expect(h.client.bulkCalls.length).toBe(callsWhilePaused);
    await h.settle(Promise.all(callers));
    expect(answered).toHaveLength(180);
    // Every IP answered by exactly one successful call.
    const successful = h.client.bulkCalls.slice(1).flat();
    expect(successful.length).toBe(150);
    expect(new Set(successful).size).toBe(150);
  });

  it('status reports queue, in-flight, cache size and last error', async () => {
    const h = createHarness();
    h.client.hold();
    const pending = h.service.lookup(publicIps(150), { priority: 'visible' });
    await h.until(() => h.client.heldCalls === 1, 1);
    const busy = await h.service.status();
    expect(busy.inFlight).toBe(100);
    expect(busy.queueLength).toBe(50);
    h.client.release();
    await h.settle(pending);
    await h.service.whenIdle();
    const idle = await h.service.status();
    expect(idle).toMatchObject({ queueLength: 0, inFlight: 0, cacheSize: 150, lastError: null, pausedUntil: null });
  });

  it('verify-key surfaces the API error and remembers it', async () => {
    const h = createHarness();
    await h.settle(h.service.lookup([publicIp(1)], { priority: 'manual' }));
    h.client.accountFailure = { kind: 'invalid-key', status: 403, message: 'Invalid API key' };
    await expect(h.service.verifyKey()).rejects.toBeInstanceOf(ApiError);
    expect((await h.service.status()).lastError).toMatchObject({ kind: 'invalid-key' });
  });
});

describe('LookupService: settings', () => {
  it('applies a new policy when told it changed', async () => {
    const h = createHarness({ policy: { perPageCap: 1 } });
    const before = await h.settle(h.service.lookup(publicIps(2), { priority: 'visible', source: 's' }));
    expect(statuses(before)[1]).toBe('skipped:page-cap');
    h.policy = { ...h.policy, perPageCap: 10 };
    h.service.policyChanged();
    const after = await h.settle(h.service.lookup(publicIps(2), { priority: 'visible', source: 's' }));
    expect(statuses(after)[1]).not.toBe('skipped:page-cap');
  });

  it('a new key gets a new ledger and a fresh /account', async () => {
    const client = new FakeApiClient();
    let identity = 'key-1';
    const h = createHarness({ client, extra: { clientSource: async () => ({ server: 'https://api.test/v1', handle: { client, identity } }) } });
    client.account_ = { used: 10, limit: 1000 };
    expect((await h.service.status()).quota.used).toBe(10);
    identity = 'key-2';
    client.account_ = { used: 500, limit: 2000 };
    h.service.credentialsChanged();
    await h.clock.advance(0);
    expect((await h.service.status()).quota).toMatchObject({ used: 500, limit: 2000 });
    expect(client.accountCalls).toBe(2);
  });
});

describe('LookupService: settings read out of order', () => {
  /** A source whose answers the test releases one by one, in any order. */
  function heldSource<T>() {
    const pending: { resolve: (value: T) => void }[] = [];
    return {
      pending,
      read: () => new Promise<T>((resolve) => pending.push({ resolve })),
    };
  }

  it('a slow read of the old key that ends after the new one does not bring the old key back', async () => {
    const oldClient = new FakeApiClient();
    const newClient = new FakeApiClient();
    const source = heldSource<{ server: string; handle: { client: FakeApiClient; identity: string } }>();
    const h = createHarness({ client: oldClient, extra: { clientSource: source.read } });
    const first = h.service.status();
    await h.clock.advance(0);
    h.service.credentialsChanged();
    await h.clock.advance(0);
    expect(source.pending).toHaveLength(2);
    source.pending[1]!.resolve({ server: 'https://api.test/v1', handle: { client: newClient, identity: 'key-2' } });
    await h.clock.advance(0);
    source.pending[0]!.resolve({ server: 'https://api.test/v1', handle: { client: oldClient, identity: 'key-1' } });
    await h.settle(first);
    await h.settle(h.service.lookup(publicIps(2), { priority: 'manual' }));
    expect(oldClient.bulkCalls).toEqual([]);
    expect(newClient.bulkCalls).toEqual([publicIps(2)]);
  });

  it('a slow read of the old policy that ends after the new one does not bring the old cap back', async () => {
    const source = heldSource<typeof h.policy>();
    const h = createHarness({ extra: { policySource: source.read } });
    const first = h.service.status();
    await h.clock.advance(0);
    h.service.policyChanged();
    await h.clock.advance(0);
    expect(source.pending).toHaveLength(2);
    source.pending[1]!.resolve({ ...h.policy, perPageCap: 10 });
    await h.clock.advance(0);
    source.pending[0]!.resolve({ ...h.policy, perPageCap: 1 });
    await h.settle(first);
    const results = await h.settle(h.service.lookup(publicIps(3), { priority: 'visible', source: 's' }));
    expect(statuses(results)).not.toContain('skipped:page-cap');
  });
});

describe('LookupService: the API server owns the cache', () => {
  const MIRROR = 'https://mirror.example/api/v1';

  it('a new base URL drops every cached answer, in memory and in the store, and asks the new server', async () => {
    const h = createHarness();
    await h.settle(h.service.lookup(publicIps(3), { priority: 'manual' }));
    await h.service.whenIdle();
    expect(await h.cacheStore.count()).toBe(3);
    h.server = MIRROR;
    h.service.credentialsChanged();
    expect((await h.settle(h.service.status())).cacheSize).toBe(0);
    expect(await h.cacheStore.count()).toBe(0);
    await h.settle(h.service.lookup(publicIps(3), { priority: 'manual' }));
    expect(h.client.bulkCalls).toEqual([publicIps(3), publicIps(3)]);
  });

  it('a new key or auth header on the same server keeps the cached answers', async () => {
    const client = new FakeApiClient();
    let identity = 'key-1';
    const h = createHarness({ client, extra: { clientSource: async () => ({ server: 'https://api.test/v1', handle: { client, identity } }) } });
    await h.settle(h.service.lookup(publicIps(3), { priority: 'manual' }));
    identity = 'key-2';
    h.service.credentialsChanged();
    await h.settle(h.service.lookup(publicIps(3), { priority: 'manual' }));
    h.service.credentialsChanged(); // the auth header: same server, same key
    await h.settle(h.service.lookup(publicIps(3), { priority: 'manual' }));
    expect(h.client.bulkCalls).toHaveLength(1);
  });

  it('a server change made while the worker was stopped is caught at start-up', async () => {
    const cacheStore = createMemoryCacheStore();
    const first = createHarness({ cacheStore });
    await first.settle(first.service.lookup(publicIps(3), { priority: 'manual' }));
    await first.service.whenIdle();

    const sameServer = createHarness({ cacheStore });
    await sameServer.settle(sameServer.service.lookup(publicIps(3), { priority: 'manual' }));
    expect(sameServer.client.bulkCalls).toEqual([]);

    const otherServer = createHarness({ cacheStore, server: MIRROR });
    await otherServer.settle(otherServer.service.lookup(publicIps(3), { priority: 'manual' }));
    expect(otherServer.client.bulkCalls).toEqual([publicIps(3)]);
  });

  it("an old server's answer that lands after the change reaches its caller but is not cached", async () => {
    const h = createHarness();
    h.client.hold();
    const pending = h.service.lookup(['23.0.0.2'], { priority: 'manual' });
    await h.until(() => h.client.heldCalls === 1);
    h.server = MIRROR;
    h.service.credentialsChanged();
    await h.settle(h.service.status());
    h.client.release();
    expect((await h.settle(pending))[0]?.status).toBe('found');
    await h.service.whenIdle();
    expect(await h.cacheStore.count()).toBe(0);
    await h.settle(h.service.lookup(['23.0.0.2'], { priority: 'manual' }));
    expect(h.client.bulkCalls).toHaveLength(2);
  });

  it('a lookup made after the change does not join a call still in flight to the old server', async () => {
    const h = createHarness();
    h.client.hold();
    const before = h.service.lookup(['23.0.0.2'], { priority: 'manual' });
    await h.until(() => h.client.heldCalls === 1);
    h.server = MIRROR;
    h.service.credentialsChanged();
    await h.settle(h.service.status());
    const after = h.service.lookup(['23.0.0.2'], { priority: 'manual' });
    await h.until(() => h.client.heldCalls === 2);
    h.client.release();
    await h.settle(Promise.all([before, after]));
    await h.service.whenIdle();
    expect(h.client.bulkCalls).toEqual([['23.0.0.2'], ['23.0.0.2']]);
    expect(await h.cacheStore.count()).toBe(1); // the new server's answer only
  });

  it("what a call of the old key cost is not charged to the new key's quota", async () => {
    const oldClient = new FakeApiClient();
    let current = { client: oldClient, identity: 'key-1' };
    const h = createHarness({ client: oldClient, extra: { clientSource: async () => ({ server: 'https://api.test/v1', handle: current }) } });
    oldClient.hold();
    const before = h.service.lookup(['23.0.0.2'], { priority: 'manual' });
    await h.until(() => oldClient.heldCalls === 1);
    current = { client: new FakeApiClient(), identity: 'key-2' };
    h.service.credentialsChanged();
    await h.settle(h.service.status());
    oldClient.release();
    expect((await h.settle(before))[0]?.status).toBe('found');
    expect((await h.service.status()).quota.pendingLocalCost).toBe(0);
  });

  it("a late failure of the old key's call does not block the new key", async () => {
    const oldClient = new FakeApiClient();
    const newClient = new FakeApiClient();
    let current = { client: oldClient, identity: 'key-1' };
    const h = createHarness({ client: oldClient, extra: { clientSource: async () => ({ server: 'https://api.test/v1', handle: current }) } });
    oldClient.hold();
    const before = h.service.lookup(['23.0.0.2'], { priority: 'manual' });
    await h.until(() => oldClient.heldCalls === 1);
    current = { client: newClient, identity: 'key-2' };
    h.service.credentialsChanged();
    await h.settle(h.service.status());
    oldClient.bulkFailures.push({ kind: 'invalid-key', status: 401, message: 'Invalid API key' });
    oldClient.release();
    expect((await h.settle(before))[0]).toMatchObject({ status: 'error', error: { kind: 'invalid-key' } });
    const [after] = await h.settle(h.service.lookup(['23.0.0.4'], { priority: 'manual' }));
    expect(after?.status).toBe('found');
    expect((await h.service.status()).lastError).toBeNull();
  });

  it("the old server's rate-limit pause and last error do not hold the new one", async () => {
    const h = createHarness();
    h.client.bulkFailures.push({ kind: 'rate-limited', status: 429, message: 'Rate limit exceeded', retryAfterMs: 10 * 60_000 });
    const pending = h.service.lookup(['23.0.0.2'], { priority: 'visible' });
    await h.until(() => h.service.stats().pausedUntil !== null, 1);
    expect((await h.service.status()).lastError).toMatchObject({ kind: 'rate-limited' });
    h.server = MIRROR;
    h.service.credentialsChanged();
    // settle() moves the clock 50 s at most: the answer comes only if the pause was lifted.
    expect(statuses(await h.settle(pending))).toEqual(['found']);
    expect(await h.service.status()).toMatchObject({ pausedUntil: null, lastError: null });
  });
});

describe('LookupService: per-page cap across worker restarts', () => {
  it('a restarted worker goes on counting the pages it counted before', async () => {
    const saved: { value?: unknown } = {};
    const pageCapStore = { load: async () => saved.value, save: async (value: unknown) => void (saved.value = structuredClone(value)) };
    const options = { policy: { perPageCap: 2 }, extra: { pageCapStore } };
    const first = createHarness(options);
    await first.settle(first.service.lookup(publicIps(2), { priority: 'visible', source: '1:0:doc' }));
    await first.service.whenIdle();

    const restarted = createHarness(options);
    const results = await restarted.settle(restarted.service.lookup(publicIps(2, 10), { priority: 'visible', source: '1:0:doc' }));
    expect(statuses(results)).toEqual(['skipped:page-cap', 'skipped:page-cap']);
    const otherPage = await restarted.settle(restarted.service.lookup(publicIps(2, 10), { priority: 'visible', source: '2:0:doc' }));
    expect(statuses(otherPage).some((s) => s === 'skipped:page-cap')).toBe(false);
  });
});
