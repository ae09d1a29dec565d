/**
 * Options' "Use my team's gateway": its address, then a personal token or the organisation
 * sign-in (run by the worker: lib/background/gateway-sign-in.ts). The page is told who is
 * signed in and until when, never a token.
 */
import { computed, signal } from '@preact/signals';
import { apiKeySchema, gatewayUrlSchema, type GatewayAuth, type GatewayInfo, type Settings, type SignInState } from '../../settings';
import type { UiServices } from '../shared/services';
import { originPatternForUrl } from '../shared/site-pattern';

export type GatewayFields = Pick<Settings, 'gatewayUrl' | 'gatewayAuth' | 'gatewayToken'>;
export type GatewayPhase = 'idle' | 'saving' | 'checking' | 'signing-in' | 'signing-out';

export function createGatewayForm(services: UiServices) {
  const enabled = signal(false);
  const url = signal('');
  const auth = signal<GatewayAuth>('token');
  const token = signal('');
  const stored = signal<GatewayFields | null>(null);
  const info = signal<GatewayInfo | null>(null);
  const state = signal<SignInState>({ signedIn: false });
  const phase = signal<GatewayPhase>('idle');
  /** The last action's outcome, in words. */
  const outcome = signal<{ ok: boolean; text: string } | null>(null);

  const errors = computed(() => {
    const out: { url?: string; token?: string } = {};
    if (!enabled.value) return out;
    const u = gatewayUrlSchema.safeParse(url.value);
    if (!u.success) out.url = u.error.issues[0]?.message;
    else if (!u.data) out.url = "Enter your team's gateway address.";
    if (auth.value === 'token') {
      const t = apiKeySchema.safeParse(token.value);
      if (!t.success) out.token = t.error.issues[0]?.message;
    }
    return out;
  });
  /** The gateway in force is the one on screen: sign-in acts on what is saved. */
  const savedMatches = computed(() => {
    const s = stored.value;
    if (!s || !enabled.value) return false;
    const typed = gatewayUrlSchema.safeParse(url.value);
    return typed.success && typed.data === s.gatewayUrl && s.gatewayAuth === auth.value;
  });

  /** Fields the analyst has changed and not saved. */
  const dirty = computed(() => {
    const s = stored.value;
    if (!s) return false;
    return enabled.value !== (s.gatewayUrl !== '') || (enabled.value && (url.value.trim() !== s.gatewayUrl || auth.value !== s.gatewayAuth || token.value.trim() !== s.gatewayToken));
  });

  /** The settings as stored; typed, unsaved fields are kept (a session refresh also lands here). */
  function load(settings: Settings, first = false): void {
    const keepTyped = !first && dirty.value;
    stored.value = { gatewayUrl: settings.gatewayUrl, gatewayAuth: settings.gatewayAuth, gatewayToken: settings.gatewayToken };
    void loadState();
    if (keepTyped) return;
    enabled.value = settings.gatewayUrl !== '';
    url.value = settings.gatewayUrl;
    auth.value = settings.gatewayAuth;
    token.value = settings.gatewayToken;
    if (settings.gatewayUrl && (first || info.value === null)) void checkInfo(settings.gatewayUrl);
  }

  async function loadState(): Promise<void> {
    const reply = await services.send('ui:get-sign-in', {});
    if (reply.ok) state.value = reply.value;
  }

  async function checkInfo(gatewayUrl: string): Promise<void> {
    const reply = await services.send('ui:gateway-info', { gatewayUrl });
    info.value = reply.ok ? reply.value : null;
    if (!reply.ok) outcome.value = { ok: false, text: reply.error.message };
  }

  /** Synchronous up to the permission request (the browser needs the click). */
  function save(): Promise<void> | void {
    if (errors.value.url || errors.value.token) {
      outcome.value = { ok: false, text: 'Nothing was saved: fix the fields marked above.' };
      return;
    }
    const fields: GatewayFields = enabled.value
      ? { gatewayUrl: gatewayUrlSchema.parse(url.value), gatewayAuth: auth.value, gatewayToken: auth.value === 'token' ? apiKeySchema.parse(token.value) : stored.value?.gatewayToken ?? '' }
      : { gatewayUrl: '', gatewayAuth: auth.value, gatewayToken: stored.value?.gatewayToken ?? '' };
    const origin = fields.gatewayUrl ? originPatternForUrl(fields.gatewayUrl) : null;
    const granted = origin ? services.permissions.request([origin]).catch(() => false) : Promise.resolve(true);
    phase.value = 'saving';
    outcome.value = null;
    return (async () => {
      try {
        if (!(await granted)) {
          outcome.value = { ok: false, text: `Nothing was saved: access to ${origin} was not granted, so the extension could not reach the gateway.` };
          return;
        }
        const next = await services.settings.save(fields);
        stored.value = { gatewayUrl: next.gatewayUrl, gatewayAuth: next.gatewayAuth, gatewayToken: next.gatewayToken };
        url.value = next.gatewayUrl;
        outcome.value = { ok: true, text: next.gatewayUrl ? "Saved. Lookups go through your team's gateway." : 'Saved. Lookups go to the API directly.' };
        phase.value = 'checking';
        if (next.gatewayUrl) await checkInfo(next.gatewayUrl);
        await loadState();
      } catch (error) {
        outcome.value = { ok: false, text: `Not saved: ${error instanceof Error ? error.message : String(error)}` };
      } finally {
        phase.value = 'idle';
      }
    })();
  }

  async function signIn(): Promise<void> {
    phase.value = 'signing-in';
    outcome.value = null;
    try {
      const reply = await services.send('ui:sign-in', {});
      if (reply.ok) {
        // The signed-in notice says who, and is itself a status for screen readers.
        state.value = reply.value;
      } else outcome.value = { ok: false, text: `Not signed in: ${reply.error.message}` };
    } finally {
      phase.value = 'idle';
    }
  }

  async function signOut(): Promise<void> {
    phase.value = 'signing-out';
    try {
      const reply = await services.send('ui:sign-out', {});
      state.value = reply.ok ? reply.value : { signedIn: false };
      outcome.value = { ok: true, text: 'Signed out. Lookups through the gateway stop until you sign in again.' };
    } finally {
      phase.value = 'idle';
    }
  }

  return { enabled, url, auth, token, stored, info, state, phase, outcome, errors, savedMatches, dirty, load, loadState, save, signIn, signOut };
}

export type GatewayForm = ReturnType<typeof createGatewayForm>;
