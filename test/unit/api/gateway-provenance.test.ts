/**
 * A team gateway's additive `gateway` field, read by lib/api, and the `asked` request field it
 * sends only to a team gateway (never to the public API).
 */
import { describe, expect, it } from 'vitest';
import { createApiClient } from '../../../lib/api';
import { provenanceOf } from '../../../lib/api/gateway-provenance';
import { normalizeBulkRow } from '../../../lib/api/normalize';

describe('the gateway provenance field', () => {
  it('is absent from the public API answers: nothing is added', () => {
    expect(provenanceOf(undefined)).toBeUndefined();
    expect(normalizeBulkRow({ ip: '1.2.3.4', data: { score: 5 }, error: null }, '1.2.3.4')).not.toHaveProperty('gateway');
  });

  it('is read with its sightings, times as ISO, age in ms', () => {
    const raw = {
      cache: 'hit',
      age: 10_800,
      fetched_at: '2026-11-29T00:00:00.000Z',
      sightings: { count: 4, first_seen: '2026-11-27T00:00:00.000Z', last_seen: '2026-11-29T00:50:00Z', new_to_team: false, by_you: true, names: ['bob'] },
    };
    expect(provenanceOf(raw)).toEqual({
      cache: 'hit',
      ageMs: 10_800_000,
      sightings: { count: 4, firstSeen: '2026-11-27T00:00:00.000Z', lastSeen: '2026-11-29T00:50:00.000Z', newToTeam: false, byYou: true, names: ['bob'] },
    });
  });

  it('drops what it cannot read, never the answer: bad provenance is none, bad sightings are null', () => {
    expect(provenanceOf({ cache: 'stale', age: 1 })).toBeUndefined();
    expect(provenanceOf({ cache: 'hit', age: -1 })).toBeUndefined();
    expect(provenanceOf('hit')).toBeUndefined();
    expect(provenanceOf({ cache: 'miss', age: 0, sightings: { count: 'many' } })).toEqual({ cache: 'miss', ageMs: 0, sightings: null });
    const row = normalizeBulkRow({ ip: '1.2.3.4', data: { score: 5 }, error: null, gateway: { cache: 42 } }, '1.2.3.4');
    expect(row).toMatchObject({ status: 'found', data: { score: 5 } });
    expect(row).not.toHaveProperty('gateway');
  });
});

describe('telling a team gateway which IPs the analyst asked for', () => {
  function recording() {
    const sent: { url: string; body: unknown }[] = [];
    const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = String(input);
      sent.push({ url, body: init?.body ? JSON.parse(String(init.body)) : null });
      if (url.includes('/checkIP/bulk')) {
        const { ips } = JSON.parse(String(init!.body)) as { ips: string[] };
        return new Response(JSON.stringify({ results: ips.map((ip) => ({ ip, data: { score: 1 }, error: null })) }), { status: 200, headers: { 'content-type': 'application/json' } });
      }
      return new Response(JSON.stringify({ details: { ip: '1.1.1.1', score: 1 } }), { status: 200, headers: { 'content-type': 'application/json' } });
    }) as typeof globalThis.fetch;
    return { sent, fetch };
  }

  it('sends `asked` per chunk, and asked=true on checkIP, to a team gateway', async () => {
    const { sent, fetch } = recording();
    const client = createApiClient({ baseUrl: 'https://gw.example/api/v1', apiKey: 't', authHeader: 'authorization', fetch, teamGateway: true });
    const ips = Array.from({ length: 150 }, (_, i) => `45.0.${Math.floor(i / 200)}.${i + 1}`);
    await client.checkIpBulk(ips, { asked: new Set([ips[0]!, ips[120]!]) });
    expect(sent.map((s) => (s.body as { asked: string[] }).asked)).toEqual([[ips[0]], [ips[120]]]);
    await client.checkIpBulk(['45.1.1.1']);
    expect((sent.at(-1)!.body as { asked: string[] }).asked).toEqual([]);
    await client.checkIp('45.1.1.1', { detailed: true, asked: true });
    expect(new URL(sent.at(-1)!.url).searchParams.get('asked')).toBe('true');
  });

  it('never sends either to the public API', async () => {
    const { sent, fetch } = recording();
    const client = createApiClient({ baseUrl: 'https://api.example/api/v1', apiKey: 'k', authHeader: 'authorization', fetch });
    await client.checkIpBulk(['45.1.1.1', '45.1.1.2'], { asked: new Set(['45.1.1.1']) });
    expect(sent[0]!.body).toEqual({ ips: ['45.1.1.1', '45.1.1.2'] });
    await client.checkIp('45.1.1.1', { detailed: true, asked: true });
    expect(new URL(sent.at(-1)!.url).searchParams.has('asked')).toBe(false);
  });
});
