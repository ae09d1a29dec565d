import { describe, expect, it, vi } from 'vitest';
import type { LookupResult } from '../../../../lib/lookup/types';
import { refreshShownResults } from '../../../../lib/page/lookups/refresh-results';

describe('refreshShownResults', () => {
  it('asks only the IPs the page shows, and keeps answers, not rule refusals', async () => {
    const put = vi.fn();
    const page = { countOf: (ip: string) => (ip === '1.1.1.1' || ip === '2.2.2.2' ? 1 : 0), putResult: put };
    const results: LookupResult[] = [
      { ip: '1.1.1.1', status: 'not-found', fetchedAt: 1 },
      { ip: '2.2.2.2', status: 'skipped', reason: 'page-cap' },
    ];
    const send = vi.fn(async () => ({ ok: true as const, value: results }));
    expect(await refreshShownResults(['1.1.1.1', '2.2.2.2', '3.3.3.3', '1.1.1.1'], page, send)).toBe(1);
    expect(send).toHaveBeenCalledWith(['1.1.1.1', '2.2.2.2'], 'visible');
    expect(put).toHaveBeenCalledTimes(1);
    expect(put).toHaveBeenCalledWith(results[0]);
  });

  it('sends nothing when none is shown, and changes nothing on a failed ask', async () => {
    const put = vi.fn();
    const send = vi.fn(async () => ({ ok: false as const, error: { kind: 'internal' as const, message: 'x' } }));
    expect(await refreshShownResults(['9.9.9.9'], { countOf: () => 0, putResult: put }, send)).toBe(0);
    expect(send).not.toHaveBeenCalled();
    expect(await refreshShownResults(['9.9.9.9'], { countOf: () => 1, putResult: put }, send)).toBe(0);
    expect(put).not.toHaveBeenCalled();
  });
});
