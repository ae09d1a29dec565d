/**
 * Labelled form fields with their help text and live error, wired with aria-describedby and
 * aria-invalid so screen readers say what is wrong, and tests find them by label.
 */
import type { ComponentChildren } from 'preact';

function describedBy(id: string, help?: ComponentChildren, error?: string | null): string | undefined {
  const ids = [help ? `${id}-help` : '', error ? `${id}-error` : ''].filter(Boolean);
  return ids.length ? ids.join(' ') : undefined;
}

export interface TextFieldProps {
  id: string;
  label: string;
  value: string;
  error?: string | null;
  help?: ComponentChildren;
  type?: 'text' | 'number' | 'url' | 'password';
  inputMode?: 'numeric' | 'decimal' | 'url' | 'text';
  onInput: (value: string) => void;
  /** `change`: blur or Enter. Sections save here. */
  onCommit?: () => void;
  suffix?: ComponentChildren;
  autoComplete?: string;
  /** Locked by the organisation's policy: shown, not editable. */
  disabled?: boolean;
}

export function TextField(props: TextFieldProps) {
  const { id, error, help } = props;
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <div class="field-control">
        <input
          id={id}
          // Preact types each input `type` separately; all of these share the attributes used here.
          type={(props.type ?? 'text') as 'text'}
          inputMode={props.inputMode}
          value={props.value}
          autoComplete={props.autoComplete ?? 'off'}
          disabled={props.disabled}
          spellcheck={false}
          aria-invalid={error ? true : undefined}
          aria-describedby={describedBy(id, help, error)}
          onInput={(e) => props.onInput(e.currentTarget.value)}
          onChange={() => props.onCommit?.()}
        />
        {props.suffix}
      </div>
      {help && (
        <p id={`${id}-help`} class="help">
          {help}
        </p>
      )}
      {error && (
        <p id={`${id}-error`} class="field-error">
          {error}
        </p>
      )}
    </div>
  );
}

export interface CheckboxFieldProps {
  id: string;
  label: string;
  checked: boolean;
  help?: ComponentChildren;
  onChange: (checked: boolean) => void;
  disabled?: boolean;
}

export function CheckboxField({ id, label, checked, help, onChange, disabled }: CheckboxFieldProps) {
  return (
    <div class="field field-check">
      <input
        id={id}
        type="checkbox"
        checked={checked}
        disabled={disabled}
        aria-describedby={help ? `${id}-help` : undefined}
        onChange={(e) => onChange(e.currentTarget.checked)}
      />
      <div>
        <label for={id}>{label}</label>
        {help && (
          <p id={`${id}-help`} class="help">
            {help}
          </p>
        )}
      </div>
    </div>
  );
}
