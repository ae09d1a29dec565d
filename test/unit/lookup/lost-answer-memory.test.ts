/** A lost paid answer is remembered per IP: one automatic re-ask an hour, then held with its reason. */
import { describe, expect, it } from 'vitest';
import { LostAnswerMemory } from '../../../lib/lookup/lost-answer-memory';

const timeout = { kind: 'timeout' as const, message: 'No answer from the API within 15 s.', lostAfterSend: true };

function setup() {
  let now = 5_000_000;
  const store = {
    value: undefined as unknown,
    load: async () => structuredClone(store.value),
    save: async (value: unknown) => void (store.value = structuredClone(value)),
  };
  const clock = { now: () => now };
  return { memory: new LostAnswerMemory({ clock, store }), store, clock, advance: (ms: number) => (now += ms) };
}

describe('LostAnswerMemory', () => {
  it('an IP never lost is free; a lost one gets one re-ask, then is held with the reason', () => {
    const { memory, advance } = setup();
    expect(memory.verdict('1.2.3.4', 'k')).toEqual({ kind: 'free' });
    memory.lost(['1.2.3.4'], 'k', timeout);
    expect(memory.verdict('1.2.3.4', 'k')).toEqual({ kind: 'reask' });
    memory.reasked('1.2.3.4');
    memory.lost(['1.2.3.4'], 'k', timeout);
    const held = memory.verdict('1.2.3.4', 'k');
    expect(held).toMatchObject({ kind: 'held', error: { kind: 'timeout', lostAfterSend: true } });
    expect(held.kind === 'held' && held.error.message).toMatch(/lost twice.*60 min.*Try again/);
    advance(59 * 60_000);
    expect(memory.verdict('1.2.3.4', 'k').kind).toBe('held');
    advance(60_000);
    expect(memory.verdict('1.2.3.4', 'k').kind).toBe('reask');
  });

  it('another key never paid for it; an answer ends the hold', () => {
    const { memory } = setup();
    memory.lost(['1.2.3.4'], 'k', timeout);
    memory.reasked('1.2.3.4');
    expect(memory.verdict('1.2.3.4', 'other').kind).toBe('free');
    memory.answered('1.2.3.4');
    expect(memory.verdict('1.2.3.4', 'k').kind).toBe('free');
  });

  it('outlives the worker; garbage is ignored', async () => {
    const { memory, store, clock } = setup();
    memory.lost(['1.2.3.4', '5.6.7.8'], 'k', timeout);
    memory.reasked('5.6.7.8');
    await memory.flush();
    const next = new LostAnswerMemory({ clock, store });
    await next.restore();
    expect(next.verdict('1.2.3.4', 'k').kind).toBe('reask');
    expect(next.verdict('5.6.7.8', 'k').kind).toBe('held');
    store.value = { v: 1, records: [['1.2.3.4', { identity: 'k' }]] };
    const third = new LostAnswerMemory({ clock, store });
    await third.restore();
    expect(third.size).toBe(0);
  });
});
