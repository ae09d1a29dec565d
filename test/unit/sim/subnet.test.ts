/**
 * /checkSubnet against the public notes: only found IPs listed, a `summary` with total,
 * malicious, clean, average_score and found_count, 400 above /24 (and above /120, the same 256
 * addresses, for IPv6), 1 unit per IP found. Plain fetch, no client.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FIXTURES } from '../../sim/dataset';
import { DEMO_KEY } from '../../sim/keys';
import { startSimulator, type Simulator } from '../../sim/server';

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(() => sim.close());
beforeEach(() => sim.reset());

interface SubnetBody {
  total_ips: number;
  results: Array<{ ip: string; threat_score: number; ip_rep: string }>;
  summary: { total: number; malicious: number; clean: number; found_count: number };
  statusCode?: number;
  message?: string;
}

async function subnet(cidr: string) {
  const response = await fetch(`${sim.baseUrl}/checkSubnet?cidr=${encodeURIComponent(cidr)}`, {
    headers: { Authorization: `Bearer ${DEMO_KEY}` },
  });
  return { status: response.status, json: (await response.json()) as SubnetBody };
}

describe('GET /checkSubnet', () => {
  it('keeps its summary consistent with the rows it lists', async () => {
    const { status, json } = await subnet('185.220.101.0/24');
    expect(status).toBe(200);
    const rows = json.results;
    expect(json.total_ips).toBe(254);
    expect(json.summary.total).toBe(254);
    expect(json.summary.found_count).toBe(rows.length);
    expect(json.summary.malicious + json.summary.clean).toBe(json.summary.total);
    expect(json.summary.malicious).toBe(rows.filter((r) => r.ip_rep !== 'clean' && r.ip_rep !== 'whitelisted').length);
    // Every row is a found IP: the summary's average is over the scanned block, as in the docs' example.
    for (const row of rows) expect(sim.dataset.lookup(row.ip)).not.toBeNull();
    expect(sim.usage(DEMO_KEY)).toBe(rows.length);
  });

  it('scans an IPv6 /120 (256 addresses) and refuses a /119 with the documented limit', async () => {
    const v6 = await subnet('2a0b:4140:ddd::/120');
    expect(v6.status).toBe(200);
    expect(v6.json.total_ips).toBe(254);
    expect(v6.json.results.map((r) => r.ip)).toContain(FIXTURES.ipv6.ip);
    const found = v6.json.results.length;
    expect(sim.usage(DEMO_KEY)).toBe(found);

    const tooLarge = await subnet('2a0b:4140:ddd::/119');
    expect(tooLarge).toMatchObject({ status: 400, json: { statusCode: 400, message: 'Maximum subnet size is /24' } });
    // A 400 is billed like every 4xx except 404.
    expect(sim.usage(DEMO_KEY)).toBe(found + 1);
  });

  it('charges nothing for a block with nothing found', async () => {
    const { json } = await subnet('4.2.2.2/32');
    expect(json.results).toEqual([]);
    expect(json.summary).toMatchObject({ total: 1, found_count: 0, malicious: 0 });
    expect(sim.usage(DEMO_KEY)).toBe(0);
  });
});
