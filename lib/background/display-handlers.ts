/**
 * The display settings for content scripts, which never read storage themselves (it holds the
 * API key): `cs:get-display-settings` answers a starting script, and every change to those
 * settings is pushed to every tab as `tab:display-settings`, so options page edits apply live.
 * Values are read through getSetting(), so an invalid stored value reaches pages as its default.
 */
import { sendToEveryTab } from '../message-client';
import type { Handlers } from '../message-router';
import type { DisplaySettings } from '../protocol';
import { getSettingsOf, watchSettings, type SettingKey } from '../settings';

export type DisplayMessageType = 'cs:get-display-settings';

/** The settings the display values come from (sendPrivate is a field of lookupPolicy). */
const DISPLAY_SOURCES: readonly SettingKey[] = ['thresholds', 'markStyle', 'lookupPolicy'];

/** The three values as stored now (invalid ones read as their defaults), in one storage read. */
export async function storedDisplaySettings(): Promise<DisplaySettings> {
  const { thresholds, markStyle, lookupPolicy } = await getSettingsOf(['thresholds', 'markStyle', 'lookupPolicy']);
  return { thresholds, markStyle, sendPrivate: lookupPolicy.sendPrivate };
}

export interface DisplayHandlerDeps {
  watch?: (callback: (changed: SettingKey[]) => void) => void;
  push?: (settings: DisplaySettings) => Promise<void>;
}

export function createDisplayHandlers(deps: DisplayHandlerDeps = {}) {
  const watch = deps.watch ?? watchSettings;
  const push = deps.push ?? ((settings) => sendToEveryTab('tab:display-settings', settings));

  const handlers: Handlers<DisplayMessageType> = {
    'cs:get-display-settings': () => storedDisplaySettings(),
  };

  /** Registers the settings watcher (synchronously, like the worker's other listeners). */
  function start(): void {
    watch((changed) => {
      if (!changed.some((key) => DISPLAY_SOURCES.includes(key))) return;
      // All three values, read now: several quick changes each push the latest state.
      void storedDisplaySettings()
        .then(push)
        .catch(() => undefined);
    });
  }

  return { handlers, start };
}
