/**
 * The options page's API section: base URL, key (masked), header mode. "Save" validates all
 * three, asks for the host permission of a new API origin (in the click: a user gesture),
 * stores them together and verifies the key with the free /account call. "Test key" calls
 * test-key, which costs one request.
 */
import { computed, signal } from '@preact/signals';
import type { AuthHeaderMode, AccountInfo, TestKeyResult } from '../../api/types';
import type { ReplyError } from '../../protocol';
import { apiBaseUrlSchema, apiKeySchema, type Settings } from '../../settings';
import { originOf, sendsKeyInClear } from './clear-text-url';
import type { UiServices } from '../shared/services';
import { originPatternForUrl } from '../shared/site-pattern';
import { releaseHostPermission } from '../shared/host-permissions';

export type ApiFields = Pick<Settings, 'apiBaseUrl' | 'apiKey' | 'authHeader'>;

export type ApiOutcome =
  | { kind: 'verified'; account: AccountInfo }
  | { kind: 'tested'; result: TestKeyResult }
  | { kind: 'saved-no-key' }
  | { kind: 'invalid' }
  | { kind: 'permission-denied'; origin: string }
  | { kind: 'error'; during: 'save' | 'verify' | 'test'; error: ReplyError };

export type ApiPhase = 'idle' | 'saving' | 'verifying' | 'testing';

export const CLEAR_TEXT_CONSENT_ERROR =
  'Tick "I understand the key travels unencrypted", or use an https:// address.';

export function validateApiFields(fields: { apiBaseUrl: string; apiKey: string; clearTextConsent?: boolean }): {
  apiBaseUrl?: string;
  apiKey?: string;
  clearText?: string;
} {
  const errors: { apiBaseUrl?: string; apiKey?: string; clearText?: string } = {};
  const url = apiBaseUrlSchema.safeParse(fields.apiBaseUrl);
  if (!url.success) errors.apiBaseUrl = url.error.issues[0]?.message ?? 'Invalid URL.';
  else if (sendsKeyInClear(url.data) && !fields.clearTextConsent) errors.clearText = CLEAR_TEXT_CONSENT_ERROR;
  const key = apiKeySchema.safeParse(fields.apiKey);
  if (!key.success) errors.apiKey = key.error.issues[0]?.message ?? 'Invalid key.';
  return errors;
}

export function createApiForm(services: Pick<UiServices, 'send' | 'settings' | 'permissions'>) {
  const apiBaseUrl = signal('');
  const apiKey = signal('');
  const authHeader = signal<AuthHeaderMode>('authorization');
  const showKey = signal(false);
  /** The organisation supplies the key (or a proxy adds it): none is needed here. */
  const keyManaged = signal(false);
  const stored = signal<ApiFields | null>(null);
  const phase = signal<ApiPhase>('idle');
  const outcome = signal<ApiOutcome | null>(null);
  /**
   * The origin the analyst agreed to send the key to over plain http (a stored one was agreed
   * to when it was saved). Another address needs its own tick.
   */
  const clearTextOrigin = signal<string | null>(null);
  const sendsInClear = computed(() => sendsKeyInClear(apiBaseUrl.value));
  const clearTextConsent = computed(() => clearTextOrigin.value !== null && clearTextOrigin.value === originOf(apiBaseUrl.value));

  const errors = computed(() =>
    validateApiFields({ apiBaseUrl: apiBaseUrl.value, apiKey: apiKey.value, clearTextConsent: clearTextConsent.value }),
  );
  const valid = computed(() => !errors.value.apiBaseUrl && !errors.value.apiKey && !errors.value.clearText);

  function setClearTextConsent(agreed: boolean): void {
    clearTextOrigin.value = agreed ? originOf(apiBaseUrl.value) : null;
  }
  const dirty = computed(() => {
    const s = stored.value;
    return !!s && (s.apiBaseUrl !== apiBaseUrl.value.trim().replace(/\/+$/, '') || s.apiKey !== apiKey.value.trim() || s.authHeader !== authHeader.value);
  });

  function load(settings: ApiFields): void {
    stored.value = { apiBaseUrl: settings.apiBaseUrl, apiKey: settings.apiKey, authHeader: settings.authHeader };
    apiBaseUrl.value = settings.apiBaseUrl;
    if (sendsKeyInClear(settings.apiBaseUrl)) clearTextOrigin.value = originOf(settings.apiBaseUrl);
    apiKey.value = settings.apiKey;
    authHeader.value = settings.authHeader;
  }

  /**
   * After a save: the stored values, and in each field the stored form of what was sent, unless
   * the analyst changed that field while the save was on its way (their newer choice stays on
   * screen, unsaved, for the next Save).
   */
  function loadSaved(settings: ApiFields, sent: { apiBaseUrl: string; apiKey: string; authHeader: AuthHeaderMode }): void {
    stored.value = { apiBaseUrl: settings.apiBaseUrl, apiKey: settings.apiKey, authHeader: settings.authHeader };
    if (apiBaseUrl.value === sent.apiBaseUrl) apiBaseUrl.value = settings.apiBaseUrl;
    if (apiKey.value === sent.apiKey) apiKey.value = settings.apiKey;
    if (authHeader.value === sent.authHeader) authHeader.value = settings.authHeader;
  }

  /**
   * Synchronous up to the permission request, so the browser sees the user's click. Returns
   * the stored fields, or null when nothing was saved (outcome says why).
   */
  function startSave(): Promise<ApiFields | null> | null {
    if (!valid.value) {
      outcome.value = { kind: 'invalid' };
      return null;
    }
    const typed = { apiBaseUrl: apiBaseUrl.value, apiKey: apiKey.value, authHeader: authHeader.value };
    const fields: ApiFields = {
      apiBaseUrl: apiBaseUrlSchema.parse(apiBaseUrl.value),
      apiKey: apiKeySchema.parse(apiKey.value),
      authHeader: authHeader.value,
    };
    const origin = originPatternForUrl(fields.apiBaseUrl);
    // Already-granted origins resolve at once without a prompt (the default API, e2e loopback).
    const granted = origin ? services.permissions.request([origin]).catch(() => false) : Promise.resolve(false);
    phase.value = 'saving';
    outcome.value = null;
    return (async () => {
      if (!(await granted)) {
        outcome.value = { kind: 'permission-denied', origin: origin ?? fields.apiBaseUrl };
        return null;
      }
      try {
        const before = stored.value?.apiBaseUrl ?? null;
        const next = await services.settings.save(fields);
        loadSaved(next, typed);
        const oldOrigin = before ? originPatternForUrl(before) : null;
        if (oldOrigin && oldOrigin !== origin) {
          // The old server needs no access any more, unless a site to scan lies there.
          await releaseHostPermission(services.permissions, oldOrigin, { sitePatterns: next.sitesToScan, apiBaseUrl: next.apiBaseUrl });
        }
        return fields;
      } catch (error) {
        outcome.value = {
          kind: 'error',
          during: 'save',
          error: { kind: 'internal', message: error instanceof Error ? error.message : String(error) },
        };
        return null;
      }
    })();
  }

  /** Once `saving` has stored the fields (nothing if it failed), runs `next`; ends idle either way. */
  function afterSave(saving: Promise<ApiFields | null> | null, next: (fields: ApiFields) => Promise<void> | void): Promise<void> {
    if (!saving) return Promise.resolve();
    return (async () => {
      try {
        const fields = await saving;
        if (fields) await next(fields);
      } finally {
        phase.value = 'idle';
      }
    })();
  }

  /** "Save": store, then verify with the free /account call. Call from the click handler. */
  function save(): Promise<void> {
    return afterSave(startSave(), async (fields) => {
      if (!fields.apiKey && !keyManaged.value) {
        outcome.value = { kind: 'saved-no-key' };
        return;
      }
      phase.value = 'verifying';
      const reply = await services.send('ui:verify-key', {});
      outcome.value = reply.ok
        ? { kind: 'verified', account: reply.value }
        : { kind: 'error', during: 'verify', error: reply.error };
    });
  }

  /** "Test key": saves unsaved changes first (the background tests the stored key). */
  function test(): Promise<void> {
    return afterSave(dirty.value ? startSave() : Promise.resolve(stored.value), async (fields) => {
      if (!fields.apiKey && !keyManaged.value) {
        outcome.value = { kind: 'error', during: 'test', error: { kind: 'missing-key', message: 'No API key is set.' } };
        return;
      }
      phase.value = 'testing';
      outcome.value = null;
      const reply = await services.send('ui:test-key', {});
      outcome.value = reply.ok
        ? { kind: 'tested', result: reply.value }
        : { kind: 'error', during: 'test', error: reply.error };
    });
  }

  return {
    apiBaseUrl,
    apiKey,
    authHeader,
    showKey,
    keyManaged,
    stored,
    phase,
    outcome,
    errors,
    valid,
    dirty,
    sendsInClear,
    clearTextConsent,
    setClearTextConsent,
    load,
    save,
    test,
  };
}
export type ApiForm = ReturnType<typeof createApiForm>;
