/**
 * One options section bound to one setting (lookup policy, thresholds, mark style). The draft
 * is validated on every keystroke; it is saved, as a whole, only when every field is valid, so
 * a half-typed section never reaches storage. Saving happens on commit (a field's `change`:
 * blur, Enter, a toggle), like the browser's own settings pages.
 *
 * Saves run one at a time, the newest last (./save-queue.ts): what ends in storage is what the
 * analyst last committed, and a save coming back never changes a field the analyst has touched
 * since it was sent, so the page does not change by itself.
 */
import { computed, signal } from '@preact/signals';
import type { Settings, SettingKey } from '../../settings';
import { createSaveQueue } from './save-queue';

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

  const queue = createSaveQueue();
  const same = (a: Settings[K], b: Settings[K]) => JSON.stringify(options.toDraft(a)) === JSON.stringify(options.toDraft(b));

  /**
   * Takes the stored value; keeps what the user is typing unless `force`. While a save of this
   * section is on its way, the fields stay as they are: storage may still hold an older state
   * than the one on screen, and the queued save will store what is shown.
   */
  function load(value: Settings[K], force = false): void {
    // Dirty against what was stored before this value arrived.
    const editing = dirty.value || queue.busy;
    stored.value = value;
    if (force || !draft.value || !editing) draft.value = options.toDraft(value);
  }

  function set<F extends keyof D>(field: F, value: D[F]): void {
    if (!draft.value) return;
    draft.value = { ...draft.value, [field]: value };
    if (status.value.state !== 'saving') status.value = { state: 'idle' };
  }

  /** Saves the section as it is now (after any save already on its way); resolves once stored. */
  function commit(): Promise<void> {
    const parsed = result.value;
    if (!parsed) return Promise.resolve();
    if (!parsed.ok) {
      status.value = { state: 'invalid' };
      return Promise.resolve();
    }
    const value = parsed.value;
    const shown = draft.value;
    return queue.request(() => write(value, shown));
  }

  async function write(value: Settings[K], shown: D | null): Promise<void> {
    if (stored.value && same(value, stored.value)) return;
    status.value = { state: 'saving' };
    try {
      const next = await options.save({ [options.key]: value } as Partial<Settings>);
      stored.value = next[options.key];
      // The stored form (trimmed, normalised numbers) replaces the fields only if nobody
      // touched them since this save was sent: a newer edit stays, and its own save follows.
      if (draft.value === shown) draft.value = options.toDraft(next[options.key]);
      status.value = result.value && !result.value.ok ? { state: 'invalid' } : { state: 'saved' };
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
