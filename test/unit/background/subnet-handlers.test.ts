import { describe, expect, it, vi } from 'vitest';
import { createSubnetHandlers } from '../../../lib/background/subnet-handlers';
import type { CidrBlock } from '../../../lib/ip/cidr-block';
import { createRouter } from '../../../lib/message-router';
import { parseEnvelope } from '../../../lib/messaging';

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
