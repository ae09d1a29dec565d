/**
 * The options page's "Open in …" editor: the list of pivot services as the analyst edits it.
 * Every field is checked as it is typed, with lib/pivots.ts's rules (the same the settings
 * schema applies); the list is saved as a whole, and only when every row is valid, so a
 * half-typed template never reaches storage. Turning a service on or off, removing one and
 * "Reset to defaults" are complete edits and save at once (if the rest of the list is valid).
 * Saves run one at a time, the newest last (./save-queue.ts), as in every options section.
 */
import { computed, signal } from '@preact/signals';
import { DEFAULT_PIVOTS, MAX_PIVOTS, nameError, newPivotId, pivotListError, templateError, type Pivot } from '../../pivots';
import type { Settings } from '../../settings';
import { createSaveQueue } from './save-queue';
import type { SaveStatus } from './section-form';

export interface PivotRowErrors {
  name?: string;
  urlTemplate?: string;
}

export function pivotErrors(rows: readonly Pivot[]): { rows: PivotRowErrors[]; form: string | null } {
  const errors = rows.map((p) => {
    const e: PivotRowErrors = {};
    const name = nameError(p.name);
    const url = templateError(p.urlTemplate);
    if (name) e.name = name;
    if (url) e.urlTemplate = url;
    return e;
  });
  return { rows: errors, form: pivotListError(rows) };
}

export function createPivotsStore(save: (patch: Partial<Settings>) => Promise<Settings>) {
  const stored = signal<Pivot[] | null>(null);
  const draft = signal<Pivot[]>([]);
  const status = signal<SaveStatus>({ state: 'idle' });
  const errors = computed(() => pivotErrors(draft.value));
  const valid = computed(() => !errors.value.form && errors.value.rows.every((e) => !e.name && !e.urlTemplate));
  const dirty = computed(() => !!stored.value && JSON.stringify(draft.value) !== JSON.stringify(stored.value));

  const queue = createSaveQueue();

  /** Takes the stored list; keeps what the analyst is typing (or a save is storing) unless `force`. */
  function load(value: Pivot[], force = false): void {
    const editing = dirty.value || queue.busy;
    stored.value = value;
    if (force || !editing) draft.value = value.map((p) => ({ ...p }));
  }

  function edit(index: number, patch: Partial<Pick<Pivot, 'name' | 'urlTemplate' | 'enabled'>>): void {
    draft.value = draft.value.map((p, i) => (i === index ? { ...p, ...patch } : p));
    if (status.value.state !== 'saving') status.value = { state: 'idle' };
  }

  /** Saves the list as it is now (after any save already on its way); resolves once stored. */
  function commit(): Promise<void> {
    if (!valid.value) {
      status.value = { state: 'invalid' };
      return Promise.resolve();
    }
    const shown = draft.value;
    const list = shown.map((p) => ({ ...p, name: p.name.trim(), urlTemplate: p.urlTemplate.trim() }));
    return queue.request(() => write(list, shown));
  }

  async function write(list: Pivot[], shown: Pivot[]): Promise<void> {
    if (stored.value && JSON.stringify(list) === JSON.stringify(stored.value)) return;
    status.value = { state: 'saving' };
    try {
      const next = await save({ pivots: list });
      stored.value = next.pivots;
      // Only a list nobody touched since this save was sent takes the stored form.
      if (draft.value === shown) draft.value = next.pivots.map((p) => ({ ...p }));
      status.value = valid.value ? { state: 'saved' } : { state: 'invalid' };
    } catch (error) {
      status.value = { state: 'failed', message: error instanceof Error ? error.message : String(error) };
    }
  }

  return {
    stored,
    draft,
    status,
    errors,
    dirty,
    load,
    edit,
    commit,
    /** How many more services may be added. */
    room: computed(() => MAX_PIVOTS - draft.value.length),
    setEnabled(index: number, enabled: boolean): Promise<void> {
      edit(index, { enabled });
      return commit();
    },
    /** A new, empty row to fill in (saved once its name and URL are valid). */
    add(): void {
      if (draft.value.length >= MAX_PIVOTS) return;
      draft.value = [...draft.value, { id: newPivotId(draft.value), name: '', urlTemplate: 'https://', enabled: true }];
      status.value = { state: 'idle' };
    },
    remove(index: number): Promise<void> {
      draft.value = draft.value.filter((_, i) => i !== index);
      return commit();
    },
    resetToDefaults(): Promise<void> {
      draft.value = DEFAULT_PIVOTS.map((p) => ({ ...p }));
      return commit();
    },
  };
}
export type PivotsStore = ReturnType<typeof createPivotsStore>;
