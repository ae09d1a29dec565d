import { describe, expect, it, vi } from 'vitest';
import { MENU_COPY_STIX, MENU_LOOKUP_SELECTION, MENU_SCAN_PAGE } from '@/lib/background/context-menu';
import { FrameAsks } from '@/lib/background/frame-asks';
import { createPageHandlers } from '@/lib/background/page-handlers';
import { SITES_SCRIPT_ID } from '@/lib/background/site-registration';
import type { LookupResult } from '@/lib/lookup/types';
import { createRouter } from '@/lib/message-router';
import { parseEnvelope } from '@/lib/messaging';
import { fakePageApi, memorySites } from './page-api-fake';

const EXT = { extensionId: 'ext', extensionOrigin: 'chrome-extension://ext/', parse: parseEnvelope };
const fromOptions = { id: 'ext', url: 'chrome-extension://ext/options.html' };
const fromTab = (tabId: number, frameId = 0, documentId = 'doc') => ({ id: 'ext', url: 'http://127.0.0.1/p', tab: { id: tabId }, frameId, documentId });
const flush = () => new Promise((r) => setTimeout(r, 0));

function setup(granted: string[] = []) {
  const fake = fakePageApi({ granted });
  const sites = memorySites();
  const lookup = vi.fn(async (ips: readonly string[]): Promise<LookupResult[]> => ips.map((ip) => ({ ip, status: 'not-found', fetchedAt: 1 })));
  const frameAsks = new FrameAsks();
  const page = createPageHandlers({ lookup: { lookup }, api: fake.api, sites, selectionWarmupMs: 50, frameAsks });
  const route = createRouter(page.handlers, EXT);
  /** The frame was given a "found" reputation for these IPs (as cs:lookup notes it). */
  const tell = (tabId: number, ips: readonly string[], frameId = 0, documentId = 'doc') =>
    frameAsks.note({ tabId, frameId, documentId }, ips.map((ip) => ({ ip, status: 'found', fetchedAt: 1 }) as LookupResult));
  return { fake, sites, lookup, page, route, tell };
}

describe('page handlers', () => {
  it('ui:set-site-scanning registers and unregisters a granted site and stores the list', async () => {
    const { fake, sites, route } = setup(['http://127.0.0.1/*']);
    const on = await route({ type: 'ui:set-site-scanning', payload: { pattern: 'http://127.0.0.1/*', enabled: true } }, fromOptions);
    expect(on).toEqual({ ok: true, value: { patterns: ['http://127.0.0.1/*'] } });
    expect(sites.value).toEqual(['http://127.0.0.1/*']);
    expect(fake.registered.get(SITES_SCRIPT_ID)?.matches).toEqual(['http://127.0.0.1/*']);
    const off = await route({ type: 'ui:set-site-scanning', payload: { pattern: 'http://127.0.0.1/*', enabled: false } }, fromOptions);
    expect(off).toEqual({ ok: true, value: { patterns: [] } });
    expect(fake.registered.size).toBe(0);
  });

  it('refuses a site without permission, a malformed pattern, and a sender that is not an extension page', async () => {
    const { route, fake } = setup();
    const denied = await route({ type: 'ui:set-site-scanning', payload: { pattern: 'https://x.example/*', enabled: true } }, fromOptions);
    expect(denied).toMatchObject({ ok: false, error: { kind: 'internal', message: expect.stringMatching(/not granted/) } });
    const bad = await route({ type: 'ui:set-site-scanning', payload: { pattern: 'javascript:alert(1)', enabled: true } }, fromOptions);
    expect(bad).toMatchObject({ ok: false, error: { message: expect.stringMatching(/match pattern/) } });
    const forged = await route({ type: 'ui:set-site-scanning', payload: { pattern: 'https://x.example/*', enabled: true } }, fromTab(1));
    expect(forged).toMatchObject({ ok: false, error: { kind: 'forbidden' } });
    expect(fake.registered.size).toBe(0);
  });

  it('ui:scan-tab injects the content script into all frames once', async () => {
    const { route, fake } = setup();
    expect(await route({ type: 'ui:scan-tab', payload: { tabId: 12 } }, fromOptions)).toEqual({ ok: true, value: { injected: true } });
    expect(fake.injections).toEqual([{ tabId: 12, allFrames: true }]);
    const refused = await route({ type: 'ui:scan-tab', payload: { tabId: 666 } }, fromOptions);
    expect(refused).toMatchObject({ ok: false, error: { message: expect.stringMatching(/cannot be scanned/) } });
  });

  it('cs:page-summary sets the badge of the sending tab, an IP in two frames counting once', async () => {
    const { route, fake, tell } = setup();
    const top = { riskyIps: ['185.220.101.1', '45.33.32.156'] };
    tell(5, top.riskyIps);
    tell(5, ['185.220.101.1'], 2, 'frame-doc');
    expect(await route({ type: 'cs:page-summary', payload: top }, fromTab(5))).toEqual({ ok: true, value: { ok: true } });
    expect(fake.badges.get(5)).toBe('2');
    const frame = { riskyIps: ['185.220.101.1'] };
    expect(await route({ type: 'cs:page-summary', payload: frame }, fromTab(5, 2, 'frame-doc'))).toMatchObject({ ok: true });
    expect(fake.badges.get(5)).toBe('2');
    // Only content scripts may report.
    expect(await route({ type: 'cs:page-summary', payload: top }, fromOptions)).toMatchObject({ ok: false, error: { kind: 'forbidden' } });
  });

  it('cs:load-card injects the hover card into the asking frame only, for content scripts only', async () => {
    const { route, fake } = setup();
    expect(await route({ type: 'cs:load-card', payload: {} }, fromTab(7, 3))).toEqual({ ok: true, value: { loaded: true } });
    expect(fake.api.scripting.executeScript).toHaveBeenLastCalledWith({ target: { tabId: 7, frameIds: [3] }, files: ['hover-card.js'] });
    const calls = vi.mocked(fake.api.scripting.executeScript).mock.calls.length;
    expect(await route({ type: 'cs:load-card', payload: {} }, fromOptions)).toMatchObject({ ok: false, error: { kind: 'forbidden' } });
    expect(await route({ type: 'cs:load-card', payload: { file: 'x.js' } }, fromTab(7))).toMatchObject({ ok: false, error: { kind: 'invalid-message' } });
    expect(vi.mocked(fake.api.scripting.executeScript).mock.calls.length).toBe(calls);
  });

  it('cs:page-summary counts only IPs the frame was given a reputation for, and keeps what it verified before', async () => {
    const { route, fake, tell } = setup();
    tell(5, ['185.220.101.1']);
    // A lying frame: 100 IPs it never asked about, and one asked by another frame.
    tell(5, ['45.33.32.156'], 3, 'other');
    const lies = Array.from({ length: 100 }, (_, i) => `23.5.0.${i}`);
    await route({ type: 'cs:page-summary', payload: { riskyIps: ['185.220.101.1', '45.33.32.156', ...lies] } }, fromTab(5));
    expect(fake.badges.get(5)).toBe('1');
    // The worker restarted (nothing noted any more): what this document reported before stays.
    const restarted = createPageHandlers({ lookup: { lookup: vi.fn() }, api: fake.api, sites: memorySites(), frameAsks: new FrameAsks() });
    const routeAfter = createRouter(restarted.handlers, EXT);
    fake.badges.clear();
    await routeAfter({ type: 'cs:page-summary', payload: { riskyIps: ['185.220.101.1', ...lies] } }, fromTab(5));
    expect(fake.badges.get(5)).toBe('1');
  });

  it('cs:page-summary refuses reports that are too long or not lists of IPs', async () => {
    const { route, fake, tell } = setup();
    const tooMany = Array.from({ length: 1001 }, (_, i) => `23.0.${i >> 8}.${i & 255}`);
    const counts = { critical: 1, high: 2 };
    for (const payload of [{ riskyIps: tooMany }, { counts }, { riskyIps: ['x'.repeat(101)] }, { riskyIps: [], counts }]) {
      expect(await route({ type: 'cs:page-summary', payload }, fromTab(5))).toMatchObject({ ok: false, error: { kind: 'invalid-message' } });
    }
    expect(fake.badges.has(5)).toBe(false);
    tell(5, tooMany);
    expect(await route({ type: 'cs:page-summary', payload: { riskyIps: tooMany.slice(0, 1000) } }, fromTab(5))).toMatchObject({ ok: true });
    expect(fake.badges.get(5)).toBe('999+');
  });

  it('start() registers listeners synchronously and re-syncs registrations with the setting', async () => {
    const { page, fake, sites } = setup(['https://kibana.example.org/*']);
    page.start();
    expect(fake.events.onClicked.count).toBe(1);
    expect(fake.events.onCommand.count).toBe(1);
    expect(fake.events.onInstalled.count).toBe(1);
    await sites.set(['https://kibana.example.org/*']);
    await flush();
    await flush();
    expect(fake.registered.get(SITES_SCRIPT_ID)?.matches).toEqual(['https://kibana.example.org/*']);
    fake.granted.clear();
    fake.events.permRemoved.fire();
    await flush();
    await flush();
    expect(fake.registered.size).toBe(0);
  });

  it('creates the context menus on install and handles both entries and the shortcut', async () => {
    const { page, fake, lookup } = setup();
    page.start();
    fake.events.onInstalled.fire();
    await flush();
    expect(fake.menus.map((m) => [m.id, m.contexts])).toEqual([
      [MENU_SCAN_PAGE, ['page', 'frame']],
      [MENU_LOOKUP_SELECTION, ['selection']],
      [MENU_COPY_STIX, ['selection']],
    ]);
    fake.events.onClicked.fire({ menuItemId: MENU_SCAN_PAGE }, { id: 3 });
    fake.events.onCommand.fire('scan-page', { id: 4 });
    fake.events.onCommand.fire('something-else', { id: 4 });
    fake.events.onClicked.fire({ menuItemId: MENU_LOOKUP_SELECTION, selectionText: 'src=185.220.101.1 dst=10.0.0.1', frameId: 2 }, { id: 9 });
    await vi.waitFor(() => expect(fake.shown).toHaveLength(1));
    expect(fake.injections).toEqual([
      { tabId: 3, allFrames: true },
      { tabId: 4, allFrames: true },
      { tabId: 9, frameIds: [2] },
    ]);
    // The selection is looked up as a manual lookup before the card asks.
    expect(lookup).toHaveBeenCalledWith(['185.220.101.1', '10.0.0.1'], { priority: 'manual' });
    expect(fake.shown).toEqual([{ tabId: 9, frameId: 2, text: 'src=185.220.101.1 dst=10.0.0.1' }]);
  });

  it('clears a tab badge when the tab loads a new URL or closes', async () => {
    const { page, fake, route, tell } = setup();
    page.start();
    tell(5, ['185.220.101.1', '45.33.32.156']);
    await route({ type: 'cs:page-summary', payload: { riskyIps: ['185.220.101.1', '45.33.32.156'] } }, fromTab(5));
    fake.events.onUpdated.fire(5, { status: 'complete' });
    await flush();
    expect(fake.badges.get(5)).toBe('2');
    fake.events.onUpdated.fire(5, { status: 'loading', url: 'http://127.0.0.1/next' });
    await vi.waitFor(() => expect(fake.badges.get(5)).toBe(''));
    // Closed: its saved count goes, with no toolbar call on a tab that no longer exists.
    tell(6, ['185.220.101.1']);
    await route({ type: 'cs:page-summary', payload: { riskyIps: ['185.220.101.1'] } }, fromTab(6));
    await vi.waitFor(() => expect(fake.session.get('pageBadge')).toHaveProperty('6'));
    vi.mocked(fake.api.action.setBadgeText).mockClear();
    fake.events.onRemoved.fire(6);
    await vi.waitFor(() => expect(fake.session.get('pageBadge')).not.toHaveProperty('6'));
    expect(fake.api.action.setBadgeText).not.toHaveBeenCalled();
  });
});
