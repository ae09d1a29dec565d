/**
 * One options section bound to one setting (lookup policy, thresholds, mark style). The draft
 * is validated on every keystroke; it is saved, as a whole, only when every field is valid, so
 * a half-typed section never reaches storage. Saving happens on commit (a field's `change`:
 * blur, Enter, a toggle), like the browser's own settings pages.
 */
import { computed, signal } from '@preact/signals';
import type { Settings, SettingKey } from '../../settings';

export type DraftValue = string | boolean;
export type Draft = Record<string, DraftValue>;

export type ParseResult<D extends Draft, V> =
  | { ok: true; value: V }
  | { ok: false; errors: Partial<Record<keyof D | 'form', string>> };

export interface SectionFormOptions<K extends SettingKey, D extends Draft> {
  key: K;
  toDraft(value: Settings[K]): D;
  parse(draft: D): ParseResult<D, Settings[K]>;
  save(patch: Partial<Settings>): Promise<Settings>;
}

export type SaveStatus =
  | { state: 'idle' }
  | { state: 'saving' }
  | { state: 'saved' }
  | { state: 'invalid' }
  | { state: 'failed'; message: string };

export function createSectionForm<K extends SettingKey, D extends Draft>(options: SectionFormOptions<K, D>) {
  const stored = signal<Settings[K] | null>(null);
  const draft = signal<D | null>(null);
  const status = signal<SaveStatus>({ state: 'idle' });
  const result = computed(() => (draft.value ? options.parse(draft.value) : null));
  const errors = computed((): Partial<Record<keyof D | 'form', string>> =>
    result.value && !result.value.ok ? result.value.errors : {},
  );
  const dirty = computed(
    () => !!draft.value && !!stored.value && JSON.stringify(draft.value) !== JSON.stringify(options.toDraft(stored.value)),
  );

  /** Takes the stored value; keeps what the user is typing unless `force`. */
  function load(value: Settings[K], force = false): void {
    // Dirty against what was stored before this value arrived.
    const editing = dirty.value;
    stored.value = value;
    if (force || !draft.value || !editing) draft.value = options.toDraft(value);
  }

  function set<F extends keyof D>(field: F, value: D[F]): void {
    if (!draft.value) return;
    draft.value = { ...draft.value, [field]: value };
    if (status.value.state !== 'saving') status.value = { state: 'idle' };
  }

  async function commit(): Promise<void> {
    const parsed = result.value;
    if (!parsed) return;
    if (!parsed.ok) {
      status.value = { state: 'invalid' };
      return;
    }
    if (!dirty.value) return;
    status.value = { state: 'saving' };
    try {
      const next = await options.save({ [options.key]: parsed.value } as Partial<Settings>);
      stored.value = next[options.key];
      draft.value = options.toDraft(next[options.key]);
      status.value = { state: 'saved' };
    } catch (error) {
      status.value = { state: 'failed', message: error instanceof Error ? error.message : String(error) };
    }
  }

  /** Puts the stored value back in the fields. */
  function revert(): void {
    if (stored.value) draft.value = options.toDraft(stored.value);
    status.value = { state: 'idle' };
  }

  return { stored, draft, status, errors, dirty, load, set, commit, revert };
}
export type SectionForm<K extends SettingKey, D extends Draft> = ReturnType<typeof createSectionForm<K, D>>;
