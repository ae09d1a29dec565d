/**
 * `/checkSubnet` through the lookup service, against the real client and simulator: cost
 * charged per IP found, every scanned address cached (found and known absent), so a later
 * lookup of any of them sends nothing; refusals before any call.
 */
import 'fake-indexeddb/auto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { blockOf } from '../../../lib/ip/cidr-block';
import { createMemoryLedgerStore } from '../../../lib/lookup/quota-ledger';
import { FIXTURES } from '../../sim/dataset';
import { DEMO_KEY } from '../../sim/keys';
import { startSimulator, type Simulator } from '../../sim/server';
import { createManualClock, type ManualClock } from './helpers/manual-clock';
import { drive, recordingClient, simService } from './helpers/simulator-harness';

let sim: Simulator;
let clock: ManualClock;
let db = 0;

beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(() => sim.close());
beforeEach(() => {
  sim.reset();
  clock = createManualClock();
});

function newService(policy = {}) {
  return simService({ client: recordingClient(sim, DEMO_KEY, []), clock, dbName: `subnet-${++db}`, ledgerStore: createMemoryLedgerStore(), policy });
}

const apiCalls = () => sim.requestLog.filter((e) => e.path !== '/account').length;

describe('LookupService.checkSubnet', () => {
  it('charges per found IP and caches the whole block, so later lookups send nothing', async () => {
    const service = newService();
    const block = blockOf('185.220.101.0', 24)!;
    const answer = await drive(clock, service.checkSubnet(block));
    const expected = Array.from({ length: 254 }, (_, i) => `185.220.101.${i + 1}`).filter((ip) => sim.dataset.lookup(ip));
    expect(answer.found.map((r) => r.ip)).toEqual(expected);
    expect(answer.cost).toBe(expected.length);
    expect(answer.summary).toMatchObject({ total: 254, foundCount: expected.length });
    expect(answer.updated).toHaveLength(254);
    expect(sim.usage(DEMO_KEY)).toBe(expected.length);
    const status = await service.status();
    expect(status.quota.pendingLocalCost).toBe(expected.length);

    const before = apiCalls();
    const absent = Array.from({ length: 254 }, (_, i) => `185.220.101.${i + 1}`).find((ip) => !sim.dataset.lookup(ip))!;
    const results = await drive(clock, service.lookup([FIXTURES.critical.ip, absent], { priority: 'visible', source: 't:0:d' }));
    expect(results.map((r) => r.status)).toEqual(['found', 'not-found']);
    expect(apiCalls()).toBe(before);
  });

  it('refuses a documentation block unless private IPs may be sent, before any call', async () => {
    const service = newService();
    await expect(drive(clock, service.checkSubnet(blockOf('203.0.113.0', 24)!))).rejects.toMatchObject({
      kind: 'bad-request',
      message: expect.stringContaining('203.0.113.0/24 is a documentation range'),
    });
    expect(sim.requestLog.filter((e) => e.path === '/checkSubnet')).toHaveLength(0);
  });

  it('reports a rejected key as every lookup does', async () => {
    const service = newService();
    sim.setKey(DEMO_KEY, { expired: true });
    await expect(drive(clock, service.checkSubnet(blockOf('185.220.101.0', 24)!))).rejects.toMatchObject({ kind: 'invalid-key' });
    const status = await service.status();
    expect(status.lastError).toMatchObject({ kind: 'invalid-key' });
  });
});
