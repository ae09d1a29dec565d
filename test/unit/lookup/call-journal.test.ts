import { describe, expect, it } from 'vitest';
import { CallJournal, type CallJournalStore } from '../../../lib/lookup/call-journal';

function memoryStore(initial?: unknown): CallJournalStore & { value: unknown } {
  const store = {
    value: initial,
    load: async () => structuredClone(store.value),
    save: async (value: unknown) => void (store.value = structuredClone(value)),
  };
  return store;
}

describe('CallJournal', () => {
  it('a call still open when the worker stopped makes its IPs interrupted, for its own identity only', async () => {
    const store = memoryStore();
    const first = new CallJournal(store);
    await first.restore();
    const entry = first.begin('key-1', ['1.1.1.1', '2.2.2.2']);
    await entry.written;
    // The worker stops here. The next one reads what the first left open.
    const next = new CallJournal(store);
    await next.restore();
    expect(next.isInterrupted('1.1.1.1', 'key-1')).toBe(true);
    expect(next.isInterrupted('2.2.2.2', 'key-1')).toBe(true);
    expect(next.isInterrupted('1.1.1.1', 'key-2')).toBe(false);
    expect(next.isInterrupted('3.3.3.3', 'key-1')).toBe(false);
  });

  it('a call crossed out leaves nothing behind; answered IPs lose their hold', async () => {
    const store = memoryStore();
    const journal = new CallJournal(store);
    await journal.restore();
    await journal.begin('k', ['1.1.1.1']).end(['1.1.1.1']);
    const next = new CallJournal(store);
    await next.restore();
    expect(next.interruptedCount).toBe(0);

    await next.begin('k', ['5.5.5.5', '6.6.6.6']).written;
    const third = new CallJournal(store);
    await third.restore();
    expect(third.interruptedCount).toBe(2);
    // Answered by a manual lookup's call: no hold any more, also for the worker after.
    await third.begin('k', ['5.5.5.5']).end(['5.5.5.5']);
    third.answered('6.6.6.6');
    await third.flush();
    const fourth = new CallJournal(store);
    await fourth.restore();
    expect(fourth.interruptedCount).toBe(0);
  });

  it('an unreadable or failing store is an empty journal, never an error', async () => {
    for (const value of [undefined, null, 42, { v: 9 }, { v: 1, calls: 'x', interrupted: [] }]) {
      const journal = new CallJournal(memoryStore(value));
      await journal.restore();
      expect(journal.interruptedCount).toBe(0);
    }
    const failing = new CallJournal({
      load: () => Promise.reject(new Error('gone')),
      save: () => Promise.reject(new Error('full')),
    });
    await failing.restore();
    const entry = failing.begin('k', ['1.1.1.1']);
    await expect(entry.written).resolves.toBeUndefined();
    await expect(entry.end([])).resolves.toBeUndefined();
  });
});
