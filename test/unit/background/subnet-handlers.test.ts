import { describe, expect, it, vi } from 'vitest';
import { DetailRate } from '../../../lib/background/detail-rate';
import { FrameAsks } from '../../../lib/background/frame-asks';
import { createSubnetHandlers, subnetCheckPath } from '../../../lib/background/subnet-handlers';
import type { CidrBlock } from '../../../lib/ip/cidr-block';
import { createRouter } from '../../../lib/message-router';
import { parseEnvelope } from '../../../lib/messaging';
import { createManualClock } from '../lookup/helpers/manual-clock';

const EXT = { extensionId: 'ext', extensionOrigin: 'chrome-extension://ext/', parse: parseEnvelope };
const popup = { id: 'ext', url: 'chrome-extension://ext/popup.html' };

function setup() {
  const checkSubnet = vi.fn(async (block: CidrBlock) => ({
    cidr: block.cidr,
    summary: { total: 254, malicious: 1, clean: 253, averageScore: 0.4, foundCount: 1 },
    found: [{ ip: '185.220.101.1', status: 'found' as const, data: { ip: '185.220.101.1' } as never, fetchedAt: 1 }],
    cost: 1,
    updated: ['185.220.101.1', '185.220.101.2'],
  }));
  const notifyTabs = vi.fn(async () => undefined);
  const { handlers } = createSubnetHandlers({ service: { checkSubnet }, notifyTabs });
  const route = createRouter(handlers, EXT);
  return { checkSubnet, notifyTabs, route };
}

describe('ui:check-subnet', () => {
  it('checks the block holding a typed host, tells the tabs, answers the summary', async () => {
    const { checkSubnet, notifyTabs, route } = setup();
    const reply = await route({ type: 'ui:check-subnet', payload: { cidr: '185.220.101.77/24' } }, popup);
    expect(checkSubnet).toHaveBeenCalledWith(expect.objectContaining({ cidr: '185.220.101.0/24' }));
    expect(notifyTabs).toHaveBeenCalledWith(['185.220.101.1', '185.220.101.2']);
    expect(reply).toMatchObject({ ok: true, value: { cidr: '185.220.101.0/24', cost: 1, summary: { foundCount: 1 } } });
    expect(reply).not.toHaveProperty('value.updated');
  });

  it('refuses blocks above /24 or /120 and non-blocks without calling the API', async () => {
    const { checkSubnet, route } = setup();
    expect(await route({ type: 'ui:check-subnet', payload: { cidr: '185.220.0.0/16' } }, popup)).toMatchObject({
      ok: false,
      error: { kind: 'bad-request', message: '185.220.0.0/16 is larger than /24 (256 addresses), the largest block the API scans.' },
    });
    expect(await route({ type: 'ui:check-subnet', payload: { cidr: '2001:db8::/64' } }, popup)).toMatchObject({
      ok: false,
      error: { message: expect.stringContaining('larger than /120') },
    });
    expect(await route({ type: 'ui:check-subnet', payload: { cidr: '10/24' } }, popup)).toMatchObject({ ok: false, error: { kind: 'bad-request' } });
    expect(checkSubnet).not.toHaveBeenCalled();
  });

  it('is refused from a content script and with a malformed payload', async () => {
    const { checkSubnet, route } = setup();
    const tab = { id: 'ext', url: 'https://siem.example/', tab: { id: 3 } };
    expect(await route({ type: 'ui:check-subnet', payload: { cidr: '185.220.101.0/24' } }, tab)).toMatchObject({ ok: false, error: { kind: 'forbidden' } });
    expect(await route({ type: 'ui:check-subnet', payload: { cidr: 24 } }, popup)).toMatchObject({ ok: false, error: { kind: 'invalid-message' } });
    expect(checkSubnet).not.toHaveBeenCalled();
  });
});

describe('cs:open-subnet-check (the card offers the block; the analyst confirms in the extension)', () => {
  const tab = (id: number, documentId = 'doc') => ({ id: 'ext', url: 'https://siem.example/', tab: { id, url: 'https://siem.example/' }, frameId: 0, documentId });

  async function setupOpen() {
    const checkSubnet = vi.fn();
    const opened: [string, number][] = [];
    const frameAsks = new FrameAsks();
    frameAsks.noteAsked({ tabId: 1, frameId: 0, documentId: 'doc' }, ['185.220.101.7', '2001:db8::42']);
    frameAsks.noteAsked({ tabId: 2, frameId: 0, documentId: 'doc' }, ['185.220.101.7']);
    const { handlers } = createSubnetHandlers({
      service: { checkSubnet },
      frameAsks,
      tabInFront: async (id) => id === 1,
      openPage: async (path, opener) => void opened.push([path, opener]),
      openRate: new DetailRate({ clock: createManualClock(), burst: 3, refillMs: 20_000, label: 'subnet checks opened' }),
    });
    return { route: createRouter(handlers, EXT), opened, checkSubnet };
  }
  const open = (route: ReturnType<typeof createRouter>, cidr: string, sender: object) =>
    route({ type: 'cs:open-subnet-check', payload: { cidr } }, sender as never);

  it('opens the popup page with the block of an IP the frame asked, from the tab in front, and pays nothing', async () => {
    const { route, opened, checkSubnet } = await setupOpen();
    expect(await open(route, '185.220.101.0/24', tab(1))).toEqual({ ok: true, value: { opened: true } });
    expect(await open(route, '2001:db8::/120', tab(1))).toMatchObject({ ok: true });
    expect(opened).toEqual([
      ['/popup.html?tab=1&subnet=185.220.101.0%2F24', 1],
      ['/popup.html?tab=1&subnet=2001%3Adb8%3A%3A%2F120', 1],
    ]);
    expect(checkSubnet).not.toHaveBeenCalled();
    expect(subnetCheckPath(3, '203.0.113.0/24')).toBe('/popup.html?tab=3&subnet=203.0.113.0%2F24');
  });

  it('refuses other blocks, other frames, tabs behind, and more than 3 opens at once', async () => {
    const { route, opened } = await setupOpen();
    const refusals: [string, object, RegExp][] = [
      ['185.220.0.0/16', tab(1), /not the \/24 \(IPv4\) or \/120 \(IPv6\) block/],
      ['185.220.101.7/24', tab(1), /not the \/24/],
      ['185.220.101.0/25', tab(1), /not the \/24/],
      ['45.33.32.0/24', tab(1), /addresses this page showed; type 45\.33\.32\.0\/24 in the popup/],
      ['185.220.101.0/24', tab(1, 'reloaded'), /addresses this page showed/],
      ['185.220.101.0/24', tab(2), /tab in front/],
    ];
    for (const [cidr, sender, message] of refusals) {
      expect(await open(route, cidr, sender)).toMatchObject({ ok: false, error: { kind: 'forbidden', message: expect.stringMatching(message) } });
    }
    expect(opened).toEqual([]);
    for (let i = 0; i < 3; i++) expect(await open(route, '185.220.101.0/24', tab(1))).toMatchObject({ ok: true });
    expect(await open(route, '185.220.101.0/24', tab(1))).toMatchObject({
      ok: false,
      error: { kind: 'rate-limited', message: expect.stringMatching(/Too many subnet checks opened from this tab/) },
    });
    expect(opened).toHaveLength(3);
  });
});
