/**
 * "Use my team's gateway": the gateway's address, then a personal token or "Sign in with your
 * organisation" when the gateway offers it. Signed-in state is visible: who, until when, Sign out.
 */
import { CheckboxField, TextField } from '@/components/fields';
import type { GatewayForm } from '@/lib/ui/options/gateway-form';
import { isLocked, SET_BY_ORGANISATION } from '@/lib/ui/options/managed-locks';
import type { ManagedView } from '@/lib/settings';
import { showBidiControls as visible } from '@/lib/visible-text';

const AUTH_CHOICES = [
  { value: 'sign-in', label: 'Sign in with your organisation' },
  { value: 'token', label: 'Personal token' },
] as const;

const time = (ms: number) => new Date(ms).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' });

function SignIn({ form }: { form: GatewayForm }) {
  const state = form.state.value;
  const info = form.info.value;
  const busy = form.phase.value !== 'idle';
  if (!form.savedMatches.value) return <p class="muted">Save the gateway first, then sign in.</p>;
  if (state.signedIn && state.gatewayUrl === form.stored.value?.gatewayUrl) {
    return (
      <div class="notice notice-ok" role="status">
        <p class="notice-title">Signed in as {visible(state.analyst ?? '')}</p>
        <p>
          Session renewed automatically; this one ends at {time(state.expiresAt ?? 0)}. Your sign-in is kept in this browser
          only, out of reach of web pages.
        </p>
        <button type="button" class="btn" disabled={busy} onClick={() => void form.signOut()}>
          Sign out
        </button>
      </div>
    );
  }
  if (info && !info.signIn) {
    return <p class="field-error">This gateway has no sign-in with the organisation. Ask your SOC lead for a personal token.</p>;
  }
  return (
    <div class="row-buttons">
      <button type="button" class="btn btn-primary" disabled={busy || !info} aria-busy={form.phase.value === 'signing-in'} onClick={() => void form.signIn()}>
        Sign in with your organisation
      </button>
      <span class="help">
        {form.phase.value === 'signing-in'
          ? "Finish signing in in the window that opened."
          : info?.issuer
            ? `Opens your organisation's sign-in page (${visible(info.issuer)}).`
            : "Opens your organisation's sign-in page."}
      </span>
    </div>
  );
}

export function GatewaySection({ form, managed }: { form: GatewayForm; managed: ManagedView }) {
  const errors = form.errors.value;
  const urlLocked = isLocked(managed, 'gatewayUrl');
  const authLocked = isLocked(managed, 'gatewayAuth');
  const busy = form.phase.value === 'saving';
  const on = form.enabled.value;
  const outcome = form.outcome.value;
  return (
    <section class="panel" aria-labelledby="gateway-heading">
      <h2 id="gateway-heading">Team gateway</h2>
      <form
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          void form.save();
        }}
      >
        <CheckboxField
          id="gateway-enabled"
          label="Use my team's gateway"
          checked={on}
          disabled={urlLocked}
          help={
            urlLocked
              ? `${SET_BY_ORGANISATION} Lookups go through your team's gateway.`
              : "Your SOC's gateway holds the organisation's API key and shares each answer with the team. The API settings above are then not used."
          }
          onChange={(checked) => (form.enabled.value = checked)}
        />
        {on && (
          <>
            <TextField
              id="gateway-url"
              label="Gateway address"
              type="url"
              inputMode="url"
              value={form.url.value}
              error={errors.url}
              help={urlLocked ? SET_BY_ORGANISATION : 'For example https://ipl-gateway.example.org (your SOC lead has it).'}
              disabled={urlLocked}
              onInput={(v) => (form.url.value = v)}
            />
            <fieldset class="choice-group">
              <legend>How you sign in to the gateway</legend>
              {authLocked && <p class="managed-value">{SET_BY_ORGANISATION} Your organisation requires sign-in.</p>}
              {AUTH_CHOICES.map((c) => (
                <div key={c.value} class="field field-check">
                  <input
                    id={`gateway-auth-${c.value}`}
                    type="radio"
                    name="gateway-auth"
                    value={c.value}
                    checked={form.auth.value === c.value}
                    disabled={authLocked}
                    onChange={() => (form.auth.value = c.value)}
                  />
                  <div>
                    <label for={`gateway-auth-${c.value}`}>{c.label}</label>
                  </div>
                </div>
              ))}
            </fieldset>
            {form.auth.value === 'token' && (
              <TextField
                id="gateway-token"
                label="Personal gateway token"
                type="password"
                value={form.token.value}
                error={errors.token}
                help="Given by your SOC lead. Kept in this browser only, never synced, never sent to pages."
                onInput={(v) => (form.token.value = v)}
              />
            )}
          </>
        )}
        {!(urlLocked && authLocked && form.auth.value === 'sign-in') && (
          <div class="row-buttons">
            <button type="submit" class="btn btn-primary" disabled={busy} aria-busy={busy}>
              Save gateway
            </button>
          </div>
        )}
        {form.dirty.value && !busy && <p class="muted">You have unsaved changes.</p>}
      </form>
      {on && form.auth.value === 'sign-in' && <SignIn form={form} />}
      <div aria-live="polite">
        {outcome && (
          <p class={outcome.ok ? 'muted' : 'field-error'} role={outcome.ok ? 'status' : 'alert'}>
            {visible(outcome.text)}
          </p>
        )}
      </div>
    </section>
  );
}
