/**
 * The background trusts no content script: random and hostile messages of every cs:* type (and
 * look-alikes), from random senders, through the real router and handlers, against the
 * simulator. After every message, nothing changed beyond that message's contract:
 *   - no setting changed, nothing reached the API but lookups of public IPs the message asked
 *     for (cs:lookup within its tab's cap; cs:lookup-detailed one IP, rate-limited per tab, and
 *     only from the tab in front, from a live document, for an IP that frame asked before);
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
import { normalizeIp } from '@/lib/ip';
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
const IN_FRONT = 1;

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
    documentLifecycle: fc.constantFrom(undefined, 'active', 'active', 'prerender', 'cached'),
  }),
  // Not a content script of ours: another extension, a web page, our own page without a tab.
  fc.record({ id: fc.constantFrom('other-ext', undefined), url: fc.constant('https://evil.example/'), tab: fc.constant({ id: 1 }) }),
  fc.constant({ id: 'ext', url: 'chrome-extension://ext/popup.html' }),
);

const contentScriptSender = senderArb.filter((s) => (s as { id?: string; tab?: { url?: string } }).id === 'ext' && !!(s as { tab?: { url?: string } }).tab?.url);
/** What an honest card does: its frame looked an IP up, then Details is clicked for it (from any tab, in any state). */
const honestPair = fc
  .tuple(fc.constantFrom('185.220.101.1', '45.33.32.156', '4.2.2.2', '23.7.7.7'), contentScriptSender)
  .map(([ip, sender]) => [
    ['cs:lookup', { ips: [ip], priority: 'visible' }, sender],
    ['cs:lookup-detailed', { ip }, sender],
  ] as [string, unknown, unknown][]);
const messagesArb = fc
  .array(fc.oneof(fc.tuple(typeArb, payloadArb, senderArb).map((m) => [m] as [string, unknown, unknown][]), honestPair), { minLength: 1, maxLength: 15 })
  .map((groups) => groups.flat());

describe('background against hostile content-script messages', () => {
  it('changes nothing beyond each message contract (fixed seed)', async () => {
    let run = 0;
    let detailedLetThrough = 0;
    await fc.assert(
      fc.asyncProperty(messagesArb, async (messages) => {
        fakeBrowser.reset();
        sim.reset();
        await saveSettings({ apiKey: DEMO_KEY, apiBaseUrl: sim.baseUrl, lookupPolicy: { ...DEFAULT_LOOKUP_POLICY, perPageCap: CAP, siteDailyCap: 1_000 } });
        const settingsBefore = await getSettings();
        const frameAsks = new FrameAsks();
        const told = new Map<number, Set<string>>();
        const lookup = createLookupHandlers(
          { cacheStore: createIdbCacheStore({ name: `fuzz-${++run}` }) },
          // Tab 1 is the one in front (detail-trust.ts); tabs 2 and 3 are behind it.
          { frameAsks, tabUrl: async () => 'https://siem.example/alerts', tabInFront: async (id) => id === IN_FRONT },
        );
        const fake = fakePageApi();
        const page = createPageHandlers({ lookup: lookup.service, api: fake.api, sites: memorySites(), frameAsks });
        const display = createDisplayHandlers({ watch: () => () => undefined, push: async () => undefined });
        const route = createRouter({ ...lookup.handlers, ...page.handlers, ...display.handlers }, EXT);
        const allowed = new Set<string>();
        let detailed = 0;
        /** frame key -> IPs its let-through cs:lookup messages asked (canonical). */
        const askedBy = new Map<string, Set<string>>();
        const frameKey = (sender: unknown) => {
          const s = sender as { tab?: { id?: number }; frameId?: number; documentId?: string };
          return `${s.tab?.id}:${s.frameId ?? 0}:${s.documentId ?? ''}`;
        };

        for (const [type, payload, sender] of messages) {
          const bulkBefore = sim.requestLog.filter((e) => e.path === '/checkIP').length;
          const reply = (await route({ type, payload }, sender as never)) as { ok: boolean; value?: unknown } | undefined;
          // Not ours to answer: silence, or a refusal of its malformed payload.
          if (type.startsWith('tab:')) expect(reply === undefined || reply.ok === false).toBe(true);
          else expect(typeof reply?.ok).toBe('boolean');
          // Never from a content script (the popup-page sender may: it is the popup's own message).
          const fromOwnPage = String((sender as { url?: string }).url).startsWith(EXT.extensionOrigin);
          if (type.startsWith('ui:') && !fromOwnPage) expect(reply?.ok).toBe(false);
          const p = (payload !== null && typeof payload === 'object' ? payload : {}) as { ips?: unknown; ip?: unknown };
          if (reply?.ok && type === 'cs:lookup' && Array.isArray(p.ips)) {
            for (const ip of p.ips as string[]) allowed.add(ip.trim());
            const key = frameKey(sender);
            const asked = askedBy.get(key) ?? askedBy.set(key, new Set()).get(key)!;
            for (const ip of p.ips as string[]) asked.add(normalizeIp(ip) ?? ip);
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
          if (singles > 0) {
            detailedLetThrough++;
            // A paid detailed lookup: only from the tab in front, a live document, for an IP that frame asked.
            const s = sender as { tab: { id: number }; documentLifecycle?: string };
            expect(type).toBe('cs:lookup-detailed');
            expect(s.tab.id).toBe(IN_FRONT);
            expect([undefined, 'active']).toContain(s.documentLifecycle);
            expect(askedBy.get(frameKey(sender))?.has(normalizeIp(String(p.ip)) ?? String(p.ip))).toBe(true);
          }
          detailed += singles;
        }
        await lookup.service.whenIdle();

        // Only lookups, only of IPs asked by messages that were let through.
        const paths = new Set(sim.requestLog.map((e) => e.path));
        for (const path of paths) expect(['/checkIP/bulk', '/checkIP', '/account']).toContain(path);
        for (const ask of sim.ipLog.all()) expect(allowed.has(ask.ip) || allowed.has(ask.ip.toLowerCase())).toBe(true);
        // Per tab (one site): never more than the cap; detailed lookups at most 10 a tab in a burst.
        expect(new Set(sim.ipLog.all().filter((a) => a.path === '/checkIP/bulk').map((a) => a.ip)).size).toBeLessThanOrEqual(3 * CAP);
        expect(detailed).toBeLessThanOrEqual(10);
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
    // The rule lets the honest case through too (the property is not vacuous).
    expect(detailedLetThrough).toBeGreaterThan(0);
  }, 180_000);
});
