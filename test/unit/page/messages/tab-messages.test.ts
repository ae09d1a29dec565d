import { describe, expect, it } from 'vitest';
import { parseTabMessage } from '@/lib/page/messages/tab-messages';
import { parseEnvelope } from '@/lib/messaging';

const cases: unknown[] = [
  { type: 'tab:get-page-ips', payload: {} },
  { type: 'tab:get-page-ips' },
  { type: 'tab:get-page-ips', payload: { x: 1 } },
  { type: 'tab:show-lookup', payload: { text: 'see 1.2.3.4' } },
  { type: 'tab:show-lookup', payload: { text: 42 } },
  { type: 'tab:show-lookup', payload: { text: 'x'.repeat(100_001) } },
  { type: 'tab:show-lookup', payload: { text: 'a', extra: true } },
  { type: 'tab:show-lookup', payload: [] },
  { type: 'tab:get-page-ips', payload: {}, sneaky: 1 },
  { type: 'tab:results-stale', payload: {} },
  { type: 'tab:results-stale' },
  { type: 'tab:results-stale', payload: { ips: [] } },
  { type: 'tab:results-stale', payload: 'x' },
  { type: 'tab:lookups-recovered', payload: {} },
  { type: 'tab:lookups-recovered', payload: { ips: [] } },
  { type: 'tab:display-settings', payload: { thresholds: { critical: 90, high: 70, medium: 40, low: 5 }, markStyle: 'background', sendPrivate: true } },
  { type: 'tab:display-settings', payload: { thresholds: { critical: 80, high: 50, medium: 25, low: 0 }, markStyle: 'underline', sendPrivate: false } },
  { type: 'tab:display-settings', payload: { thresholds: { critical: 80, high: 90, medium: 25, low: 0 }, markStyle: 'underline', sendPrivate: false } },
  { type: 'tab:display-settings', payload: { thresholds: { critical: 80, high: 50, medium: 25, low: 0 }, markStyle: 'bold', sendPrivate: false } },
  { type: 'tab:display-settings', payload: { thresholds: { critical: 80, high: 50, medium: 25, low: 0 }, markStyle: 'underline', sendPrivate: 1 } },
  { type: 'tab:display-settings', payload: { thresholds: { critical: 80, high: 50, medium: 25, low: 0 }, markStyle: 'underline' } },
  { type: 'tab:display-settings', payload: { thresholds: { critical: 80, high: 50, medium: 25, low: 0 }, markStyle: 'underline', sendPrivate: false, apiKey: 'k' } },
  { type: 'tab:display-settings', payload: {} },
  { type: 'tab:display-settings' },
  { type: 'tab:results-updated', payload: { ips: ['185.220.101.1', '2a0b:4140:ddd::1'] } },
  { type: 'tab:results-updated', payload: { ips: [] } },
  { type: 'tab:results-updated', payload: { ips: ['1'] } },
  { type: 'tab:results-updated', payload: { ips: [42] } },
  { type: 'tab:results-updated', payload: { ips: Array.from({ length: 257 }, (_, i) => `10.0.${i >> 8}.${i & 255}`) } },
  { type: 'tab:results-updated', payload: { ips: ['1.2.3.4'], results: [] } },
  { type: 'tab:results-updated', payload: {} },
  { type: 'tab:nope', payload: {} },
];

describe('tab message validation', () => {
  it('accepts and rejects exactly what the protocol schemas do', () => {
    for (const raw of cases) {
      const mine = parseTabMessage(raw);
      const schema = parseEnvelope(raw);
      expect(mine?.ok, JSON.stringify(raw).slice(0, 80)).toBe(schema.ok);
      if (mine?.ok && schema.ok) expect(mine.envelope).toEqual(schema.envelope);
    }
  });

  it('leaves messages that are not tab messages to others', () => {
    expect(parseTabMessage({ type: 'cs:lookup', payload: {} })).toBeNull();
    expect(parseTabMessage('tab:get-page-ips')).toBeNull();
    expect(parseTabMessage(null)).toBeNull();
  });
});
