/**
 * API settings: base URL, key (masked, show/hide), header mode; "Save" stores and verifies
 * with the free /account call; "Test key" calls test-key (1 request).
 */
import { ErrorNotice } from '@/components/error-notice';
import { CheckboxField, TextField } from '@/components/fields';
import type { AuthHeaderMode } from '@/lib/api/types';
import { accountLines, testKeyLines, type InfoLine } from '@/lib/ui/options/account-view';
import type { ApiForm } from '@/lib/ui/options/api-form';
import { isLocked, lockedHelp, SET_BY_ORGANISATION } from '@/lib/ui/options/managed-locks';
import type { ManagedView } from '@/lib/settings';
import { showBidiControls as visible } from '@/lib/visible-text';

function Lines({ lines }: { lines: InfoLine[] }) {
  return (
    <dl class="info-lines">
      {lines.map((l) => (
        <div key={l.label} class="info-line">
          <dt>{l.label}</dt>
          <dd>{visible(l.value)}</dd>
        </div>
      ))}
    </dl>
  );
}

function Outcome({ form }: { form: ApiForm }) {
  const o = form.outcome.value;
  const phase = form.phase.value;
  if (phase === 'saving') return <p role="status">Saving…</p>;
  if (phase === 'verifying') return <p role="status">Saved. Verifying the key…</p>;
  if (phase === 'testing') return <p role="status">Testing the key (uses 1 request)…</p>;
  if (!o) return null;
  switch (o.kind) {
    case 'verified':
      return (
        <div class="notice notice-ok" role="status">
          <p class="notice-title">Saved. Key verified: {visible(o.account.key.name || '(unnamed key)')}</p>
          <Lines lines={accountLines(o.account)} />
          <p class="muted">Checked with the free /account call: it used no quota.</p>
        </div>
      );
    case 'tested':
      return (
        <div class="notice notice-ok" role="status">
          <p class="notice-title">
            {o.result.success ? 'Key works' : 'The server did not confirm the key'}: {o.result.key.name || '(unnamed key)'}
          </p>
          <Lines lines={testKeyLines(o.result)} />
          <p class="muted">This test used 1 request of the key's quota.</p>
        </div>
      );
    case 'saved-no-key':
      return (
        <div class="notice notice-warn" role="status">
          <p class="notice-title">Saved without an API key</p>
          <p>Nothing is looked up until you add a key.</p>
        </div>
      );
    case 'invalid':
      return (
        <p class="field-error" role="alert">
          Nothing was saved: fix the fields marked above.
        </p>
      );
    case 'permission-denied':
      return (
        <div class="notice notice-error" role="alert">
          <p class="notice-title">Access to {o.origin} was not granted</p>
          <p>Nothing was saved: without that permission the extension cannot reach the API there.</p>
        </div>
      );
    case 'error':
      return (
        <ErrorNotice
          error={o.error}
          context={o.during === 'verify' ? 'Saved, but the key could not be verified' : o.during === 'test' ? 'Test failed' : 'Not saved'}
          actions={{ retry: () => void (o.during === 'test' ? form.test() : form.save()) }}
        />
      );
  }
}

/** A remote http:// address: the key would cross the network readable by anyone on the path. */
function ClearTextWarning({ form, error }: { form: ApiForm; error: string | undefined }) {
  return (
    <div class="notice notice-warn clear-text" role="group" aria-labelledby="clear-text-badge">
      <p>
        <span id="clear-text-badge" class="badge badge-warn">
          Unencrypted
        </span>{' '}
        This address uses http:// to another computer: the API key and the IPs you look up travel unencrypted, readable
        by anyone on the network path. Use https:// unless this is a trusted internal proxy.
      </p>
      <CheckboxField
        id="clear-text-consent"
        label="I understand the key travels unencrypted"
        checked={form.clearTextConsent.value}
        onChange={(agreed) => form.setClearTextConsent(agreed)}
      />
      {error && <p class="field-error">{error}</p>}
    </div>
  );
}

/** A key from the organisation is never shown, not even masked: the background alone reads it. */
function ManagedKey({ managed }: { managed: ManagedView }) {
  return (
    <div class="field">
      <span class="field-label">API key</span>
      <p class="managed-value">
        {SET_BY_ORGANISATION}{' '}
        {managed.proxyAddsKey
          ? "Your organisation's proxy adds the key: this browser keeps and sends none."
          : 'Only the extension\'s background uses it; it is not shown here.'}
      </p>
    </div>
  );
}

export function ApiSection({ form, managed }: { form: ApiForm; managed: ManagedView }) {
  const errors = form.errors.value;
  const urlLocked = isLocked(managed, 'apiBaseUrl');
  const headerLocked = isLocked(managed, 'authHeader');
  const keyLocked = isLocked(managed, 'apiKey');
  const allLocked = urlLocked && headerLocked && keyLocked;
  const busy = form.phase.value !== 'idle';
  const show = form.showKey.value;
  return (
    <section class="panel" aria-labelledby="api-heading">
      <h2 id="api-heading">API</h2>
      <form
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          void form.save();
        }}
      >
        <TextField
          id="api-base-url"
          label="API base URL"
          type="url"
          inputMode="url"
          value={form.apiBaseUrl.value}
          error={errors.apiBaseUrl}
          help={lockedHelp(
            managed,
            'apiBaseUrl',
            'The public service is https://ipswamp.com/api/v1. A proxy or self-hosted server that follows the same API works too.',
          )}
          disabled={urlLocked}
          onInput={(v) => (form.apiBaseUrl.value = v)}
        />
        {form.sendsInClear.value && <ClearTextWarning form={form} error={errors.clearText} />}
        {managed.keyManaged || managed.proxyAddsKey ? (
          <ManagedKey managed={managed} />
        ) : (
          <TextField
            id="api-key"
            label="API key"
            type={show ? 'text' : 'password'}
            value={form.apiKey.value}
            error={errors.apiKey}
            help={lockedHelp(
              managed,
              'apiKey',
              'From API Settings in your account dashboard. Kept in this browser only, never synced, never sent to pages.',
            )}
            disabled={keyLocked}
            onInput={(v) => (form.apiKey.value = v)}
            suffix={
              <button
                type="button"
                class="btn"
                aria-pressed={show}
                aria-controls="api-key"
                onClick={() => (form.showKey.value = !show)}
              >
                {show ? 'Hide key' : 'Show key'}
              </button>
            }
          />
        )}
        <div class="field">
          <label for="auth-header">Header mode</label>
          <div class="field-control">
            <select
              id="auth-header"
              value={form.authHeader.value}
              disabled={headerLocked}
              aria-describedby="auth-header-help"
              onChange={(e) => (form.authHeader.value = e.currentTarget.value as AuthHeaderMode)}
            >
              <option value="authorization">Authorization: Bearer &lt;key&gt;</option>
              <option value="x-api-key">X-API-Key: &lt;key&gt;</option>
            </select>
          </div>
          <p id="auth-header-help" class="help">
            {headerLocked ? `${SET_BY_ORGANISATION} ` : ''}Which header carries the key. The service accepts both; some proxies pass only one.
          </p>
        </div>
        <div class="row-buttons">
          {!allLocked && (
            <button type="submit" class="btn btn-primary" disabled={busy} aria-busy={busy}>
              Save
            </button>
          )}
          <button type="button" class="btn" disabled={busy} aria-describedby="test-key-cost" onClick={() => void form.test()}>
            Test key
          </button>
          <span id="test-key-cost" class="help">
            "Test key" uses 1 request of your quota. "Save" checks the key for free.
          </span>
        </div>
        {form.dirty.value && !busy && <p class="muted">You have unsaved changes.</p>}
      </form>
      <div aria-live="polite">
        <Outcome form={form} />
      </div>
    </section>
  );
}
