/**
 * The display settings for content scripts, which never read storage themselves (it holds the
 * API key): `cs:get-display-settings` answers a starting script, and every change to those
 * settings is pushed to every tab as `tab:display-settings`, so options page edits apply live.
 * Values are read through getSetting(), so an invalid stored value reaches pages as its default.
 *
 * A starting script does not wait for the organisation's policy longer than POLICY_WAIT_MS:
 * Chromium answers the session's first `storage.managed.get()` only ~3 s after the browser
 * starts (measured 1.6-2.9 s, then 0-1 ms: docs/page-performance.md), and every page scanned
 * then (restored tabs, a scan right after start) showed no mark until it came. Such a script is
 * answered with the user's own values, and the policy's are pushed to every tab when they
 * differ. Nothing is looked up on those values: the lookups wait for the policy in the lookup
 * service (an organisation may turn automatic lookups or private addresses off).
 */
import { sendToEveryTab } from '../message-client';
import type { Handlers } from '../message-router';
import type { DisplaySettings } from '../protocol';
import { getSettingsOf, NO_POLICY, readManagedPolicy, watchSettings, type ManagedPolicy, type SettingKey } from '../settings';

export type DisplayMessageType = 'cs:get-display-settings';

/** The settings the display values come from (sendPrivate is a field of lookupPolicy). */
const DISPLAY_SOURCES: readonly SettingKey[] = ['thresholds', 'markStyle', 'lookupPolicy'];

/** How long a starting script's answer waits for the organisation's policy (see the file comment). */
export const POLICY_WAIT_MS = 200;

/**
 * The three values as stored now (invalid ones read as their defaults), in one storage read,
 * under `policy` when given (else the policy read now).
 */
export async function storedDisplaySettings(policy?: ManagedPolicy): Promise<DisplaySettings> {
  const { thresholds, markStyle, lookupPolicy } = await getSettingsOf(['thresholds', 'markStyle', 'lookupPolicy'], policy);
  return { thresholds, markStyle, sendPrivate: lookupPolicy.sendPrivate };
}

const sameSettings = (a: DisplaySettings, b: DisplaySettings) => JSON.stringify(a) === JSON.stringify(b);

/** The policy, or null if it has not come within `ms`. */
function policyWithin(policy: Promise<ManagedPolicy>, ms: number): Promise<ManagedPolicy | null> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), ms);
  });
  return Promise.race([policy, late]).finally(() => clearTimeout(timer));
}

export interface DisplayHandlerDeps {
  watch?: (callback: (changed: SettingKey[]) => void) => void;
  push?: (settings: DisplaySettings) => Promise<void>;
  /** The organisation's policy (storage.managed); tests pass one that is late. */
  readPolicy?: () => Promise<ManagedPolicy>;
  policyWaitMs?: number;
}

export function createDisplayHandlers(deps: DisplayHandlerDeps = {}) {
  const watch = deps.watch ?? watchSettings;
  const push = deps.push ?? ((settings) => sendToEveryTab('tab:display-settings', settings));
  const readPolicy = deps.readPolicy ?? (() => readManagedPolicy());
  const policyWaitMs = deps.policyWaitMs ?? POLICY_WAIT_MS;

  /**
   * Scripts answered without the policy: when it comes, every tab gets its values if they differ.
   * One correction for all the scripts that started before it (restored tabs start together: one
   * push each would send tabs × tabs messages). A setting changed meanwhile is pushed by the watcher.
   */
  let correcting: Promise<void> | null = null;
  function correctWhenPolicyComes(policy: Promise<ManagedPolicy>, answered: DisplaySettings): void {
    correcting ??= policy
      .then((p) => storedDisplaySettings(p))
      .then((settings) => (sameSettings(settings, answered) ? undefined : push(settings)))
      .catch(() => undefined)
      .finally(() => {
        correcting = null;
      });
  }

  const handlers: Handlers<DisplayMessageType> = {
    'cs:get-display-settings': async () => {
      const policy = readPolicy();
      const inTime = await policyWithin(policy, policyWaitMs);
      if (inTime) return storedDisplaySettings(inTime);
      const answered = await storedDisplaySettings(NO_POLICY);
      correctWhenPolicyComes(policy, answered);
      return answered;
    },
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
