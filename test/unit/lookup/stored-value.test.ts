import { describe, expect, it } from 'vitest';
import { loadOrNothing } from '@/lib/lookup/stored-value';

describe('loadOrNothing', () => {
  it('gives what was stored', async () => {
    expect(await loadOrNothing({ load: async () => ({ v: 1 }), save: async () => undefined })).toEqual({ v: 1 });
  });

  it('treats no store and a failing read as nothing stored, never rejecting', async () => {
    expect(await loadOrNothing(undefined)).toBeUndefined();
    const failing = { load: () => Promise.reject(new Error('storage is closing')), save: async () => undefined };
    await expect(loadOrNothing(failing)).resolves.toBeUndefined();
  });
});
