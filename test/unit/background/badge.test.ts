import { describe, expect, it } from 'vitest';
import { badgeText, createBadge } from '@/lib/background/badge';
import { fakePageApi } from './page-api-fake';

describe('badge', () => {
  it('counts high and critical IPs per tab, summed over frames', async () => {
    const fake = fakePageApi();
    const badge = createBadge(fake.api);
    await badge.report(7, 0, 'doc-a', { critical: 2, high: 1, medium: 5, clean: 9 });
    expect(fake.badges.get(7)).toBe('3');
    await badge.report(7, 3, 'frame-doc', { high: 4 });
    expect(fake.badges.get(7)).toBe('7');
    await badge.report(7, 3, 'frame-doc', { high: 0 });
    expect(fake.badges.get(7)).toBe('3');
    await badge.report(8, 0, 'other', { low: 3 });
    expect(fake.badges.get(8)).toBe('');
  });

  it('starts afresh on a new top document and when the tab navigates', async () => {
    const fake = fakePageApi();
    const badge = createBadge(fake.api);
    await badge.report(7, 0, 'doc-a', { critical: 2 });
    await badge.report(7, 2, 'frame', { critical: 1 });
    await badge.report(7, 0, 'doc-b', { critical: 1 });
    expect(fake.badges.get(7)).toBe('1');
    await badge.clearTab(7);
    expect(fake.badges.get(7)).toBe('');
  });

  it('survives a service-worker restart through storage.session', async () => {
    const fake = fakePageApi();
    await createBadge(fake.api).report(7, 0, 'doc', { critical: 2 });
    const restarted = createBadge(fake.api);
    await restarted.report(7, 4, 'frame', { high: 1 });
    expect(fake.badges.get(7)).toBe('3');
  });

  it('keeps the text short', () => {
    expect(badgeText(0)).toBe('');
    expect(badgeText(42)).toBe('42');
    expect(badgeText(1234)).toBe('999+');
  });
});
