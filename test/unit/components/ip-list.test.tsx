// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { IpList, PAGE_SIZE } from '@/components/ip-list';
import { PauseNotice } from '@/components/pause-notice';
import { DEFAULT_THRESHOLDS } from '@/lib/severity';
import { createDetailsStore } from '@/lib/ui/popup/details-store';
import { localStatusMemo } from '@/lib/ui/shared/status-memo';
import { button, click, mount, text } from '../ui/dom';
import { createFakeServices } from '../ui/fake-services';
import { found, status } from '../ui/samples';

describe('ip list', () => {
  it('draws the riskiest rows first and the rest on request; export covers every row', async () => {
    const s = createFakeServices();
    const rows = Array.from({ length: PAGE_SIZE + 30 }, (_, i) => {
      const ip = `11.0.${i >> 8}.${i & 255}`;
      return { ip, count: 1, result: found(ip, { score: i % 100, threatLevel: null }) };
    });
    const root = await mount(
      <IpList rows={rows} thresholds={DEFAULT_THRESHOLDS} details={createDetailsStore(s)} caption="IPs" source="x" fileLabel="x" now={0} />,
      s,
    );
    expect(root.querySelectorAll('tbody tr.row')).toHaveLength(PAGE_SIZE);
    expect(root.querySelector('tbody .ip-button')?.textContent).toBe('11.0.0.79'); // the highest score (79)
    await click(button(root, 'Download CSV'));
    expect(s.files[0]!.text.trim().split('\r\n')).toHaveLength(PAGE_SIZE + 31);
    await click(button(root, `Show all ${PAGE_SIZE + 30} IPs`));
    expect(root.querySelectorAll('tbody tr.row')).toHaveLength(PAGE_SIZE + 30);
  });
});

describe('pause notice', () => {
  it('says when lookups resume after a 429, and nothing when not paused', async () => {
    const s = createFakeServices();
    const now = Date.UTC(2025, 0, 15, 12, 0, 0);
    const paused = status({ pausedUntil: now + 120_000, lastError: { kind: 'rate-limited', message: 'Rate limit exceeded', status: 429, at: now } });
    const root = await mount(<PauseNotice status={paused} now={now} />, s);
    expect(text(root)).toContain('Too many requests: lookups are paused');
    expect(text(root)).toContain('Lookups resume in 2 minutes (2025-01-15 12:02:00 UTC)');
    const idle = await mount(<PauseNotice status={status()} now={now} />, s);
    expect(idle.textContent).toBe('');
  });
});

describe('status memo', () => {
  it('recalls the last status without its pause, and survives junk', () => {
    const data = new Map<string, string>();
    const storage = { getItem: (k: string) => data.get(k) ?? null, setItem: (k: string, v: string) => void data.set(k, v) };
    const memo = localStatusMemo(storage);
    expect(memo.recall()).toBeNull();
    memo.remember(status({ pausedUntil: 123, queueLength: 4 }));
    expect(memo.recall()).toMatchObject({ pausedUntil: null, queueLength: 0, cacheSize: 42, quota: { used: 120 } });
    data.set('iplens:last-status', '{broken');
    expect(memo.recall()).toBeNull();
    data.set('iplens:last-status', '{"quota":null}');
    expect(memo.recall()).toBeNull();
  });
});
