/**
 * The background trusts no content script: random and hostile messages of every cs:* type (and
 * look-alikes), from random senders, through the real router and handlers, against the
 * simulator. After every message, nothing changed beyond that message's contract:
 *   - no setting changed, nothing reached the API but lookups of public IPs the message asked
 *     for (cs:lookup within its tab's cap; cs:lookup-detailed one IP, rate-limited per tab);
 *   - the badge of a tab never counts more IPs than its frames were given reputations for;
 *   - every message gets a Reply (or silence for types that are not ours), never a throw.
 */
import 'fake-indexeddb/auto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { createDisplayHandlers } from '@/lib/background/display-handlers';
import { FrameAsks } from '@/lib/background/frame-asks';
import { createLookupHandlers } from '@/lib/background/lookup-handlers';
import { createPageHandlers } from '@/lib/background/page-handlers';
import { createIdbCacheStore } from '@/lib/lookup/idb-cache-store';
import type { LookupResult } from '@/lib/lookup/types';
import { createRouter } from '@/lib/message-router';
import { parseEnvelope } from '@/lib/messaging';
import { DEFAULT_LOOKUP_POLICY, getSettings, saveSettings } from '@/lib/settings';
import { DEMO_KEY } from '../../sim/keys';
import { startSimulator, type Simulator } from '../../sim/server';
import { fakePageApi, memorySites } from './page-api-fake';

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(async () => {
  await sim.close();
});

const EXT = { extensionId: 'ext', extensionOrigin: 'chrome-extension://ext/', parse: parseEnvelope };
const CAP = 15;

const ipArb = fc.oneof(
  fc.constantFrom('185.220.101.1', '45.33.32.156', '4.2.2.2', '10.0.0.1', '127.0.0.1', '::1', '2001:db8::1', '999.1.1.1'),
  fc.tuple(fc.nat(255), fc.nat(255)).map(([a, b]) => `23.${a}.${b}.7`),
  fc.string({ maxLength: 120 }),
);
const hostile = fc.constantFrom<unknown>(
  null,
  undefined,
  42,
  'x',
  [],
  { __proto__: { polluted: true } },
  JSON.parse('{"__proto__":{"polluted":true}}'),
  { ips: 'not-a-list' },
  { ips: [], priority: 'visible' },
  { ips: ['1.2.3.4'], priority: 'manual' },
  { ips: ['1.2.3.4'], priority: 'visible', detailed: true },
  { ip: '185.220.101.1', extra: 1 },
  { riskyIps: Array.from({ length: 1_001 }, (_, i) => `23.1.${i >> 8}.${i & 255}`) },
  { counts: { critical: 100 } },
);
const payloadArb = fc.oneof(
  hostile,
  fc.record({ ips: fc.array(ipArb, { minLength: 1, maxLength: 40 }), priority: fc.constantFrom('visible', 'background') }),
  fc.record({ ip: ipArb }),
  fc.record({ riskyIps: fc.array(ipArb, { maxLength: 60 }) }),
  // A lying summary of well-formed IPs, some of them asked by this or another frame, most not.
  fc.record({ riskyIps: fc.uniqueArray(fc.constantFrom('185.220.101.1', '45.33.32.156', '23.5.5.5', '23.6.6.6', '4.2.2.2'), { minLength: 1 }) }),
  fc.record({}),
  fc.anything(),
);
const typeArb = fc.constantFrom('cs:lookup', 'cs:lookup-detailed', 'cs:page-summary', 'cs:get-display-settings', 'cs:unknown', 'ui:clear-cache', 'ui:lookup', 'tab:results-stale');
const senderArb = fc.oneof(
  fc.record({
    id: fc.constant('ext'),
    url: fc.constantFrom('https://evil.example/', 'https://siem.example/'),
    tab: fc.record({ id: fc.integer({ min: 1, max: 3 }), url: fc.constant('https://siem.example/alerts') }),
    frameId: fc.integer({ min: 0, max: 2 }),
    documentId: fc.constantFrom('d1', 'd2'),
  }),
  // Not a content script of ours: another extension, a web page, our own page without a tab.
  fc.record({ id: fc.constantFrom('other-ext', undefined), url: fc.constant('https://evil.example/'), tab: fc.constant({ id: 1 }) }),
  fc.constant({ id: 'ext', url: 'chrome-extension://ext/popup.html' }),
);

describe('background against hostile content-script messages', () => {
  it('changes nothing beyond each message contract (fixed seed)', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(typeArb, payloadArb, senderArb), { minLength: 1, maxLength: 25 }), async (messages) => {
        fakeBrowser.reset();
        sim.reset();
        await saveSettings({ apiKey: DEMO_KEY, apiBaseUrl: sim.baseUrl, lookupPolicy: { ...DEFAULT_LOOKUP_POLICY, perPageCap: CAP, siteDailyCap: 1_000 } });
        const settingsBefore = await getSettings();
        const frameAsks = new FrameAsks();
        const told = new Map<number, Set<string>>();
        const lookup = createLookupHandlers(
          { cacheStore: createIdbCacheStore({ name: `fuzz-${++run}` }) },
          { frameAsks, tabUrl: async () => 'https://siem.example/alerts', askAgain: async () => undefined },
        );
        const fake = fakePageApi();
        const page = createPageHandlers({ lookup: lookup.service, api: fake.api, sites: memorySites(), frameAsks });
        const display = createDisplayHandlers({ watch: () => () => undefined, push: async () => undefined });
        const route = createRouter({ ...lookup.handlers, ...page.handlers, ...display.handlers }, EXT);
        const allowed = new Set<string>();
        let detailed = 0;

        for (const [type, payload, sender] of messages) {
          const bulkBefore = sim.requestLog.filter((e) => e.path === '/checkIP').length;
          const reply = (await route({ type, payload }, sender as never)) as { ok: boolean; value?: unknown } | undefined;
          // Not ours to answer: silence, or a refusal of its malformed payload.
          if (type.startsWith('tab:')) expect(reply === undefined || reply.ok === false).toBe(true);
          else expect(typeof reply?.ok).toBe('boolean');
          if (type.startsWith('ui:')) expect(reply?.ok).toBe(false); // never from a content script
          const p = (payload !== null && typeof payload === 'object' ? payload : {}) as { ips?: unknown; ip?: unknown };
          if (reply?.ok && type === 'cs:lookup' && Array.isArray(p.ips)) {
            for (const ip of p.ips as string[]) allowed.add(ip.trim());
            const tabId = (sender as { tab: { id: number } }).tab.id;
            for (const r of reply.value as LookupResult[]) if (r.status === 'found') (told.get(tabId) ?? told.set(tabId, new Set()).get(tabId)!).add(r.ip);
          }
          if (type === 'cs:lookup-detailed' && typeof p.ip === 'string') {
            allowed.add(p.ip.trim());
            const r = reply?.value as LookupResult | undefined;
            const tabId = (sender as { tab?: { id?: number } }).tab?.id ?? -1;
            if (reply?.ok && r?.status === 'found') (told.get(tabId) ?? told.set(tabId, new Set()).get(tabId)!).add(r.ip);
          }
          const singles = sim.requestLog.filter((e) => e.path === '/checkIP').length - bulkBefore;
          expect(singles).toBeLessThanOrEqual(1);
          detailed += singles;
        }
        await lookup.service.whenIdle();

        // Only lookups, only of IPs asked by messages that were let through.
        const paths = new Set(sim.requestLog.map((e) => e.path));
        for (const path of paths) expect(['/checkIP/bulk', '/checkIP', '/account']).toContain(path);
        for (const ask of sim.ipLog.all()) expect(allowed.has(ask.ip) || allowed.has(ask.ip.toLowerCase())).toBe(true);
        // Per tab (one site): never more than the cap; detailed lookups at most 10 a tab in a burst.
        expect(new Set(sim.ipLog.all().filter((a) => a.path === '/checkIP/bulk').map((a) => a.ip)).size).toBeLessThanOrEqual(3 * CAP);
        expect(detailed).toBeLessThanOrEqual(3 * 10);
        // The badge counts no IP its tab was not given.
        for (const [tabId, text] of fake.badges) {
          const shown = text === '' ? 0 : Number.parseInt(text, 10);
          expect(shown).toBeLessThanOrEqual(told.get(tabId)?.size ?? 0);
        }
        expect(await getSettings()).toEqual(settingsBefore);
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      }),
      { numRuns: 40 },
    );
  }, 180_000);
});
