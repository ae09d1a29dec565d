/**
 * Team sightings through the gateway's HTTP face: each answer says who on the team looked its
 * IP up before; only what an analyst asked for is recorded (page IPs answered are not, unless
 * the operator turns that on); names only when turned on; the retention holds.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEFAULT_SIGHTINGS, type SightingSettings } from '../../../gateway/src/config';
import { openEmbeddedStore } from '../../../gateway/src/store/embedded-store';
import type { Store } from '../../../gateway/src/store/types';
import { startSimulator, type Simulator } from '../../sim/server';
import { FIXTURES, NOT_FOUND_IPS } from '../../sim/dataset';
import { UNLIMITED_KEY } from '../../sim/keys';
import { cleanup } from './redis-servers';
import { startGateway, tokenFor, type Harness } from './gateway-harness';

const DAY = 24 * 3600 * 1000;
let sim: Simulator;
const opened: { harness: Harness; dir: string }[] = [];

beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(async () => {
  for (const { harness, dir } of opened) {
    await harness.gateway.close();
    cleanup(dir);
  }
  await sim.close();
});

interface Team {
  harness: Harness;
  store: Store;
  clock: { now: number };
  tokens: Record<'alice' | 'bob' | 'carol', string>;
}

async function team(sightings: Partial<SightingSettings> = {}): Promise<Team> {
  const dir = mkdtempSync(path.join(tmpdir(), 'gw-sight-api-'));
  const store = openEmbeddedStore({ dir, flushMs: 0 });
  const clock = { now: Date.UTC(2026, 10, 1) };
  const harness = await startGateway({ store, upstreamUrl: sim.baseUrl, key: UNLIMITED_KEY, settings: { sightings: { ...DEFAULT_SIGHTINGS, ...sightings } }, now: () => clock.now });
  opened.push({ harness, dir });
  const tokens = { alice: await tokenFor(store, 'alice'), bob: await tokenFor(store, 'bob'), carol: await tokenFor(store, 'carol') };
  return { harness, store, clock, tokens };
}

type Row = { ip: string; gateway?: { cache: string; sightings?: Record<string, unknown> } };

async function bulk(t: Team, token: string, ips: string[], asked?: unknown) {
  const response = await t.harness.gateway.app.inject({
    method: 'POST',
    url: '/api/v1/checkIP/bulk',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    payload: asked === undefined ? { ips } : { ips, asked },
  });
  return { status: response.statusCode, body: response.json() as { results: Row[]; message?: string } };
}

const sightingsOf = (rows: Row[], ip: string) => rows.find((r) => r.ip === ip)?.gateway?.sightings;

/** Lets the writes made after the last answer land (they are not on the answer's path). */
const settled = (_t: Team) => new Promise((resolve) => setTimeout(resolve, 0));

describe('team sightings at the gateway', () => {
  const [A, B, C] = [FIXTURES.critical.ip, FIXTURES.whitelisted.ip, NOT_FOUND_IPS[0]!];

  it('says new to the team, then seen by the analyst who asked; page IPs answered are not recorded', async () => {
    const t = await team();
    // alice asks A; B is on her page only.
    const first = await bulk(t, t.tokens.alice, [A, B], [A]);
    expect(first.status).toBe(200);
    expect(sightingsOf(first.body.results, A)).toEqual({ count: 0, first_seen: null, last_seen: null, new_to_team: true, by_you: false });
    await settled(t);
    t.clock.now += 60_000;
    const second = await bulk(t, t.tokens.bob, [A, B]);
    expect(second.body.results.find((r) => r.ip === A)?.gateway?.cache).toBe('hit');
    expect(sightingsOf(second.body.results, A)).toEqual({
      count: 1,
      first_seen: new Date(t.clock.now - 60_000).toISOString(),
      last_seen: new Date(t.clock.now - 60_000).toISOString(),
      new_to_team: false,
      by_you: false,
    });
    expect(sightingsOf(second.body.results, B)).toMatchObject({ count: 0, new_to_team: true });
    await settled(t);
    // bob's lookups were page lookups (no `asked`): nothing recorded for him.
    const third = await bulk(t, t.tokens.carol, [A, B]);
    expect(sightingsOf(third.body.results, A)).toMatchObject({ count: 1 });
    expect(sightingsOf(third.body.results, B)).toMatchObject({ count: 0, new_to_team: true });
    expect(sightingsOf(third.body.results, A)).not.toHaveProperty('names');
  });

  it('counts distinct analysts, says when the asker is one of them, and names them only when turned on', async () => {
    const t = await team({ names: true });
    await bulk(t, t.tokens.alice, [A], [A]);
    await settled(t);
    t.clock.now += 1000;
    await bulk(t, t.tokens.bob, [A], [A]);
    await settled(t);
    t.clock.now += 1000;
    await bulk(t, t.tokens.alice, [A], [A]);
    await settled(t);
    const { body } = await bulk(t, t.tokens.alice, [A]);
    expect(sightingsOf(body.results, A)).toMatchObject({ count: 2, by_you: true, names: ['alice', 'bob'] });
  });

  it('records page IPs too when the operator turns that on', async () => {
    const t = await team({ pageIps: true });
    await bulk(t, t.tokens.alice, [A, C]);
    await settled(t);
    const { body } = await bulk(t, t.tokens.bob, [A, C]);
    expect(sightingsOf(body.results, A)).toMatchObject({ count: 1 });
    expect(sightingsOf(body.results, C)).toMatchObject({ count: 1 });
  });

  it('forgets a sighting after the retention period', async () => {
    const t = await team({ retentionMs: 2 * DAY });
    await bulk(t, t.tokens.alice, [A], [A]);
    await settled(t);
    t.clock.now += DAY;
    expect(sightingsOf((await bulk(t, t.tokens.bob, [A])).body.results, A)).toMatchObject({ count: 1 });
    t.clock.now += 1.5 * DAY;
    expect(sightingsOf((await bulk(t, t.tokens.bob, [A])).body.results, A)).toMatchObject({ count: 0, new_to_team: true });
  });

  it('records checkIP lookups marked asked=true (the card\'s details), not the others', async () => {
    const t = await team();
    const get = (token: string, query: string) =>
      t.harness.gateway.app.inject({ method: 'GET', url: `/api/v1/checkIP?${query}`, headers: { authorization: `Bearer ${token}` } });
    const plain = await get(t.tokens.alice, `ip=${A}`);
    expect(plain.json().gateway.sightings).toMatchObject({ new_to_team: true });
    await settled(t);
    expect((await get(t.tokens.bob, `ip=${A}&detailed=true&asked=true`)).json().gateway.sightings).toMatchObject({ count: 0 });
    await settled(t);
    expect((await get(t.tokens.carol, `ip=${A}`)).json().gateway.sightings).toMatchObject({ count: 1, new_to_team: false });
    // A 404 carries it too.
    expect((await get(t.tokens.carol, `ip=${C}`)).json().gateway.sightings).toMatchObject({ new_to_team: true });
  });

  it('refuses a malformed `asked` with a clear 400 and records nothing', async () => {
    const t = await team();
    for (const asked of ['1.2.3.4', [1], Array.from({ length: 101 }, () => A)]) {
      const response = await bulk(t, t.tokens.alice, [A], asked);
      expect(response.status).toBe(400);
      expect(response.body.message).toMatch(/"asked" must be a list/);
    }
    await settled(t);
    expect((await t.store.getAnswersAndSightings([A])).sightings.size).toBe(0);
  });

  it('adds nothing when the operator turns sightings off (retention 0)', async () => {
    const t = await team({ retentionMs: 0 });
    await bulk(t, t.tokens.alice, [A], [A]);
    await settled(t);
    const { body } = await bulk(t, t.tokens.bob, [A], [A]);
    expect(body.results[0]!.gateway).not.toHaveProperty('sightings');
    expect((await t.store.getAnswersAndSightings([A])).sightings.size).toBe(0);
  });

  it('records the asking analyst at the request\'s time, once per request', async () => {
    const t = await team();
    const record = vi.spyOn(t.store, 'recordSightings');
    await bulk(t, t.tokens.alice, [A], [A]);
    expect(record).toHaveBeenCalledTimes(1);
    expect(record.mock.calls[0]![0]).toEqual([{ ip: A, analyst: 'alice', at: t.clock.now }]);
  });
});
