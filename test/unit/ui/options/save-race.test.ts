/**
 * Fast edits while a save is on its way: the stored setting ends as the analyst left the
 * screen, and the screen never changes by itself when a save comes back.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS, type Settings } from '@/lib/settings';
import { createApiForm } from '@/lib/ui/options/api-form';
import { createOptionsStores } from '@/lib/ui/options/options-stores';
import { createPivotsStore } from '@/lib/ui/options/pivots-store';
import { parsePolicyDraft, policyToDraft } from '@/lib/ui/options/policy-form';
import { createSaveQueue } from '@/lib/ui/options/save-queue';
import { createSectionForm } from '@/lib/ui/options/section-form';
import { createFakeServices, type FakeServices } from '../fake-services';

/** A background that stores each save only when the test lets it finish. */
function slowSaves(services: FakeServices) {
  const pending: { patch: Partial<Settings>; finish(): Promise<void> }[] = [];
  const saves: Partial<Settings>[] = [];
  const save = (patch: Partial<Settings>) =>
    new Promise<Settings>((resolve, reject) => {
      saves.push(patch);
      pending.push({ patch, finish: () => services.settings.save(patch).then(resolve, reject) });
    });
  /** Lets every save through, including those asked for while earlier ones finish. */
  async function finishAll(): Promise<void> {
    for (let i = 0; i < 100; i++) {
      await new Promise((r) => setTimeout(r, 0));
      const next = pending.shift();
      if (!next) return;
      await next.finish();
    }
  }
  return { save, saves, pending, finishAll };
}

function policyForm(save: (patch: Partial<Settings>) => Promise<Settings>) {
  const form = createSectionForm({ key: 'lookupPolicy', toDraft: policyToDraft, parse: parsePolicyDraft, save });
  form.load(DEFAULT_SETTINGS.lookupPolicy);
  return form;
}

describe('save queue', () => {
  it('runs one task at a time, collapses the waiting ones into the newest, and resolves when idle', async () => {
    const queue = createSaveQueue();
    const ran: string[] = [];
    let release!: () => void;
    const first = queue.request(() => new Promise<void>((r) => (release = () => (ran.push('a'), r()))));
    const second = queue.request(async () => void ran.push('b'));
    const third = queue.request(async () => void ran.push('c'));
    expect(queue.busy).toBe(true);
    expect(ran).toEqual([]);
    release();
    await Promise.all([first, second, third]);
    expect(ran).toEqual(['a', 'c']);
    expect(queue.busy).toBe(false);
  });

  it('goes on after a failed task', async () => {
    const queue = createSaveQueue();
    const ran: string[] = [];
    const first = queue.request(() => Promise.reject(new Error('disk full')));
    const second = queue.request(async () => void ran.push('after'));
    await Promise.all([first, second]);
    expect(ran).toEqual(['after']);
  });
});

describe('a toggle pressed twice while the first save is on its way', () => {
  it('stores the state left on screen and never flips the field', async () => {
    const services = createFakeServices();
    const slow = slowSaves(services);
    const form = policyForm(slow.save);
    form.set('sendPrivate', true);
    const one = form.commit();
    form.set('sendPrivate', false);
    const two = form.commit();
    expect(form.draft.value!.sendPrivate).toBe(false);
    await slow.finishAll();
    await Promise.all([one, two]);
    expect(services.stored.lookupPolicy.sendPrivate).toBe(false);
    expect(form.draft.value!.sendPrivate).toBe(false);
    expect(form.dirty.value).toBe(false);
    expect(form.status.value.state).toBe('saved');
    // One save at a time: the second was sent after the first came back.
    expect(slow.saves.map((p) => p.lookupPolicy!.sendPrivate)).toEqual([true, false]);
  });

  it('three presses store the last, with the one in between skipped', async () => {
    const services = createFakeServices();
    const slow = slowSaves(services);
    const form = policyForm(slow.save);
    expect(DEFAULT_SETTINGS.lookupPolicy.automatic).toBe(true);
    const presses = [false, true, false].map((on) => {
      form.set('automatic', on);
      return form.commit();
    });
    await slow.finishAll();
    await Promise.all(presses);
    expect(services.stored.lookupPolicy.automatic).toBe(false);
    // The middle press waited, was replaced by the last, which matched what was stored by then.
    expect(slow.saves.map((p) => p.lookupPolicy!.automatic)).toEqual([false]);
    expect(form.draft.value!.automatic).toBe(false);
  });

  it('a storage change arriving during the save leaves the screen alone', async () => {
    const services = createFakeServices();
    const slow = slowSaves(services);
    const form = policyForm(slow.save);
    form.set('sendPrivate', true);
    const one = form.commit();
    form.set('sendPrivate', false);
    const two = form.commit();
    // The first save lands in storage, and the page hears of it before the save's own reply.
    form.load({ ...DEFAULT_SETTINGS.lookupPolicy, sendPrivate: true });
    expect(form.draft.value!.sendPrivate).toBe(false);
    await slow.finishAll();
    await Promise.all([one, two]);
    expect(services.stored.lookupPolicy.sendPrivate).toBe(false);
    expect(form.draft.value!.sendPrivate).toBe(false);
  });

  it('a pivot turned off and on again ends on, stored and shown', async () => {
    const services = createFakeServices();
    const slow = slowSaves(services);
    const store = createPivotsStore(slow.save);
    store.load(services.stored.pivots);
    const presses = [store.setEnabled(0, false), store.setEnabled(0, true)];
    await slow.finishAll();
    await Promise.all(presses);
    expect(services.stored.pivots[0]!.enabled).toBe(true);
    expect(store.draft.value[0]!.enabled).toBe(true);
    expect(store.dirty.value).toBe(false);
  });
});

describe('the API section', () => {
  it('a header changed while Save is storing stays on screen, for the next Save', async () => {
    const services = createFakeServices();
    const slow = slowSaves(services);
    const form = createApiForm({ ...services, settings: { ...services.settings, save: slow.save } });
    form.load(services.stored);
    form.authHeader.value = 'x-api-key';
    const saving = form.save();
    await new Promise((r) => setTimeout(r, 0));
    form.authHeader.value = 'authorization';
    await slow.finishAll();
    await saving;
    expect(services.stored.authHeader).toBe('x-api-key');
    expect(form.authHeader.value).toBe('authorization');
    expect(form.dirty.value).toBe(true);
  });
});

describe('the options page following storage', () => {
  it('shows the newest read when two reads come back out of order', async () => {
    const services = createFakeServices();
    const reads: ((s: Settings) => void)[] = [];
    let watcher: (() => void) | null = null;
    const stores = createOptionsStores({
      ...services,
      settings: {
        ...services.settings,
        get: () => new Promise<Settings>((resolve) => reads.push(resolve)),
        watch: (callback) => {
          watcher = () => callback(['markStyle']);
          return () => (watcher = null);
        },
      },
    });
    const stop = stores.start();
    reads.shift()!(DEFAULT_SETTINGS);
    await new Promise((r) => setTimeout(r, 0));
    expect(stores.markStyle.draft.value).toEqual({ style: 'underline' });
    watcher!();
    watcher!();
    const [older, newer] = [reads.shift()!, reads.shift()!];
    newer({ ...DEFAULT_SETTINGS, markStyle: 'background' });
    await new Promise((r) => setTimeout(r, 0));
    older({ ...DEFAULT_SETTINGS, markStyle: 'underline' });
    await new Promise((r) => setTimeout(r, 0));
    expect(stores.markStyle.draft.value).toEqual({ style: 'background' });
    stop();
  });
});
