import { describe, expect, it } from 'vitest';
import { parseDisplaySettings } from '@/lib/page/messages/display-settings';
import { DEFAULT_DISPLAY } from '@/lib/protocol';
import { messageSchemas } from '@/lib/messaging';
import { DEFAULT_SETTINGS } from '@/lib/settings';

const valid = { thresholds: { critical: 90, high: 70, medium: 40, low: 5 }, markStyle: 'background', sendPrivate: true };

describe('display settings for the content script', () => {
  it('defaults to what lib/settings.ts defaults to', () => {
    expect(DEFAULT_DISPLAY).toEqual({
      thresholds: DEFAULT_SETTINGS.thresholds,
      markStyle: DEFAULT_SETTINGS.markStyle,
      sendPrivate: DEFAULT_SETTINGS.lookupPolicy.sendPrivate,
    });
  });

  it('accepts and rejects exactly what the tab:display-settings schema does', () => {
    const cases: unknown[] = [
      valid,
      DEFAULT_DISPLAY,
      { ...valid, thresholds: { ...valid.thresholds, extra: 1 } },
      { ...valid, thresholds: { critical: 50, high: 50, medium: 20, low: 0 } },
      { ...valid, thresholds: { critical: 101, high: 50, medium: 20, low: 0 } },
      { ...valid, thresholds: { critical: 80, high: 50, medium: 20, low: -1 } },
      { ...valid, thresholds: { critical: '80', high: 50, medium: 20, low: 0 } },
      { ...valid, thresholds: { critical: Infinity, high: 50, medium: 20, low: 0 } },
      { ...valid, thresholds: { critical: NaN, high: 50, medium: 20, low: 0 } },
      { ...valid, thresholds: null },
      { ...valid, thresholds: [80, 50, 25, 0] },
      { ...valid, markStyle: 'blink' },
      { ...valid, sendPrivate: 'yes' },
      { thresholds: valid.thresholds, markStyle: 'underline' },
      { ...valid, apiKey: 'k' },
      [],
      null,
      'settings',
    ];
    for (const raw of cases) {
      const mine = parseDisplaySettings(raw);
      const schema = messageSchemas['tab:display-settings'].safeParse(raw);
      expect(mine !== null, JSON.stringify(raw)).toBe(schema.success);
      if (mine && schema.success) expect(mine).toEqual(schema.data);
    }
  });
});
