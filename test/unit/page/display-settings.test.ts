import { describe, expect, it } from 'vitest';
import { DEFAULT_DISPLAY, DISPLAY_KEYS, parseDisplaySettings } from '@/lib/page/display-settings';
import { DEFAULT_SETTINGS, settingItems, thresholdsSchema } from '@/lib/settings';

describe('display settings for the content script', () => {
  it('reads the same storage keys and defaults as lib/settings.ts', () => {
    expect(settingItems.thresholds.key).toBe(`local:${DISPLAY_KEYS.thresholds}`);
    expect(settingItems.markStyle.key).toBe(`local:${DISPLAY_KEYS.markStyle}`);
    expect(settingItems.lookupPolicy.key).toBe(`local:${DISPLAY_KEYS.lookupPolicy}`);
    expect(DEFAULT_DISPLAY).toEqual({
      thresholds: DEFAULT_SETTINGS.thresholds,
      markStyle: DEFAULT_SETTINGS.markStyle,
      sendPrivate: DEFAULT_SETTINGS.lookupPolicy.sendPrivate,
    });
  });

  it('accepts valid values and only the keys present', () => {
    const t = { critical: 90, high: 70, medium: 40, low: 5 };
    expect(parseDisplaySettings({ thresholds: t })).toEqual({ thresholds: t });
    expect(parseDisplaySettings({ markStyle: 'background', lookupPolicy: { sendPrivate: true } })).toEqual({
      markStyle: 'background',
      sendPrivate: true,
    });
  });

  it('falls back to defaults exactly where the zod schema would reject', () => {
    const bad = [
      { critical: 50, high: 50, medium: 20, low: 0 },
      { critical: 101, high: 50, medium: 20, low: 0 },
      { critical: '80', high: 50, medium: 20, low: 0 },
      null,
    ];
    for (const t of bad) {
      expect(thresholdsSchema.safeParse(t).success).toBe(false);
      expect(parseDisplaySettings({ thresholds: t }).thresholds).toEqual(DEFAULT_DISPLAY.thresholds);
    }
    expect(parseDisplaySettings({ markStyle: 'blink' }).markStyle).toBe('underline');
    expect(parseDisplaySettings({ lookupPolicy: undefined }).sendPrivate).toBe(false);
  });
});
