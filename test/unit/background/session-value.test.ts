import { describe, expect, it } from 'vitest';
import { sessionValue, type SessionArea } from '@/lib/background/session-value';

function memoryArea(): SessionArea & { data: Map<string, unknown> } {
  const data = new Map<string, unknown>();
  return {
    data,
    get: async (key) => (data.has(key) ? { [key]: structuredClone(data.get(key)) } : {}),
    set: async (items) => {
      for (const [k, v] of Object.entries(items)) data.set(k, structuredClone(v));
    },
  };
}

describe('sessionValue', () => {
  it('saves and loads one key of storage.session', async () => {
    const area = memoryArea();
    const value = sessionValue(area, 'k');
    expect(await value.load()).toBeUndefined();
    await value.save({ a: [1] });
    expect(area.data.get('k')).toEqual({ a: [1] });
    expect(await sessionValue(area, 'k').load()).toEqual({ a: [1] });
    expect(await sessionValue(area, 'other').load()).toBeUndefined();
  });

  it('without storage.session, or when it fails, finds nothing and drops writes without throwing', async () => {
    const missing = sessionValue(undefined, 'k');
    expect(await missing.load()).toBeUndefined();
    await expect(missing.save(1)).resolves.toBeUndefined();
    const failing = sessionValue(
      { get: () => Promise.reject(new Error('gone')), set: () => Promise.reject(new Error('QUOTA_BYTES quota exceeded')) },
      'k',
    );
    expect(await failing.load()).toBeUndefined();
    await expect(failing.save(1)).resolves.toBeUndefined();
  });
});
