/**
 * One severity per IP: the same IP gets the same severity whichever call answered it (bulk for
 * page marks and lists, single for the popup's and the card's details), under every simulator
 * profile, over every named fixture of the simulator, its never-found IPs and a fast-check sample
 * of the address space.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BulkItem, Reputation, SingleLookup } from '../../lib/api/types';
import { ipKey } from '../../lib/ip/validate-ip';
import type { LookupResult } from '../../lib/lookup/types';
import { DEFAULT_THRESHOLDS, severityOf } from '../../lib/severity';
import { FIXTURES, NOT_FOUND_IPS } from '../sim/dataset';
import { UNLIMITED_KEY } from '../sim/keys';
import { PROFILE_NAMES } from '../sim/profiles';
import { startSimulator, type Simulator } from '../sim/server';
import { clientFor } from './api/sim-client';

const found = (data: Partial<Reputation>): LookupResult => ({
  ip: '1.2.3.4',
  status: 'found',
  fetchedAt: 0,
  data: {
    ip: '1.2.3.4',
    score: null,
    threatLevel: null,
    reputation: null,
    totalHits: null,
    lastAttack: null,
    whitelisted: false,
    whitelist: null,
    description: null,
    ...data,
  },
});

describe('severityOf', () => {
  it('a zero-hit clean row is Clean, whatever its threat_level and score say', () => {
    expect(severityOf(found({ score: 10, threatLevel: 'LOW', reputation: 'clean', totalHits: 0 }), DEFAULT_THRESHOLDS)).toBe('clean');
    expect(severityOf(found({ score: 10, threatLevel: 'LOW', reputation: null, totalHits: 0 }), DEFAULT_THRESHOLDS)).toBe('clean');
    // Hits, or a reputation other than clean: the score decides.
    expect(severityOf(found({ score: 10, threatLevel: 'LOW', reputation: 'scanner', totalHits: 0 }), DEFAULT_THRESHOLDS)).toBe('low');
  });

  it('whitelisted wins', () => {
    expect(severityOf(found({ score: 90, whitelisted: true }), DEFAULT_THRESHOLDS)).toBe('whitelisted');
  });

  it('the score and the thresholds come before threat_level, which only bulk rows carry', () => {
    expect(severityOf(found({ score: 82, threatLevel: 'HIGH', totalHits: 5 }), DEFAULT_THRESHOLDS)).toBe('critical');
    expect(severityOf(found({ score: null, threatLevel: 'HIGH', totalHits: 5 }), DEFAULT_THRESHOLDS)).toBe('high');
    expect(severityOf(found({ score: null, threatLevel: 'UNKNOWN', totalHits: 5 }), DEFAULT_THRESHOLDS)).toBe('unknown');
  });
});

function fromSingle(answer: SingleLookup): LookupResult {
  return answer.status === 'found'
    ? { ip: answer.data.ip, status: 'found', data: answer.data, fetchedAt: 0 }
    : { ip: answer.ip, status: 'not-found', fetchedAt: 0 };
}

function fromBulk(item: BulkItem): LookupResult {
  if (item.status === 'found') return { ip: item.ip, status: 'found', data: item.data, fetchedAt: 0 };
  if (item.status === 'not-found') return { ip: item.ip, status: 'not-found', fetchedAt: 0 };
  return { ip: item.ip, status: 'error', error: { kind: item.kind, message: item.message } };
}

const NAMED = [...Object.values(FIXTURES).map((r) => r.ip), ...NOT_FOUND_IPS];

/**
 * A sample of the whole address space, IPv4 and IPv6 in fast-check's spellings, drawn from the
 * fixed seed of fast-check-setup.ts (so every run checks the same IPs; FC_SEED=random explores),
 * one per canonical IP and none that is already named. The dataset finds about 40% of them.
 */
const SAMPLE = fc.sample(
  fc.uniqueArray(fc.oneof({ arbitrary: fc.ipV4(), weight: 3 }, { arbitrary: fc.ipV6(), weight: 1 }), {
    minLength: 200,
    maxLength: 200,
    selector: ipKey,
  }),
  1,
)[0]!.filter((ip) => !NAMED.some((named) => ipKey(named) === ipKey(ip)));

/** Every named fixture, the never-found IPs, and the generated sample. */
const IPS = [...NAMED, ...SAMPLE];

describe.each(PROFILE_NAMES)('bulk severity = single severity for every IP (profile %s)', (profile) => {
  let sim: Simulator;
  beforeAll(async () => {
    sim = await startSimulator({ profile });
  });
  afterAll(() => sim.close());

  it('agrees for every IP, and every answer is usable', async () => {
    const client = clientFor(sim, { apiKey: UNLIMITED_KEY });
    const bulk = await client.checkIpBulk(IPS);
    const disagreements: string[] = [];
    for (const [index, ip] of IPS.entries()) {
      const item = bulk.items[index]!;
      expect(item.status, `${ip} in bulk`).not.toBe('error');
      const viaBulk = severityOf(fromBulk(item), DEFAULT_THRESHOLDS);
      const viaSingle = severityOf(fromSingle(await client.checkIp(ip)), DEFAULT_THRESHOLDS);
      if (viaBulk !== viaSingle) disagreements.push(`${ip}: bulk ${viaBulk}, single ${viaSingle}`);
    }
    expect(disagreements).toEqual([]);
    // The sample is a real mix: found and unknown addresses, IPv4 and IPv6.
    const found = SAMPLE.filter((ip) => sim.dataset.lookup(ip) !== null);
    expect(SAMPLE.length).toBeGreaterThan(190);
    expect(found.length).toBeGreaterThan(40);
    expect(found.length).toBeLessThan(SAMPLE.length - 40);
    expect(SAMPLE.filter((ip) => ip.includes(':')).length).toBeGreaterThan(20);
  });
});

describe('severity of IPs past the cap', () => {
  it('is "capped" for the tab cap and the site ceiling, "skipped" for private and other skips', () => {
    const skip = (reason: 'page-cap' | 'site-cap' | 'private' | 'quota-reserve'): LookupResult => ({ ip: '9.9.9.9', status: 'skipped', reason });
    expect(severityOf(skip('page-cap'), DEFAULT_THRESHOLDS)).toBe('capped');
    expect(severityOf(skip('site-cap'), DEFAULT_THRESHOLDS)).toBe('capped');
    expect(severityOf(skip('private'), DEFAULT_THRESHOLDS)).toBe('skipped');
    expect(severityOf(skip('quota-reserve'), DEFAULT_THRESHOLDS)).toBe('skipped');
  });
});
