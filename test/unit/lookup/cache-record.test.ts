import { describe, expect, it } from 'vitest';
import {
  CACHE_RECORD_VERSION,
  isUseless,
  parseCacheRecord,
  recordFromAnswer,
  resultFromRecord,
  satisfies,
  type CacheTtls,
} from '../../../lib/lookup/cache-record';
import { reputationOf } from './helpers/fake-api-client';

const ttls: CacheTtls = { foundMs: 1_000, notFoundMs: 500, detailedMs: 5_000 };

describe('cache records', () => {
  it('round-trips a record through parse, and refuses other versions and broken shapes', () => {
    const record = recordFromAnswer({ ip: '23.0.0.2', status: 'found', data: reputationOf('23.0.0.2'), detailed: false }, undefined, 100);
    expect(parseCacheRecord(structuredClone(record))).toEqual(record);
    expect(parseCacheRecord({ ...record, v: CACHE_RECORD_VERSION + 1 })).toBeNull();
    expect(parseCacheRecord({ ...record, data: null })).toBeNull(); // found without data
    expect(parseCacheRecord({ ...record, fetchedAt: 'yesterday' })).toBeNull();
    expect(parseCacheRecord('garbage')).toBeNull();
  });

  it('applies the TTL of each kind', () => {
    const found = recordFromAnswer({ ip: '23.0.0.2', status: 'found', data: reputationOf('23.0.0.2'), detailed: false }, undefined, 0);
    const missing = recordFromAnswer({ ip: '23.0.0.3', status: 'not-found', detailed: false }, undefined, 0);
    expect(satisfies(found, false, ttls, 999)).toBe(true);
    expect(satisfies(found, false, ttls, 1_000)).toBe(false);
    expect(satisfies(missing, false, ttls, 499)).toBe(true);
    expect(satisfies(missing, false, ttls, 500)).toBe(false);
    // No details were ever asked for: a detailed lookup is not satisfied.
    expect(satisfies(found, true, ttls, 1)).toBe(false);
    expect(isUseless(found, ttls, 1_000)).toBe(true);
  });

  it('a detailed answer satisfies plain lookups, and a plain refresh keeps fresh details', () => {
    const detailed = recordFromAnswer({ ip: '23.0.0.2', status: 'found', data: reputationOf('23.0.0.2', true), detailed: true }, undefined, 0);
    expect(detailed.data).not.toHaveProperty('ipInfo');
    expect(satisfies(detailed, true, ttls, 999)).toBe(true);
    expect(satisfies(detailed, false, ttls, 999)).toBe(true);
    // Reputation stale, details fresh: not useless, and a plain refresh merges them back.
    expect(isUseless(detailed, ttls, 2_000)).toBe(false);
    const refreshed = recordFromAnswer({ ip: '23.0.0.2', status: 'found', data: reputationOf('23.0.0.2'), detailed: false }, detailed, 2_000);
    expect(satisfies(refreshed, true, ttls, 2_500)).toBe(true);
    const result = resultFromRecord(refreshed);
    expect(result.status === 'found' && result.data.ipInfo?.asn).toBe('AS64500');
  });

  it('remembers that details were asked for and none exist', () => {
    const record = recordFromAnswer({ ip: '23.0.0.3', status: 'not-found', detailed: true }, undefined, 0);
    expect(satisfies(record, true, ttls, 100)).toBe(true);
    expect(resultFromRecord(record)).toEqual({ ip: '23.0.0.3', status: 'not-found', fetchedAt: 0 });
  });

  it('treats a timestamp far in the future as stale', () => {
    const record = recordFromAnswer({ ip: '23.0.0.2', status: 'found', data: reputationOf('23.0.0.2'), detailed: false }, undefined, 10_000_000);
    expect(satisfies(record, false, { ...ttls, foundMs: 1e12 }, 0)).toBe(false);
  });
});
