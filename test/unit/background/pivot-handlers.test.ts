import { describe, expect, it, vi } from 'vitest';
import { MENU_LOOKUP_SELECTION, MENU_PIVOTS, MENU_PIVOT_PREFIX, MENU_SCAN_PAGE, MENU_COPY_STIX } from '@/lib/background/context-menu';
import { createPageHandlers } from '@/lib/background/page-handlers';
import { createPivotHandlers } from '@/lib/background/pivot-handlers';
import { createRouter } from '@/lib/message-router';
import { parseEnvelope } from '@/lib/messaging';
import { DEFAULT_PIVOTS, type Pivot } from '@/lib/pivots';
import { fakePageApi, memorySites } from './page-api-fake';

const EXT = { extensionId: 'ext', extensionOrigin: 'chrome-extension://ext/', parse: parseEnvelope };
const fromTab = (tabId: number) => ({ id: 'ext', url: 'https://siem.example/app', tab: { id: tabId }, frameId: 0, documentId: 'doc' });
const fromOptions = { id: 'ext', url: 'chrome-extension://ext/options.html' };
const flush = () => new Promise((r) => setTimeout(r, 0));

function setup(initial: Pivot[] = [...DEFAULT_PIVOTS]) {
  let pivots = initial;
  const watchers: (() => void)[] = [];
  const opened: { url: string; opener: number | undefined }[] = [];
  let time = 0;
  const service = createPivotHandlers({
    pivots: async () => pivots,
    openTab: async (url, opener) => void opened.push({ url, opener }),
    watch: (cb) => void watchers.push(cb),
    now: () => time,
  });
  const route = createRouter(service.handlers, EXT);
  return {
    service,
    route,
    opened,
    setPivots(next: Pivot[]) {
      pivots = next;
      watchers.forEach((w) => w());
    },
    advance: (ms: number) => void (time += ms),
  };
}

describe('pivot handlers', () => {
  it('cs:get-pivots gives the card ids and names of the enabled services, never their URLs', async () => {
    const { route, setPivots } = setup();
    setPivots([
      { id: 'shodan', name: ' Shodan ', urlTemplate: 'https://www.shodan.io/host/{ip}', enabled: true },
      { id: 'censys', name: 'Censys', urlTemplate: 'https://search.censys.io/hosts/{ip}', enabled: false },
      { id: 'custom-7', name: 'SOAR', urlTemplate: 'https://soar.corp.example/ip/{ip}', enabled: true },
    ]);
    const reply = await route({ type: 'cs:get-pivots', payload: {} }, fromTab(3));
    expect(reply).toEqual({ ok: true, value: { pivots: [{ id: 'shodan', name: 'Shodan' }, { id: 'custom-7', name: 'SOAR' }] } });
    expect(JSON.stringify(reply)).not.toContain('soar.corp');
  });

  it('cs:open-pivot opens the encoded canonical address next to the sending tab', async () => {
    const { route, opened } = setup();
    expect(await route({ type: 'cs:open-pivot', payload: { ip: '185.220.101.1', pivotId: 'shodan' } }, fromTab(4))).toEqual({ ok: true, value: { opened: true } });
    await route({ type: 'cs:open-pivot', payload: { ip: '2001:DB8::1', pivotId: 'ipinfo' } }, fromTab(4));
    expect(opened).toEqual([
      { url: 'https://www.shodan.io/host/185.220.101.1', opener: 4 },
      { url: 'https://ipinfo.io/2001%3Adb8%3A%3A1', opener: 4 },
    ]);
  });

  it('refuses what a page could forge: unknown or disabled services, non-addresses, other senders', async () => {
    const { route, opened, setPivots } = setup();
    setPivots(DEFAULT_PIVOTS.map((p) => ({ ...p, enabled: p.id !== 'censys' })));
    const off = await route({ type: 'cs:open-pivot', payload: { ip: '8.8.8.8', pivotId: 'censys' } }, fromTab(1));
    expect(off).toMatchObject({ ok: false, error: { message: expect.stringMatching(/turned off or no longer exists/) } });
    const unknown = await route({ type: 'cs:open-pivot', payload: { ip: '8.8.8.8', pivotId: 'evil' } }, fromTab(1));
    expect(unknown).toMatchObject({ ok: false, error: { message: expect.stringMatching(/turned off or no longer exists/) } });
    const path = await route({ type: 'cs:open-pivot', payload: { ip: '../../admin?x=', pivotId: 'shodan' } }, fromTab(1));
    expect(path).toMatchObject({ ok: false, error: { message: expect.stringMatching(/is not an IP address/) } });
    const badId = await route({ type: 'cs:open-pivot', payload: { ip: '8.8.8.8', pivotId: 'javascript:alert(1)' } }, fromTab(1));
    expect(badId).toMatchObject({ ok: false, error: { kind: 'invalid-message' } });
    const url = await route({ type: 'cs:open-pivot', payload: { ip: '8.8.8.8', pivotId: 'shodan', url: 'https://evil.example/' } }, fromTab(1));
    expect(url).toMatchObject({ ok: false, error: { kind: 'invalid-message' } });
    const page = await route({ type: 'cs:open-pivot', payload: { ip: '8.8.8.8', pivotId: 'shodan' } }, fromOptions);
    expect(page).toMatchObject({ ok: false, error: { kind: 'forbidden' } });
    expect(opened).toEqual([]);
  });

  it('limits how many tabs one page can open in a burst', async () => {
    const { route, opened, advance } = setup();
    const ask = () => route({ type: 'cs:open-pivot', payload: { ip: '8.8.8.8', pivotId: 'shodan' } }, fromTab(5));
    for (let i = 0; i < 6; i++) expect(await ask()).toMatchObject({ ok: true });
    expect(await ask()).toMatchObject({ ok: false, error: { message: expect.stringMatching(/Too many links opened from this tab: try again in 2 s/) } });
    // Another tab has its own allowance; time gives one back.
    expect(await route({ type: 'cs:open-pivot', payload: { ip: '8.8.8.8', pivotId: 'shodan' } }, fromTab(6))).toMatchObject({ ok: true });
    advance(2_000);
    expect(await ask()).toMatchObject({ ok: true });
    expect(opened).toHaveLength(8);
  });
});

describe('context menu "Open IP in"', () => {
  function withPage(initial?: Pivot[]) {
    const pivot = setup(initial);
    const fake = fakePageApi();
    const page = createPageHandlers({ lookup: { lookup: async () => [] }, api: fake.api, sites: memorySites(), selectionWarmupMs: 10, pivots: pivot.service });
    page.start();
    return { ...pivot, fake };
  }

  it('offers one entry per enabled service and follows changes to them', async () => {
    const { fake, setPivots } = withPage();
    fake.events.onInstalled.fire();
    await flush();
    expect(fake.menus.map((m) => m.id)).toEqual([
      MENU_SCAN_PAGE,
      MENU_LOOKUP_SELECTION,
      MENU_COPY_STIX,
      MENU_PIVOTS,
      ...DEFAULT_PIVOTS.map((p) => `${MENU_PIVOT_PREFIX}${p.id}`),
    ]);
    expect(fake.menus.find((m) => m.id === `${MENU_PIVOT_PREFIX}shodan`)).toMatchObject({ title: 'Shodan', parentId: MENU_PIVOTS, contexts: ['selection'] });
    setPivots([{ id: 'custom-7', name: 'R&D', urlTemplate: 'https://rd.example/{ip}', enabled: true }, { ...DEFAULT_PIVOTS[0]!, enabled: false }]);
    await flush();
    expect(fake.menus.map((m) => [m.id, m.title])).toEqual([
      [MENU_SCAN_PAGE, 'Scan this page for IP addresses'],
      [MENU_LOOKUP_SELECTION, 'Look up IP reputation'],
      [MENU_COPY_STIX, 'Copy IP as STIX 2.1'],
      [MENU_PIVOTS, 'Open IP in'],
      [`${MENU_PIVOT_PREFIX}custom-7`, 'R&&D'],
    ]);
    setPivots([]);
    await flush();
    expect(fake.menus.map((m) => m.id)).toEqual([MENU_SCAN_PAGE, MENU_LOOKUP_SELECTION, MENU_COPY_STIX]);
  });

  it('opens the first IP of the selection; without one, the selection card says so', async () => {
    const { fake, opened } = withPage();
    fake.events.onClicked.fire({ menuItemId: `${MENU_PIVOT_PREFIX}virustotal`, selectionText: 'src=[2001:db8::7]:443 dst=8.8.8.8', frameId: 2 }, { id: 9 });
    await flush();
    expect(opened).toEqual([{ url: 'https://www.virustotal.com/gui/ip-address/2001%3Adb8%3A%3A7', opener: 9 }]);
    fake.events.onClicked.fire({ menuItemId: `${MENU_PIVOT_PREFIX}shodan`, selectionText: 'no address here', frameId: 2 }, { id: 9 });
    // Waited for, not timed: a fixed wait fails on a loaded machine.
    await vi.waitFor(() => expect(fake.shown).toEqual([{ tabId: 9, frameId: 2, text: '' }]));
    expect(opened).toHaveLength(1);
  });
});
