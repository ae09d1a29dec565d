// @vitest-environment happy-dom
/**
 * No "undefined", "null", "NaN" or "Invalid Date" on screen, under every simulator profile
 * (answer profiles and half-broken ones) and the schema-change faults. A component-level walk
 * (happy-dom, faster than an e2e walk): the real popup and options apps and the hover card's
 * view, whose messages are answered by the real lookup service over the real API client and the
 * real simulator (with a circuit and a fake clock, so the half-broken profiles fail as they do
 * in the field).
 */
import 'fake-indexeddb/auto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IpView } from '@/components/hover-card/ip-view';
import { OptionsApp } from '@/entrypoints/options/options-app';
import { PopupApp } from '@/entrypoints/popup/popup-app';
import { createApiClient } from '@/lib/api';
import { CircuitBreaker } from '@/lib/api/circuit';
import { ApiError } from '@/lib/api/errors';
import { createIdbCacheStore } from '@/lib/lookup/idb-cache-store';
import { LookupService } from '@/lib/lookup/lookup-service';
import { createMemoryLedgerStore } from '@/lib/lookup/quota-ledger';
import type { LookupResult } from '@/lib/lookup/types';
import type { Reply } from '@/lib/protocol';
import { DEFAULT_LOOKUP_POLICY } from '@/lib/settings';
import { DEFAULT_THRESHOLDS } from '@/lib/severity';
import { FIXTURES, NOT_FOUND_IPS } from '../../sim/dataset';
import { DEMO_KEY } from '../../sim/keys';
import { ALL_PROFILE_NAMES } from '../../sim/profiles';
import { startSimulator, type Simulator } from '../../sim/server';
import { createManualClock } from '../lookup/helpers/manual-clock';
import { button, byLabel, click, flush, mount, text, type } from './dom';
import { createFakeServices, type FakeServices } from './fake-services';

const FORBIDDEN = /\b(undefined|null|NaN)\b|Invalid Date/;
const IPS = [...Object.values(FIXTURES).map((f) => f.ip), ...NOT_FOUND_IPS.slice(0, 2)];
let sim: Simulator;
let db = 0;

beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(async () => {
  await sim.close();
});

async function asReply<T>(work: () => Promise<T>): Promise<Reply<T>> {
  try {
    return { ok: true, value: await work() };
  } catch (error) {
    if (error instanceof ApiError) return { ok: false, error: error.toJSON() };
    throw error;
  }
}

/** Fake services whose lookups and status come from the real engine against the simulator. */
function realServices(): { services: FakeServices; service: LookupService; drive: <T>(p: Promise<T>) => Promise<T> } {
  const clock = createManualClock(Date.now());
  sim.useTimers(clock);
  const circuit = new CircuitBreaker({ clock, random: () => 0.5 });
  const client = createApiClient({ baseUrl: sim.baseUrl, apiKey: DEMO_KEY, authHeader: 'authorization', circuit, timers: clock, retry: { limit: 1, baseDelayMs: 1, maxDelayMs: 2, maxRetryAfterMs: 50 } });
  const service = new LookupService({
    clientSource: async () => ({ server: sim.baseUrl, handle: { client, identity: 'demo' } }),
    policySource: async () => DEFAULT_LOOKUP_POLICY,
    initialPolicy: DEFAULT_LOOKUP_POLICY,
    cacheStore: createIdbCacheStore({ name: `screen-words-${++db}` }),
    ledgerStore: createMemoryLedgerStore(),
    clock,
    circuit,
  });
  /** Moves the fake clock (and lets real I/O run) until the work settles: a slow bulk takes simulated seconds. */
  const drive = async <T,>(promise: Promise<T>): Promise<T> => {
    let done = false;
    void promise.finally(() => (done = true)).catch(() => undefined);
    for (let i = 0; i < 4_000 && !done; i++) {
      await clock.advance(250);
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    return promise;
  };
  const services = createFakeServices({ apiKey: DEMO_KEY, apiBaseUrl: sim.baseUrl });
  services.handlers['ui:lookup'] = ({ ips, detailed, retryLost }) =>
    drive(asReply(() => service.lookup(ips, { priority: 'manual', detailed: detailed ?? false, retryLost: retryLost === true })));
  services.handlers['ui:get-status'] = () => drive(asReply(() => service.status()));
  services.handlers['ui:verify-key'] = () => drive(asReply(() => service.verifyKey()));
  services.handlers['ui:refresh-quota'] = () => drive(asReply(() => service.refreshQuota()));
  return { services, service, drive };
}

/** Waits (real time) until the popup shows no "Looking up…" any more. */
async function settled(root: HTMLElement): Promise<void> {
  for (let i = 0; i < 400 && /Looking up/.test(text(root)); i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    await flush();
  }
  await flush();
}

const CASES = [
  ...ALL_PROFILE_NAMES.map((profile) => ({ profile, fault: 'none' as const })),
  { profile: 'spec' as const, fault: 'rows' as const },
  { profile: 'spec' as const, fault: 'envelope' as const },
];

describe.each(CASES)('screen text under profile $profile, schema change $fault', ({ profile, fault }) => {
  it('popup (pasted text, one IP in detail), hover card views and options: no undefined / null / NaN / Invalid Date', async () => {
    sim.reset();
    sim.setProfile(profile);
    if (fault !== 'none') sim.setFaults({ schemaChange: fault });
    const { services, service, drive } = realServices();
    const screens: string[] = [];

    // The popup: pasted text (bulk), then one IP in detail (checkIP).
    let root = await mount(<PopupApp />, services);
    await type(byLabel<HTMLTextAreaElement>(root, 'IP address or text'), IPS.join('\n'));
    await click(button(root, 'Look up'));
    await settled(root);
    screens.push(text(root));
    for (const row of root.querySelectorAll('tr.row')) (row as HTMLElement).click();
    await flush();
    screens.push(text(root));
    await type(byLabel<HTMLTextAreaElement>(root, 'IP address or text'), FIXTURES.critical.ip);
    await click(button(root, 'Look up'));
    await settled(root);
    screens.push(text(root));

    // The hover card's view of every answer the page would get.
    const results: LookupResult[] = await drive(service.lookup(IPS, { priority: 'visible', source: 't', site: 's' }));
    for (const result of results) {
      root = await mount(<IpView ip={result.ip} result={result} thresholds={DEFAULT_THRESHOLDS} headingLevel={2} />, services);
      screens.push(text(root));
    }

    // Options: status, quota, verified key.
    root = await mount(<OptionsApp />, services);
    await settled(root);
    screens.push(text(root));

    expect(screens.join('\n').length).toBeGreaterThan(500);
    for (const screen of screens) expect(screen.match(FORBIDDEN)?.[0], screen.slice(0, 2000)).toBeUndefined();
    sim.useTimers(null);
  }, 60_000);
});
