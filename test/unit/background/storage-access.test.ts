import { describe, expect, it, vi } from 'vitest';
import { restrictToTrustedContexts } from '@/lib/background/storage-access';

describe('restricting storage.local to trusted contexts', () => {
  it('asks for TRUSTED_CONTEXTS where the area supports it', async () => {
    const setAccessLevel = vi.fn(() => Promise.resolve());
    const warn = vi.fn();
    await restrictToTrustedContexts({ setAccessLevel }, warn);
    expect(setAccessLevel).toHaveBeenCalledExactlyOnceWith({ accessLevel: 'TRUSTED_CONTEXTS' });
    expect(warn).not.toHaveBeenCalled();
  });

  it('does nothing where setAccessLevel is missing', async () => {
    const warn = vi.fn();
    await expect(restrictToTrustedContexts({}, warn)).resolves.toBeUndefined();
    await expect(restrictToTrustedContexts(undefined, warn)).resolves.toBeUndefined();
    expect(warn).not.toHaveBeenCalled();
  });

  it('warns once and resolves where the browser refuses (Firefox: storage.session only)', async () => {
    const warn = vi.fn();
    const setAccessLevel = vi.fn(() => Promise.reject(new Error('Only supported for session storage')));
    await expect(restrictToTrustedContexts({ setAccessLevel }, warn)).resolves.toBeUndefined();
    expect(warn).toHaveBeenCalledOnce();
    expect(warn.mock.calls[0]?.[0]).toContain('Only supported for session storage');
  });
});
