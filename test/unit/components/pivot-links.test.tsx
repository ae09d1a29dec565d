// @vitest-environment happy-dom
import { signal } from '@preact/signals';
import { describe, expect, it } from 'vitest';
import { IpList } from '@/components/ip-list';
import { StoredPivots } from '@/components/pivot-links';
import { DEFAULT_PIVOTS, type Pivot } from '@/lib/pivots';
import { DEFAULT_THRESHOLDS } from '@/lib/severity';
import { createDetailsStore } from '@/lib/ui/popup/details-store';
import { click, mount } from '../ui/dom';
import { createFakeServices } from '../ui/fake-services';
import { found } from '../ui/samples';

describe('popup rows: open in', () => {
  it('an opened row offers each enabled service as a new-tab link with the encoded address, following changes', async () => {
    const s = createFakeServices();
    const settings = signal<{ pivots: Pivot[] } | null>(null);
    const rows = [{ ip: '2a0b:4140:ddd::1', count: 1, result: found('2a0b:4140:ddd::1') }];
    const root = await mount(
      <StoredPivots settings={settings}>
        <IpList rows={rows} thresholds={DEFAULT_THRESHOLDS} details={createDetailsStore(s)} caption="IPs" source="x" fileLabel="x" now={0} />
      </StoredPivots>,
      s,
    );
    await click(root.querySelector<HTMLButtonElement>('.ip-button')!);
    expect(root.querySelector('.pivot-links')).toBeNull();
    settings.value = { pivots: DEFAULT_PIVOTS.map((p) => ({ ...p, enabled: p.id !== 'censys' })) };
    await new Promise((r) => setTimeout(r, 0));
    const links = [...root.querySelectorAll<HTMLAnchorElement>('.pivot-links a')];
    expect(links.map((a) => a.textContent)).toEqual(['Shodan', 'VirusTotal', 'AbuseIPDB', 'GreyNoise', 'ipinfo']);
    expect(links[0]!.getAttribute('href')).toBe('https://www.shodan.io/host/2a0b%3A4140%3Addd%3A%3A1');
    for (const a of links) {
      expect(a.target).toBe('_blank');
      expect(a.rel).toBe('noopener noreferrer');
    }
    expect(root.querySelector('.pivot-links')!.getAttribute('aria-label')).toBe('Open 2a0b:4140:ddd::1 in');
  });
});
