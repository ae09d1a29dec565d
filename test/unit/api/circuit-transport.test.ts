/**
 * The client under a circuit: an open endpoint is sent nothing (no retry either), other
 * endpoints go on, and a timed-out endpoint gets a longer timeout for its next request.
 */
import { describe, expect, it } from 'vitest';
import { createApiClient } from '../../../lib/api';
import { CircuitBreaker } from '../../../lib/api/circuit';
import { ApiError } from '../../../lib/api/errors';

function fakeFetch(answers: Record<string, () => Response>) {
  const calls: string[] = [];
  const fetch: typeof globalThis.fetch = async (input) => {
    const path = new URL(String(input)).pathname.replace('/api/v1', '');
    calls.push(path);
    return answers[path]!();
  };
  return { fetch, calls };
}

const html503 = () => new Response('<html>503 Service Unavailable</html>', { status: 503, headers: { 'content-type': 'text/html' } });
const account = () =>
  Response.json({ success: true, data: { api_key: { name: 'k', uid: 'u', max_api_requests: 1000, current_usage: 0, created_at: '2025-01-01T00:00:00Z', organization_id: null } } });

describe('the API client under a circuit', () => {
  it('a 503 opens the bulk circuit: the next bulk call is refused unsent, /account still goes', async () => {
    let now = 1_000_000;
    const circuit = new CircuitBreaker({ clock: { now: () => now }, random: () => 1 });
    const { fetch, calls } = fakeFetch({ '/checkIP/bulk': html503, '/account': account });
    // The circuit and the client read the same clock.
    const timers = { now: () => now, setTimeout: globalThis.setTimeout, clearTimeout: (h: unknown) => globalThis.clearTimeout(h as number) };
    const client = createApiClient({ baseUrl: 'https://api.test/api/v1', apiKey: 'k', authHeader: 'authorization', fetch, circuit, timers, retry: { limit: 3, baseDelayMs: 1, maxDelayMs: 1 } });
    await expect(client.checkIpBulk(['8.8.8.8'])).rejects.toMatchObject({ kind: 'server', status: 503 });
    expect(calls).toEqual(['/checkIP/bulk']);
    const refused = await client.checkIpBulk(['8.8.8.8']).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({ circuitOpen: true, retryAfterMs: 5_000 });
    expect((refused as ApiError).message).toMatch(/Not sent.*checkIP\/bulk.*5 s/);
    expect(calls).toEqual(['/checkIP/bulk']);
    await client.account().catch(() => undefined); // its shape does not matter here: it was sent
    expect(calls).toEqual(['/checkIP/bulk', '/account']);
    expect(circuit.view('/checkIP/bulk').state).toBe('open');
    now += 5_000;
    await expect(client.checkIpBulk(['8.8.8.8'])).rejects.toMatchObject({ kind: 'server' });
    expect(calls.filter((c) => c === '/checkIP/bulk')).toHaveLength(2);
  });

  it('a JSON 503 the client would retry is not retried into an open circuit', async () => {
    const circuit = new CircuitBreaker({ clock: { now: () => 0 }, random: () => 1 });
    const json503 = () => Response.json({ error: true, statusCode: 503, message: 'Service unavailable' }, { status: 503 });
    const { fetch, calls } = fakeFetch({ '/checkIP/bulk': json503 });
    const client = createApiClient({ baseUrl: 'https://api.test/api/v1', apiKey: 'k', authHeader: 'authorization', fetch, circuit, retry: { limit: 3, baseDelayMs: 1, maxDelayMs: 1 } });
    await expect(client.checkIpBulk(['8.8.8.8'])).rejects.toMatchObject({ kind: 'server' });
    expect(calls).toHaveLength(1);
  });
});
