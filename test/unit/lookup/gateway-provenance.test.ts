/**
 * A team gateway's provenance travels with the answer through the cache (memory and the
 * stored record the worker reads back after a restart), and the batcher tells which IPs of a
 * mixed batch someone asked for on purpose.
 */
import { describe, expect, it } from 'vitest';
import { Batcher } from '../../../lib/lookup/batcher';
import { parseCacheRecord, recordFromAnswer, resultFromRecord } from '../../../lib/lookup/cache-record';
import type { GatewayProvenance } from '../../../lib/api/types';
import { createManualClock } from './helpers/manual-clock';

const gateway: GatewayProvenance = {
  cache: 'hit',
  ageMs: 3 * 3600_000,
  sightings: { count: 4, firstSeen: '2026-11-27T00:00:00.000Z', lastSeen: '2026-11-29T00:40:00.000Z', newToTeam: false, byYou: false, names: null },
};
const data = { ip: '45.1.1.1', score: 90, threatLevel: 'HIGH' as const, reputation: 'malicious', totalHits: 3, lastAttack: null, whitelisted: false, whitelist: null, description: null };

describe('provenance in the cache', () => {
  it('survives the stored record (JSON and back) and comes out with the result', () => {
    const record = recordFromAnswer({ ip: data.ip, status: 'found', data, detailed: false, gateway }, undefined, 1_000);
    const stored = parseCacheRecord(JSON.parse(JSON.stringify(record)));
    expect(stored?.gateway).toEqual(gateway);
    expect(resultFromRecord(stored!)).toEqual({ ip: data.ip, status: 'found', data, fetchedAt: 1_000, gateway });
    const notFound = recordFromAnswer({ ip: '45.1.1.2', status: 'not-found', detailed: false, gateway }, undefined, 2_000);
    expect(resultFromRecord(parseCacheRecord(JSON.parse(JSON.stringify(notFound)))!)).toEqual({ ip: '45.1.1.2', status: 'not-found', fetchedAt: 2_000, gateway });
  });

  it('adds nothing for the API answers, and older records without it still read', () => {
    const record = recordFromAnswer({ ip: data.ip, status: 'found', data, detailed: false }, undefined, 1_000);
    expect(record).not.toHaveProperty('gateway');
    expect(resultFromRecord(parseCacheRecord(JSON.parse(JSON.stringify(record)))!)).not.toHaveProperty('gateway');
  });

  it('reads a record whose provenance is damaged as no record (then asked again), never a wrong card', () => {
    const record = recordFromAnswer({ ip: data.ip, status: 'found', data, detailed: false, gateway }, undefined, 1_000);
    expect(parseCacheRecord({ ...record, gateway: { cache: 'hit', ageMs: 'old' } })).toBeNull();
  });
});

describe('the batcher and the analyst\'s asks', () => {
  it('tells send which IPs of a batch were asked on purpose (manual), page IPs not', async () => {
    const clock = createManualClock();
    const calls: { ips: string[]; asked: string[] }[] = [];
    const batcher = new Batcher<string>({
      clock,
      windowMs: 25,
      random: () => 1,
      fallback: (ip) => ip,
      send: async (ips, asked) => {
        calls.push({ ips, asked: [...asked] });
        return { kind: 'done', outcomes: new Map(ips.map((ip) => [ip, ip])) };
      },
    });
    const page = batcher.enqueue('45.0.0.1', 'visible');
    const bothWays = batcher.enqueue('45.0.0.2', 'visible');
    const mine = batcher.enqueue('45.0.0.2', 'manual');
    await clock.advance(25);
    await Promise.all([page, bothWays, mine]);
    expect(calls).toEqual([{ ips: expect.arrayContaining(['45.0.0.1', '45.0.0.2']), asked: ['45.0.0.2'] }]);
  });
});
