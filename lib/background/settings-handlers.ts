/**
 * Saving settings from the options page, done here rather than in the page: a save reads the
 * stored settings and the managed policy before it writes (to refuse locked fields and keep the
 * user's own values under a policy), and an options page closed or reloaded during those reads
 * lost the change. A message reaches the worker the moment it is sent, and the worker finishes
 * the save whatever the page does next.
 */
import type { Handlers } from '../message-router';
import { saveSettings } from '../settings';

export type SettingsMessageType = 'ui:save-settings';

export function createSettingsHandlers(save: typeof saveSettings = saveSettings) {
  const handlers: Handlers<SettingsMessageType> = {
    'ui:save-settings': ({ patch }) => save(patch),
  };
  return { handlers };
}
