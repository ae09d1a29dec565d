/**
 * Team sightings in the stores: the record's rules (sightings.ts), then the same behaviour from
 * the embedded store, a real redis-server and a 3-node Redis Cluster (the Lua merge must agree
 * with the TypeScript one; no command may span slots).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEmbeddedStore } from '../../../gateway/src/store/embedded-store';
import { openRedisStore } from '../../../gateway/src/store/redis-store';
import { decodeSightings, encodeSightings, mergeSighting, pruneSightings, summarizeSightings, type Sightings } from '../../../gateway/src/store/sightings';
import type { Store } from '../../../gateway/src/store/types';
import { startCluster, startRedis, type RedisCluster, type RedisProcess } from './redis-servers';

const DAY = 24 * 3600 * 1000;
const T0 = Date.UTC(2026, 10, 1);

describe('a sighting record', () => {
  it('round-trips its compact form and reads a bad value as no record', () => {
    const record = mergeSighting(mergeSighting(null, 'alice', T0, 0), 'bob', T0 + 5, 0);
    expect(encodeSightings(record)).toBe(`[${T0},"alice",${T0},"bob",${T0 + 5}]`);
    expect(decodeSightings(encodeSightings(record))).toEqual(record);
    for (const bad of [null, '', 'nope', '{"a":1}', '["x"]']) expect(decodeSightings(bad)).toBeNull();
  });

  it('keeps distinct analysts with their last time, and the earliest sighting as first', () => {
    let record: Sightings | null = null;
    record = mergeSighting(record, 'alice', T0, 0);
    record = mergeSighting(record, 'bob', T0 + 1000, 0);
    record = mergeSighting(record, 'alice', T0 + 2000, 0);
    expect(record.first).toBe(T0);
    expect({ ...record.analysts }).toEqual({ alice: T0 + 2000, bob: T0 + 1000 });
  });

  it('forgets analysts last seen before the retention and moves first forward', () => {
    let record = mergeSighting(null, 'alice', T0, 0);
    record = mergeSighting(record, 'bob', T0 + 20 * DAY, 0);
    // 31 days later, alice's only sighting is past a 30-day retention.
    const cutoff = T0 + 31 * DAY - 30 * DAY;
    expect(pruneSightings(record, cutoff)).toEqual({ first: T0 + 20 * DAY, analysts: expect.objectContaining({ bob: T0 + 20 * DAY }) });
    expect(Object.keys(pruneSightings(record, cutoff)!.analysts)).toEqual(['bob']);
    expect(pruneSightings(record, T0 + 21 * DAY)).toBeNull();
  });

  it('summarizes: count, first, last, new to the team, the asker among them; names only when asked', () => {
    const record = mergeSighting(mergeSighting(null, 'alice', T0, 0), 'bob', T0 + 60_000, 0);
    expect(summarizeSightings(record, { cutoff: 0, analyst: 'carol', names: false })).toEqual({
      count: 2,
      first_seen: new Date(T0).toISOString(),
      last_seen: new Date(T0 + 60_000).toISOString(),
      new_to_team: false,
      by_you: false,
    });
    expect(summarizeSightings(record, { cutoff: 0, analyst: 'alice', names: true })).toMatchObject({ by_you: true, names: ['bob', 'alice'] });
    expect(summarizeSightings(null, { cutoff: 0, analyst: 'alice', names: false })).toEqual({ count: 0, first_seen: null, last_seen: null, new_to_team: true, by_you: false });
    expect(summarizeSightings(record, { cutoff: T0 + DAY, analyst: 'alice', names: false }).new_to_team).toBe(true);
  });

  it('takes analyst names that are also Object.prototype keys as plain names', () => {
    const record = mergeSighting(null, 'constructor', T0, 0);
    expect(summarizeSightings(record, { cutoff: 0, analyst: 'toString', names: false })).toMatchObject({ count: 1, by_you: false });
  });
});

/** The behaviour every store must show, run against each below. */
function storeContract(open: () => Store) {
  let store: Store;
  beforeAll(() => {
    store = open();
  });

  it('reads answers and sightings together; records per IP and analyst', async () => {
    const ips = ['45.1.1.1', '45.1.1.2', '2001:db8::1'];
    await store.putAnswers([{ ip: ips[0]!, answer: { status: 'not-found', data: null, fetchedAt: T0 }, ttlMs: DAY }]);
    await store.recordSightings(
      [
        { ip: ips[0]!, analyst: 'alice', at: T0 },
        { ip: ips[2]!, analyst: 'alice', at: T0 + 1 },
      ],
      T0 - DAY,
      DAY,
    );
    await store.recordSightings([{ ip: ips[0]!, analyst: 'bob', at: T0 + 5 }], T0 - DAY, DAY);
    const { answers, sightings } = await store.getAnswersAndSightings(ips);
    expect([...answers.keys()]).toEqual([ips[0]]);
    expect(sightings.get(ips[0]!)).toEqual({ first: T0, analysts: { alice: T0, bob: T0 + 5 } });
    expect(sightings.get(ips[2]!)).toEqual({ first: T0 + 1, analysts: { alice: T0 + 1 } });
    expect(sightings.has(ips[1]!)).toBe(false);
  });

  it('merges concurrent recordings of one IP without losing one', async () => {
    const ip = '45.2.2.2';
    await Promise.all(Array.from({ length: 12 }, (_, i) => store.recordSightings([{ ip, analyst: `a${i}`, at: T0 + i }], T0 - DAY, DAY)));
    const { sightings } = await store.getAnswersAndSightings([ip]);
    expect(Object.keys(sightings.get(ip)!.analysts)).toHaveLength(12);
    expect(sightings.get(ip)!.first).toBe(T0);
  });

  it('applies the retention when recording (the Lua merge agrees with mergeSighting)', async () => {
    const ip = '45.3.3.3';
    await store.recordSightings([{ ip, analyst: 'old', at: T0 }], T0 - DAY, 90 * DAY);
    await store.recordSightings([{ ip, analyst: 'mid', at: T0 + 10 * DAY }], T0 - DAY, 90 * DAY);
    // 35 days on with a 30-day retention: `old` goes, first becomes mid's sighting.
    const at = T0 + 35 * DAY;
    await store.recordSightings([{ ip, analyst: 'new', at }], at - 30 * DAY, 90 * DAY);
    const expected = mergeSighting(mergeSighting(mergeSighting(null, 'old', T0, T0 - DAY), 'mid', T0 + 10 * DAY, T0 - DAY), 'new', at, at - 30 * DAY);
    const { sightings } = await store.getAnswersAndSightings([ip]);
    expect(sightings.get(ip)).toEqual({ first: expected.first, analysts: { ...expected.analysts } });
    expect(sightings.get(ip)!.first).toBe(T0 + 10 * DAY);
  });

  it('lists the most-seen IPs: most analysts first, retention applied', async () => {
    // Later than the other tests' sightings, with a cutoff that leaves them out.
    const t = T0 + 100 * DAY;
    const cutoff = t - 1;
    await store.recordSightings(
      ['x', 'y', 'z'].map((analyst, i) => ({ ip: '45.9.9.1', analyst, at: t + i })),
      cutoff,
      DAY,
    );
    await store.recordSightings([{ ip: '45.9.9.2', analyst: 'x', at: t + 100 }], cutoff, DAY);
    const top = await store.mostSeen(2, cutoff);
    expect(top).toEqual([
      { ip: '45.9.9.1', analysts: 3, last: t + 2 },
      { ip: '45.9.9.2', analysts: 1, last: t + 100 },
    ]);
    // Everything before t + 50 past the retention: only what was seen after counts.
    const later = await store.mostSeen(10, t + 50);
    expect(later.map((m) => m.ip)).toEqual(['45.9.9.2']);
  });
}

describe('the embedded store', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'gw-sight-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  storeContract(() => openEmbeddedStore({ dir, flushMs: 0, now: () => T0 }));

  it('keeps sightings across a restart (state.json) and drops a record its TTL after the last', async () => {
    let clock = T0;
    const first = openEmbeddedStore({ dir: path.join(dir, 'restart'), flushMs: 0, now: () => clock });
    await first.recordSightings([{ ip: '45.5.5.5', analyst: 'alice', at: T0 }], T0 - DAY, DAY);
    await first.close();
    const again = openEmbeddedStore({ dir: path.join(dir, 'restart'), flushMs: 0, now: () => clock });
    expect((await again.getAnswersAndSightings(['45.5.5.5'])).sightings.get('45.5.5.5')?.analysts).toEqual({ alice: T0 });
    clock = T0 + DAY + 1;
    expect((await again.getAnswersAndSightings(['45.5.5.5'])).sightings.size).toBe(0);
  });
});

describe('a real redis-server', () => {
  let redis: RedisProcess;
  let store: Store;
  beforeAll(async () => {
    redis = await startRedis();
    store = await openRedisStore({ urls: [redis.url] });
  });
  afterAll(async () => {
    await store?.close();
    await redis?.stop();
  });
  storeContract(() => store);

  it('keeps a record with its TTL and compact (one short string per IP)', async () => {
    const { createClient } = await import('redis');
    const admin = createClient({ url: redis.url });
    await admin.connect();
    try {
      await store.recordSightings([{ ip: '45.6.6.6', analyst: 'alice', at: T0 }], T0 - DAY, 60_000);
      const ttl = await admin.pTTL('ipl:{45.6.6.6}:s');
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(60_000);
      expect(await admin.get('ipl:{45.6.6.6}:s')).toBe(`[${T0},"alice",${T0}]`);
    } finally {
      await admin.close();
    }
  });
});

describe('a 3-node Redis Cluster', () => {
  let cluster: RedisCluster;
  let store: Store;
  beforeAll(async () => {
    cluster = await startCluster(3);
    store = await openRedisStore({ urls: cluster.urls });
  }, 60_000);
  afterAll(async () => {
    await store?.close();
    await cluster?.stop();
  });
  storeContract(() => store);
});
