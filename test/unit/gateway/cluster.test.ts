/**
 * The gateway on a 3-node Redis Cluster (started here): every command stays within one slot
 * (a CROSSSLOT error would fail these lookups), claims and tokens work across nodes, and two
 * replicas still buy each IP once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRedisStore } from '../../../gateway/src/store/redis-store';
import type { Store } from '../../../gateway/src/store/types';
import { dayOf } from '../../../gateway/src/store/types';
import { startSimulator, type Simulator } from '../../sim/server';
import { UNLIMITED_KEY } from '../../sim/keys';
import { startCluster, type RedisCluster } from './redis-servers';
import { startGateway, tokenFor, type Harness } from './gateway-harness';

let cluster: RedisCluster;
let sim: Simulator;
const stores: Store[] = [];
const replicas: Harness[] = [];

beforeAll(async () => {
  [cluster, sim] = await Promise.all([startCluster(3), startSimulator()]);
  for (let i = 0; i < 2; i++) {
    const store = await openRedisStore({ urls: cluster.urls });
    stores.push(store);
    replicas.push(await startGateway({ store, upstreamUrl: sim.baseUrl, key: UNLIMITED_KEY }));
  }
}, 60_000);

afterAll(async () => {
  for (const r of replicas) await r.gateway.close().catch(() => {});
  await sim?.close();
  await cluster?.stop();
});

describe('a 3-node Redis Cluster', () => {
  it('serves two replicas buying overlapping IPs once, with keys spread over the nodes', async () => {
    expect(stores[0]!.kind).toBe('redis-cluster');
    const token = await tokenFor(stores[0]!, 'alice');
    const ips = Array.from({ length: 60 }, (_, i) => `89.${i}.${(i * 7) % 250}.${i + 1}`);
    const ask = (replica: Harness, list: string[]) =>
      replica.gateway.app.inject({
        method: 'POST',
        url: '/api/v1/checkIP/bulk',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        payload: { ips: list },
      });
    const [a, b] = await Promise.all([ask(replicas[0]!, ips.slice(0, 40)), ask(replicas[1]!, ips.slice(20))]);
    expect([a.statusCode, b.statusCode]).toEqual([200, 200]);
    const sent = sim.ipLog.all().map((x) => x.ip);
    expect(sent.length).toBe(new Set(sent).size);
    expect(new Set(sent)).toEqual(new Set(ips));
    const found = ips.filter((ip) => sim.dataset.lookup(ip) !== null).length;
    expect(sim.requestLog.filter((e) => e.path === '/checkIP/bulk').reduce((s, e) => s + e.cost, 0)).toBe(found);
    const again = await ask(replicas[1]!, ips.slice(0, 40));
    expect(again.headers['x-cache']).toBe('hit');
  });

  it('keeps tokens, usage, the ledger and claims on the cluster', async () => {
    const [one, two] = stores as [Store, Store];
    await tokenFor(one, 'bob', { budget: 5 });
    expect((await two.listTokens(dayOf(Date.now()))).map((t) => t.name)).toContain('bob');
    expect(await two.recordUse('bob', dayOf(Date.now()), 2, Date.now())).toBe(2);
    const before = (await one.getLedger()) ?? { usage: 0, reserved: 0 };
    const ceiling = before.usage + before.reserved + 3;
    expect(await one.reserve(3, ceiling)).toBe(true);
    expect(await two.reserve(1, ceiling)).toBe(false);
    await one.settle(3, 1);
    expect((await two.getLedger())?.usage).toBe(before.usage + 1);
    expect(await one.claim('info', '198.51.100.7', 'x', 5_000)).toBe('won');
    expect(await two.claim('info', '198.51.100.7', 'y', 5_000)).toBe('held');
    expect(await one.releaseClaim('info', '198.51.100.7', 'x')).toBe(true);
    expect(await two.revokeToken('bob')).toBe(true);
  });
});
