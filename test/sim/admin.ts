/**
 * `/__sim/*`: lets a test in another process (Playwright, the demo script) read and steer the
 * simulator. No authentication and never logged: it is not part of the service.
 *
 *   GET  /__sim/state    keys with usage, organisations, faults, request log and totals
 *   POST /__sim/faults   JSON SimFaults, merged; `{"clear": true, ...}` clears first
 *   DELETE /__sim/faults clears every fault
 *   POST /__sim/reset    usage, log and faults back to the start
 *   POST /__sim/keys     `{ key, currentUsage?, maxApiRequests?, expired?, name?, ... }`
 *   POST /__sim/profile  `{ "name": "docs" }`: another answer profile (profiles.ts); keys reset
 */
import type { ServerResponse } from 'node:http';
import type { SimFaults } from './faults';
import type { KeyPatch, KeyStore } from './keys';
import { ALL_PROFILE_NAMES, isProfileName } from './profiles';
import type { Simulator } from './types';

export interface AdminRequest {
  method: string;
  path: string;
  body: unknown;
}

export function handleAdmin(sim: Simulator, store: KeyStore, request: AdminRequest, res: ServerResponse): void {
  const send = (status: number, body: unknown) => {
    res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' });
    res.end(JSON.stringify(body));
  };
  const body = (request.body ?? {}) as Record<string, unknown>;
  const route = `${request.method} ${request.path}`;

  switch (route) {
    case 'GET /__sim/state':
      return send(200, state(sim, store));
    case 'POST /__sim/faults': {
      const { clear, ...faults } = body;
      if (clear === true) sim.clearFaults();
      sim.setFaults(faults as SimFaults);
      return send(200, { faults: sim.faults() });
    }
    case 'DELETE /__sim/faults':
      sim.clearFaults();
      return send(200, { faults: sim.faults() });
    case 'POST /__sim/reset':
      sim.reset();
      return send(200, { ok: true });
    case 'POST /__sim/keys': {
      const { key, ...patch } = body;
      if (typeof key !== 'string' || !key) return send(400, { error: 'key (string) is required' });
      return send(200, { key: sim.setKey(key, patch as KeyPatch) });
    }
    case 'POST /__sim/profile': {
      if (!isProfileName(body.name)) return send(400, { error: `name must be one of ${ALL_PROFILE_NAMES.join(', ')}` });
      sim.setProfile(body.name);
      return send(200, { profile: sim.profile });
    }
    default:
      return send(404, { error: `No admin route ${route}` });
  }
}

function state(sim: Simulator, store: KeyStore) {
  const log = sim.requestLog;
  const byPath: Record<string, { requests: number; cost: number }> = {};
  for (const entry of log) {
    const bucket = (byPath[entry.path] ??= { requests: 0, cost: 0 });
    bucket.requests++;
    bucket.cost += entry.cost;
  }
  return {
    baseUrl: sim.baseUrl,
    origin: sim.origin,
    profile: sim.profile,
    keys: sim.keys,
    organizations: store.organizationList().map((o) => ({ ...o, usage: store.organizationUsage(o.id) })),
    faults: sim.faults(),
    totals: { requests: log.length, cost: log.reduce((sum, e) => sum + e.cost, 0), byPath },
    requestLog: log.slice(-1000),
  };
}
